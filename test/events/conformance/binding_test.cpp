// Conformance of the MPI_T events library with MPI 4.0, 7. Binding: suite Binding, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conformance_support.h"

using namespace events_test;

TEST(Binding, SeveralRegistrationsOnOneObjectEachReceiveInRegistrationOrder) {
  const int t = type("ev_bind_several", source("src_bind_several"), MPI_T_BIND_MPI_COMM);
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  DropLog log;  // records "event:<serial>" per callback, in call order
  struct Tagged {
    DropLog* log;
    std::string tag;
    static void event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
      auto* t = static_cast<Tagged*>(self);
      int64_t serial = 0;
      MPI_T_event_read(instance, 2, &serial);
      t->log->log.push_back(t->tag + ":" + std::to_string(serial));
    }
  } w1{&log, "w1"}, s1{&log, "s1"}, w2{&log, "w2"};
  MPI_T_event_registration a = alloc(t, &world), b = alloc(t, &self), c = alloc(t, &world);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &w1, Tagged::event);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &s1, Tagged::event);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &w2, Tagged::event);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED, world);
  raise(t, 2, MPI_T_CB_REQUIRE_MPI_RESTRICTED, self);
  EXPECT_EQ((std::vector<std::string>{"w1:1", "w2:1", "s1:2"}), log.log);
  for (MPI_T_event_registration r : {a, b, c}) MPI_T_event_handle_free(r, nullptr, nullptr);
}

TEST(Binding, BoundRegistrationReceivesOnlyItsObjectsEvents) {
  const int t = type("ev_bind_filter", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  Recorder on_world, on_self;
  MPI_T_event_registration a = alloc(t, &world), b = alloc(t, &self);
  ASSERT_NE(nullptr, a);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &on_world, Recorder::callback);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &on_self, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, world);
  raise(t, 2, MPI_T_CB_REQUIRE_NONE, self);
  raise(t, 3, MPI_T_CB_REQUIRE_NONE, world);
  ASSERT_EQ(2, on_world.calls.load());
  ASSERT_EQ(1, on_self.calls.load());
  EXPECT_EQ(3, on_world.seen[1].serial);
  EXPECT_EQ(2, on_self.seen[0].serial);
  MPI_T_event_handle_free(a, nullptr, nullptr);
  MPI_T_event_handle_free(b, nullptr, nullptr);
}

TEST(Binding, NullObjectForABoundTypeIsInvalidHandle) {
  const int t = type("ev_bind_null", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, nullptr, MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

TEST(Binding, UnboundTypeIgnoresTheObject) {
  const int t = type("ev_bind_unbound", source("src_bind"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t, nullptr);
  ASSERT_NE(nullptr, reg);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, &r);
  EXPECT_EQ(1, r.calls.load());
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Binding, FreedObjectStopsDeliveryEvenIfTheAddressIsReused) {
  const int t = type("ev_bind_freed", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Comm self = MPI_COMM_SELF;
  Recorder r;
  MPI_T_event_registration reg = alloc(t, &self);
  ASSERT_NE(nullptr, reg);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, self);
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, self);
  raise(t, 2, MPI_T_CB_REQUIRE_NONE, self);  // a new communicator at the same address
  EXPECT_EQ(1, r.calls.load());
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));  // still a valid handle
}

// Objects that are not live objects of the type's kind: refused, whatever they point to.
TEST(Binding, NullCommunicatorIsInvalidHandle) {
  const int t = type("ev_bind_comm_null", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Comm null = MPI_COMM_NULL;
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &null, MPI_INFO_NULL, &reg));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, MPI_COMM_NULL, MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

TEST(Binding, ObjectOfAnotherKindIsInvalidHandle) {
  const int t = type("ev_bind_other_kind", source("src_bind"), MPI_T_BIND_MPI_WIN);
  MPI_Comm world = MPI_COMM_WORLD;
  MPI_Win null = MPI_WIN_NULL;
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &world, MPI_INFO_NULL, &reg));  // a communicator
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &null, MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

TEST(Binding, AnyOtherPointerIsRefusedWithoutACrash) {
  const int t = type("ev_bind_garbage", source("src_bind"), MPI_T_BIND_MPI_COMM);
  long not_a_handle = 12345;
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &not_a_handle, MPI_INFO_NULL, &reg));
  // Not even readable memory: the library reads through the kernel, which reports it.
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, reinterpret_cast<void*>(8), MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

// Open MPI's own monitoring tests pass the communicator, not its address.
TEST(Binding, CommunicatorPassedItselfIsAccepted) {
  const int t = type("ev_bind_by_value", source("src_bind"), MPI_T_BIND_MPI_COMM);
  Recorder r;
  MPI_T_event_registration reg = alloc(t, MPI_COMM_WORLD);
  ASSERT_NE(nullptr, reg);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, MPI_COMM_WORLD);
  raise(t, 2, MPI_T_CB_REQUIRE_NONE, MPI_COMM_SELF);
  ASSERT_EQ(1, r.calls.load());
  EXPECT_EQ(1, r.seen[0].serial);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Binding, EveryObjectHintReceivesTheEventsOfEveryObject) {
  const int t = type("ev_bind_every", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Info hint = mpimon_events_test_info_make(MPIMON_EVENTS_EVERY_OBJECT, "true");
  ASSERT_NE(MPI_INFO_NULL, hint);
  Recorder r;
  MPI_T_event_registration reg = nullptr;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_alloc(t, nullptr, hint, &reg));  // no object needed
  mpimon_events_test_info_free(&hint);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  int internal = 0;  // any object, also one the tool never saw
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, MPI_COMM_WORLD);
  raise(t, 2, MPI_T_CB_REQUIRE_MPI_RESTRICTED, &internal);
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, &internal);  // not bound to it: still listening
  raise(t, 3, MPI_T_CB_REQUIRE_NONE, &internal);
  EXPECT_EQ(3, r.calls.load());
  MPI_Info used = MPI_INFO_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_get_info(reg, &used));
  char value[16] = {};
  EXPECT_EQ(1, mpimon_events_test_info_get(used, MPIMON_EVENTS_EVERY_OBJECT, value, sizeof value));
  EXPECT_STREQ("true", value);
  mpimon_events_test_info_free(&used);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}
