// Conformance of the MPI_T events library with MPI 4.0, 1. NOT_INITIALIZED outside MPI_T: suite Initialization, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <vector>

#include "conformance_support.h"
#include "events_not_initialized.h"

using namespace events_test;

extern std::vector<int> g_codes_before_init;

TEST(Initialization, AllTwentyFunctionsNotInitializedBeforeInit) {
  ASSERT_EQ(20u, g_codes_before_init.size());
  for (std::size_t i = 0; i < g_codes_before_init.size(); ++i)
    EXPECT_EQ(MPI_T_ERR_NOT_INITIALIZED, g_codes_before_init[i]) << "function #" << i;
}

TEST(Initialization, AllTwentyFunctionsNotInitializedAfterLastFinalize) {
  int provided;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));  // count 2
  ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());                                   // 1: still usable
  int n;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_num(&n));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());  // 0
  const std::vector<int> codes = call_all_twenty();
  ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  ASSERT_EQ(20u, codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) EXPECT_EQ(MPI_T_ERR_NOT_INITIALIZED, codes[i]) << "function #" << i;
}
