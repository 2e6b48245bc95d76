// Shared helpers of the events conformance suite: test-only sources and event types
// registered through the producer API, and callback recorders.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "mpit_events.h"
#include "mpit_events_producer.h"
#include "mpit_events_testing.h"

namespace events_test {

// The payload of every test event type: three elements with a gap (the pad is not an
// element), extent 24.
struct Payload {
  int32_t id;      // element 0, MPI_INT32_T at 0
  int32_t pad;     // not an element
  double value;    // element 1, MPI_DOUBLE at 8
  int64_t serial;  // element 2, MPI_INT64_T at 16
};
static_assert(sizeof(Payload) == 24);

inline int source(const char* name, MPI_T_source_order order = MPI_T_SOURCE_ORDERED, int flags = 0) {
  int index = -1;
  mpimon_events_register_source_ex(name, "test source", order, flags, &index);
  return index;
}

inline const mpimon_event_element* payload_elements() {
  static const mpimon_event_element elements[] = {
      {"id", MPI_INT32_T, offsetof(Payload, id)},
      {"value", MPI_DOUBLE, offsetof(Payload, value)},
      {"serial", MPI_INT64_T, offsetof(Payload, serial)},
  };
  return elements;
}

// A test event type on `source_index` (created once per name).
inline int type(const char* name, int source_index, int bind = MPI_T_BIND_NO_OBJECT,
                const char* description = "a test event", const char* const* info = nullptr) {
  mpimon_event_type_desc desc{};
  desc.name = name;
  desc.description = description;
  desc.verbosity = MPI_T_VERBOSITY_USER_BASIC;
  desc.bind = bind;
  desc.source_index = source_index;
  desc.elements = payload_elements();
  desc.num_elements = 3;
  desc.payload_extent = sizeof(Payload);
  desc.info = info;
  int index = -1;
  mpimon_events_register_type(&desc, &index);
  return index;
}

inline void raise(int event_index, int64_t serial, MPI_T_cb_safety context = MPI_T_CB_REQUIRE_NONE,
                  const void* object = nullptr) {
  Payload p{7, 0x5a5a5a5a, 2.5, serial};
  mpimon_events_raise(event_index, object, &p, mpimon_events_now(), context);
}

// What one callback saw.
struct Seen {
  int64_t serial;
  int safety;
  MPI_Count timestamp;
};

struct Recorder {
  std::mutex mutex;
  std::vector<Seen> seen;
  std::atomic<int> calls{0};

  static void callback(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety safety, void* self) {
    auto* r = static_cast<Recorder*>(self);
    Seen s{};
    MPI_T_event_read(instance, 2, &s.serial);
    MPI_T_event_get_timestamp(instance, &s.timestamp);
    s.safety = safety;
    std::lock_guard lock(r->mutex);
    r->seen.push_back(s);
    r->calls.fetch_add(1);
  }
  std::vector<Seen> snapshot() {
    std::lock_guard lock(mutex);
    return seen;
  }
};

inline MPI_T_event_registration alloc(int event_index, void* obj_handle = nullptr) {
  MPI_T_event_registration reg = nullptr;
  MPI_T_event_handle_alloc(event_index, obj_handle, MPI_INFO_NULL, &reg);
  return reg;
}

}  // namespace events_test
