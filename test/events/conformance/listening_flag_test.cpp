// Conformance of the MPI_T events library with MPI 4.0, The producer's listening flag: suite ListeningFlag, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <vector>

#include "conformance_support.h"

using namespace events_test;

TEST(ListeningFlag, FollowsLiveRegistrationsWithCallbacks) {
  const int t = type("ev_flag", source("src_flag"), MPI_T_BIND_MPI_COMM);
  unsigned char flag = 0xFF;
  mpimon_events_watch(t, &flag);
  EXPECT_EQ(0, flag);  // synchronised at watch time
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  Recorder r;
  MPI_T_event_registration a = alloc(t, &world), b = alloc(t, &self);
  EXPECT_EQ(0, flag);  // registrations without callbacks do not listen
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(1, flag);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, nullptr);
  EXPECT_EQ(1, flag);  // one callback left
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, nullptr);
  EXPECT_EQ(0, flag);  // callbacks removed
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_handle_free(a, nullptr, nullptr);
  EXPECT_EQ(1, flag);  // b still listens
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, self);
  EXPECT_EQ(0, flag);  // b's object is gone
  MPI_T_event_handle_free(b, nullptr, nullptr);
  MPI_T_event_registration c = alloc(t, &world);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(1, flag);
  MPI_T_event_handle_free(c, nullptr, nullptr);
  EXPECT_EQ(0, flag);  // handle freed
  mpimon_events_unwatch(t, &flag);
}

TEST(ListeningFlag, NotifyRunsAtWatchAndAtEveryChangeWithTheFlagAlreadySet) {
  const int t = type("ev_flag_notify", source("src_flag_notify"), MPI_T_BIND_NO_OBJECT);
  struct Seen {
    unsigned char flag = 0xFF;
    std::vector<int> values;  // the flag as each notification saw it
  } seen;
  auto changed = [](void* arg) {
    auto* s = static_cast<Seen*>(arg);
    s->values.push_back(s->flag);
  };
  mpimon_events_watch_notify(t, &seen.flag, changed, &seen);
  EXPECT_EQ(std::vector<int>({0}), seen.values);  // once at watch time
  Recorder r;
  MPI_T_event_registration a = alloc(t, nullptr), b = alloc(t, nullptr);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(std::vector<int>({0, 1}), seen.values);  // only the first listener is a change
  MPI_T_event_handle_free(a, nullptr, nullptr);
  EXPECT_EQ(std::vector<int>({0, 1}), seen.values);
  MPI_T_event_handle_free(b, nullptr, nullptr);
  EXPECT_EQ(std::vector<int>({0, 1, 0}), seen.values);  // the last one went
  mpimon_events_unwatch(t, &seen.flag);
  MPI_T_event_registration c = alloc(t, nullptr);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(3u, seen.values.size());  // unwatched: no more notifications
  MPI_T_event_handle_free(c, nullptr, nullptr);
}
