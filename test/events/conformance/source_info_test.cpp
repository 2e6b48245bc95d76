// Conformance of the MPI_T events library with MPI 4.0, 2. get_info of sources: suite SourceInfo, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include "conformance_support.h"

using namespace events_test;

TEST(SourceInfo, OrderingAndAFixedClockRate) {
  const int s = source("src_unordered_info", MPI_T_SOURCE_UNORDERED);
  MPI_T_source_order order;
  MPI_Count tps1 = 0, tps2 = 0, max_ticks = 0;
  MPI_Info info = MPI_INFO_NULL;
  char desc[64];
  int desc_len = sizeof desc;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_info(s, nullptr, nullptr, desc, &desc_len, &order, &tps1, &max_ticks, &info));
  EXPECT_EQ(MPI_T_SOURCE_UNORDERED, order);
  EXPECT_STREQ("test source", desc);
  EXPECT_GT(tps1, 1000000);
  EXPECT_EQ(kMaxCount, max_ticks);
  EXPECT_NE(MPI_INFO_NULL, info);
  mpimon_events_test_info_free(&info);
  ASSERT_EQ(MPI_SUCCESS,
            MPI_T_source_get_info(s, nullptr, nullptr, nullptr, nullptr, nullptr, &tps2, nullptr, nullptr));
  EXPECT_EQ(tps1, tps2);
}

TEST(SourceInfo, ClockRateMatchesMonotonicTime) {
  MPI_Count tps = 0, t0 = 0, t1 = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_info(0, nullptr, nullptr, nullptr, nullptr, nullptr, &tps, nullptr, nullptr));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(0, &t0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(0, &t1));
  const double seconds = static_cast<double>(t1 - t0) / static_cast<double>(tps);
  EXPECT_GT(seconds, 0.045);
  EXPECT_LT(seconds, 0.5);
}

TEST(SourceInfo, BadIndexIsInvalidIndex) {
  int n = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_num(&n));
  MPI_T_source_order order;
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX,
            MPI_T_source_get_info(n, nullptr, nullptr, nullptr, nullptr, &order, nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX,
            MPI_T_source_get_info(-1, nullptr, nullptr, nullptr, nullptr, &order, nullptr, nullptr, nullptr));
}
