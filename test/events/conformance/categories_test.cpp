// Conformance of the MPI_T events library with MPI 4.0, Categories: suite Categories, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <vector>

#include "conformance_support.h"

using namespace events_test;

TEST(Categories, OurCategoryListsEveryEventType) {
  const int cat = our_category();
  ASSERT_GE(cat, 0);
  int n = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_num_events(cat, &n));
  EXPECT_EQ(num_types(), n);
  std::vector<int> indices(n + 2, -7);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_events(cat, n - 1, indices.data()));
  for (int i = 0; i < n - 1; ++i) EXPECT_EQ(i, indices[i]);
  EXPECT_EQ(-7, indices[n - 1]);  // only len entries written
}

TEST(Categories, OtherCategoriesHaveNoEvents) {
  const int cat = our_category();
  int total = 0;
  MPI_T_category_get_num(&total);
  ASSERT_GT(total, 1);
  const int other = cat == 0 ? 1 : 0;
  int n = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_num_events(other, &n));
  EXPECT_EQ(0, n);
  int index = -7;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_category_get_events(other, 1, &index));
  EXPECT_EQ(-7, index);
}

TEST(Categories, BadIndexIsInvalidIndex) {
  int total = 0, n;
  MPI_T_category_get_num(&total);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_num_events(-1, &n));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_num_events(total + 1000, &n));
  int indices[2];
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_events(total + 1000, 2, indices));
}

TEST(Categories, ReappearsAfterAnMpiTFinalizeInitCycle) {
  ASSERT_GE(our_category(), 0);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());
  int provided;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  const int cat = our_category();
  ASSERT_GE(cat, 0);
  int n = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_num_events(cat, &n));
  EXPECT_EQ(num_types(), n);
}
