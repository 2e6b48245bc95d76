// Conformance of the MPI_T events library with MPI 4.0, 8. Instances: read / copy: suite Instance, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <cstring>

#include "conformance_support.h"

using namespace events_test;

namespace {
struct InstanceProbe {
  int read_codes[5] = {-1, -1, -1, -1, -1};
  int32_t id = 0;
  double value = 0;
  int64_t serial = 0;
  unsigned char copy[40];
  int copy_code = -1, source = -1, source_code = -1, null_buffer_code = -1;
  MPI_Count timestamp = 0;
  static void event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<InstanceProbe*>(self);
    std::memset(p->copy, 0xEE, sizeof p->copy);  // guard bytes around and inside the payload
    p->read_codes[0] = MPI_T_event_read(instance, 0, &p->id);
    p->read_codes[1] = MPI_T_event_read(instance, 1, &p->value);
    p->read_codes[2] = MPI_T_event_read(instance, 2, &p->serial);
    int64_t scratch;
    p->read_codes[3] = MPI_T_event_read(instance, -1, &scratch);
    p->read_codes[4] = MPI_T_event_read(instance, 3, &scratch);
    p->copy_code = MPI_T_event_copy(instance, p->copy + 8);
    p->source_code = MPI_T_event_get_source(instance, &p->source);
    p->null_buffer_code = MPI_T_event_read(instance, 0, nullptr);
    MPI_T_event_get_timestamp(instance, &p->timestamp);
  }
};
}  // namespace

TEST(Instance, ReadReturnsEachElementAndRejectsBadIndices) {
  const int s = source("src_instance");
  const int t = type("ev_instance_read", s);
  InstanceProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, InstanceProbe::event);
  raise(t, 42);
  EXPECT_EQ(MPI_SUCCESS, p.read_codes[0]);
  EXPECT_EQ(MPI_SUCCESS, p.read_codes[1]);
  EXPECT_EQ(MPI_SUCCESS, p.read_codes[2]);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, p.read_codes[3]);  // -1
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, p.read_codes[4]);  // n
  EXPECT_EQ(MPI_T_ERR_INVALID, p.null_buffer_code);
  EXPECT_EQ(7, p.id);
  EXPECT_EQ(2.5, p.value);
  EXPECT_EQ(42, p.serial);
  EXPECT_EQ(MPI_SUCCESS, p.source_code);
  EXPECT_EQ(s, p.source);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Instance, CopyWritesElementsAtTheirDisplacementsAndNothingElse) {
  const int t = type("ev_instance_copy", source("src_instance"));
  InstanceProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, InstanceProbe::event);
  raise(t, 43);
  ASSERT_EQ(MPI_SUCCESS, p.copy_code);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(0xEE, p.copy[i]) << "guard before, byte " << i;
  for (int i = 8 + 24; i < 40; ++i) EXPECT_EQ(0xEE, p.copy[i]) << "guard after, byte " << i;
  for (int i = 8 + 4; i < 8 + 8; ++i) EXPECT_EQ(0xEE, p.copy[i]) << "pad (not an element), byte " << i;
  Payload got;
  std::memcpy(&got, p.copy + 8, sizeof got);
  EXPECT_EQ(7, got.id);
  EXPECT_EQ(2.5, got.value);
  EXPECT_EQ(43, got.serial);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Instance, HandlesAreInvalidOutsideTheirCallback) {
  int64_t v;
  MPI_Count ts;
  int src;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_read(nullptr, 0, &v));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_copy(nullptr, &v));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_get_timestamp(nullptr, &ts));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_get_source(nullptr, &src));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_read(reinterpret_cast<MPI_T_event_instance>(&v), 0, &v));
}

TEST(Instance, TimestampIsTheObservationTime) {
  const int t = type("ev_instance_ts", source("src_instance_ts", MPI_T_SOURCE_UNORDERED));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  Payload payload{1, 0, 0, 5};
  const MPI_Count observed = mpimon_events_now() - 1000;
  mpimon_events_raise(t, nullptr, &payload, observed, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);  // buffered
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_EQ(1, r.calls.load());
  EXPECT_EQ(observed, r.seen[0].timestamp);  // a delayed delivery keeps the observation time
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}
