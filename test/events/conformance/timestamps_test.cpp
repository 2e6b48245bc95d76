// Conformance of the MPI_T events library with MPI 4.0, 9. Timestamps: suite Timestamps, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "conformance_support.h"

using namespace events_test;

TEST(Timestamps, OrderedSourceMonotonicAcrossThreads) {
  const int t = type("ev_ts_ordered", source("src_ts_ordered"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  std::vector<std::thread> raisers;
  for (int i = 0; i < 4; ++i)
    raisers.emplace_back([&] {
      for (int k = 0; k < 5000; ++k) raise(t, k);
    });
  for (auto& th : raisers) th.join();
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  const std::vector<Seen> seen = r.snapshot();
  EXPECT_GT(seen.size(), 1000u);
  for (std::size_t i = 1; i < seen.size(); ++i) ASSERT_LE(seen[i - 1].timestamp, seen[i].timestamp) << "delivery " << i;
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Timestamps, SourceTimestampBadIndexIsInvalidIndex) {
  int n = 0;
  MPI_Count ts;
  MPI_T_source_get_num(&n);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_timestamp(n, &ts));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_timestamp(-1, &ts));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_source_get_timestamp(0, nullptr));
}

TEST(Timestamps, SourceWithoutOnDemandTimestampIsNotSupported) {
  const int s = source("src_ts_none", MPI_T_SOURCE_UNORDERED, MPIMON_EVENTS_SOURCE_NO_TIMESTAMP);
  MPI_Count ts;
  EXPECT_EQ(MPI_T_ERR_NOT_SUPPORTED, MPI_T_source_get_timestamp(s, &ts));
}

TEST(Timestamps, SourceTimestampFollowsTheEventClock) {
  const int s = source("src_ts_clock");
  MPI_Count a = 0, b = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(s, &a));
  const MPI_Count now = mpimon_events_now();
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(s, &b));
  EXPECT_LE(a, now);
  EXPECT_LE(now, b);
}

// The producer's MPIMON_EVENTS_NOW: the library stamps the instance.
TEST(Timestamps, NowIsStampedWithTheLibraryClockWhenDelivered) {
  const int t = type("ev_ts_now", source("src_ts_now"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, Recorder::callback);
  Payload p{1, 0, 0, 1};
  const MPI_Count before = mpimon_events_now();
  mpimon_events_raise(t, nullptr, &p, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_THREAD_SAFE);
  const MPI_Count after = mpimon_events_now();
  ASSERT_EQ(1, r.calls.load());
  EXPECT_LE(before, r.seen[0].timestamp);
  EXPECT_LE(r.seen[0].timestamp, after);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Timestamps, NowIsStampedWhenQueuedNotWhenDrained) {
  const int t = type("ev_ts_now_queued", source("src_ts_now_queued", MPI_T_SOURCE_UNORDERED));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  Payload p{1, 0, 0, 1};
  const MPI_Count before = mpimon_events_now();
  mpimon_events_raise(t, nullptr, &p, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);  // queued
  const MPI_Count after = mpimon_events_now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const MPI_Count drained = mpimon_events_now();
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_EQ(1, r.calls.load());
  EXPECT_LE(before, r.seen[0].timestamp);
  EXPECT_LE(r.seen[0].timestamp, after);
  EXPECT_LT(r.seen[0].timestamp, drained);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Timestamps, NowOnAnOrderedSourceMonotonicAcrossThreads) {
  const int t = type("ev_ts_now_ordered", source("src_ts_now_ordered"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, Recorder::callback);
  const MPI_Count start = mpimon_events_now();
  std::vector<std::thread> raisers;
  for (int i = 0; i < 4; ++i)
    raisers.emplace_back([&, i] {
      Payload p{i, 0, 0, 0};
      for (int k = 0; k < 5000; ++k) {
        p.serial = k;
        mpimon_events_raise(t, nullptr, &p, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_THREAD_SAFE);
      }
    });
  for (auto& th : raisers) th.join();
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  const MPI_Count end = mpimon_events_now();
  const std::vector<Seen> seen = r.snapshot();
  EXPECT_GT(seen.size(), 1000u);
  ASSERT_FALSE(seen.empty());
  EXPECT_LE(start, seen.front().timestamp);
  EXPECT_LE(seen.back().timestamp, end);
  for (std::size_t i = 1; i < seen.size(); ++i) ASSERT_LE(seen[i - 1].timestamp, seen[i].timestamp) << "delivery " << i;
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}
