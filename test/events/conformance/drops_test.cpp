// Conformance of the MPI_T events library with MPI 4.0, 5. Drops: suite Drops, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conformance_support.h"

using namespace events_test;

namespace {

DropLog* g_drop_log = nullptr;
void dropped(MPI_Count count, MPI_T_event_registration, int source_index, MPI_T_cb_safety, void* user_data) {
  g_drop_log->log.push_back("drop:" + std::to_string(count) + ":" + std::to_string(source_index));
  g_drop_log->drop_user_data.push_back(user_data);
}
}  // namespace

TEST(Drops, CountedWhenTheRingIsFullAndReportedBeforeTheNextEvent) {
  const int s = source("src_drops");
  const int t = type("ev_drops", s);
  DropLog d;
  g_drop_log = &d;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &d, DropLog::event);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_set_dropped_handler(reg, dropped));
  const int capacity = mpimon_events_test_ring_capacity();
  // Raised where the only callback is too lax: buffered until full, then dropped.
  for (int i = 0; i < capacity + 5; ++i) raise(t, i, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  EXPECT_TRUE(d.log.empty());
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_EQ(static_cast<std::size_t>(capacity) + 1, d.log.size());
  EXPECT_EQ("drop:5:" + std::to_string(s), d.log[0]);  // before any further event of the source
  EXPECT_EQ("event:0", d.log[1]);
  EXPECT_EQ(&d, d.drop_user_data[0]);  // the selected callback's user_data
  raise(t, 99);
  EXPECT_EQ("event:99", d.log.back());  // reported once
  MPI_T_event_handle_free(reg, nullptr, nullptr);
  g_drop_log = nullptr;
}

TEST(Drops, CountSaturatesAtTheLargestMpiCount) {
  const int t = type("ev_drops_saturate", source("src_drops_saturate"));
  DropLog d;
  g_drop_log = &d;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &d, DropLog::event);
  MPI_T_event_set_dropped_handler(reg, dropped);
  ASSERT_EQ(MPI_SUCCESS, mpimon_events_test_set_dropped(reg, kMaxCount - 2));
  const int capacity = mpimon_events_test_ring_capacity();
  for (int i = 0; i < capacity + 10; ++i) raise(t, i, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_FALSE(d.log.empty());
  EXPECT_EQ("drop:" + std::to_string(kMaxCount) + ":" + std::to_string(source("src_drops_saturate")), d.log[0]);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
  g_drop_log = nullptr;
}

TEST(Drops, SettingTheHandlerRestartsTheCountAndNullStopsIt) {
  const int t = type("ev_drops_reset", source("src_drops_reset"));
  DropLog d;
  g_drop_log = &d;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &d, DropLog::event);
  mpimon_events_test_set_dropped(reg, 3);
  MPI_T_event_set_dropped_handler(reg, nullptr);
  raise(t, 1);
  EXPECT_EQ((std::vector<std::string>{"event:1"}), d.log);
  mpimon_events_test_set_dropped(reg, 4);
  MPI_T_event_set_dropped_handler(reg, dropped);  // missed "since it was set": 0
  raise(t, 2);
  EXPECT_EQ((std::vector<std::string>{"event:1", "event:2"}), d.log);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
  g_drop_log = nullptr;
}

// One registration's backlog (callbacks only at a laxer level than the raising context
// requires) never costs another registration of the same source its instances.
TEST(Drops, AFullBacklogOfOneRegistrationCostsAnotherNothing) {
  const int s = source("src_backlog");
  const int t = type("ev_backlog", s), other = type("ev_backlog_other", s);
  DropLog lax;
  g_drop_log = &lax;
  Recorder strict_same_type, strict_other_type;
  MPI_T_event_registration a = alloc(t), b = alloc(t), c = alloc(other);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &lax, DropLog::event);
  MPI_T_event_set_dropped_handler(a, dropped);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &strict_same_type, Recorder::callback);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &strict_other_type, Recorder::callback);
  const int capacity = mpimon_events_test_ring_capacity();
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    raise(t, i, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    raise(other, i, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  }
  ASSERT_EQ(n, strict_same_type.calls.load());
  ASSERT_EQ(n, strict_other_type.calls.load());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(i, strict_same_type.seen[i].serial);
    EXPECT_EQ(i, strict_other_type.seen[i].serial);
  }
  EXPECT_TRUE(lax.log.empty());
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);  // a safe point for the lax callback
  ASSERT_EQ(static_cast<std::size_t>(capacity) + 1, lax.log.size());
  EXPECT_EQ("drop:" + std::to_string(n - capacity) + ":" + std::to_string(s), lax.log[0]);
  EXPECT_EQ("event:0", lax.log[1]);
  EXPECT_EQ("event:" + std::to_string(capacity - 1), lax.log.back());
  for (MPI_T_event_registration r : {a, b, c}) MPI_T_event_handle_free(r, nullptr, nullptr);
  g_drop_log = nullptr;
}

TEST(Drops, ABackloggedRegistrationGetsItsOlderInstancesFirst) {
  const int t = type("ev_backlog_order", source("src_backlog_order"));
  DropLog lax;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &lax, DropLog::event);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  raise(t, 2, MPI_T_CB_REQUIRE_THREAD_SAFE);
  EXPECT_TRUE(lax.log.empty());
  raise(t, 3, MPI_T_CB_REQUIRE_NONE);  // its context allows the callback: the backlog first
  EXPECT_EQ((std::vector<std::string>{"event:1", "event:2", "event:3"}), lax.log);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}
