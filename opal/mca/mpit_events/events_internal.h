// The events library's shared state: registry of sources and event types,
// registrations, delivery. See mpit_events_producer.h for the contract.
//
// Locks (never held while a user callback runs):
// - Registry::control (std::mutex): registry growth, names, registrations' lifecycle,
//   callbacks, listening flags. Taken only by control calls, never on the raise path.
// - Source::lock (spin lock): everything a raise or drain touches for the source's
//   types: the registration lists, callbacks, drop counters, the ring, the delivery token.
// Order: control, then a source lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mpit_events_producer.h"
#include "mpit_events_testing.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

// The handles given to tools are these structs' addresses.
struct mpimon_mpit_event_registration;
struct mpimon_mpit_event_instance;

namespace mpimon::events {

inline constexpr std::size_t kMaxPayload = 64;     // bytes of one instance's payload
inline constexpr std::size_t kRingCapacity = 1024;  // pending instances per source
inline constexpr int kLevels = 4;                   // MPI_T_cb_safety values
inline constexpr int kMaxSources = 256;
inline constexpr int kMaxTypes = 4096;
inline constexpr std::size_t kMaxRegistrations = std::size_t{1} << 22;
inline constexpr MPI_Count kMaxCount = INT64_MAX;

#define MPIMON_EVENTS_TLS __attribute__((tls_model("initial-exec")))

class SpinLock {
 public:
  void lock() noexcept {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__) || defined(__i386__)
        _mm_pause();
#endif
      }
    }
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

struct Element {
  std::string name;
  MPI_Datatype datatype;
  MPI_Aint displacement;
  std::size_t size;
};

struct EventType;
struct Registration;

// One pending instance (payload copied).
struct QueuedInstance {
  EventType* type;
  const void* object;
  MPI_Count timestamp;
  uint64_t horizon;  // only registrations with id <= horizon existed when it was raised
  alignas(8) unsigned char payload[kMaxPayload];
};

struct Source {
  int index = -1;
  std::string name;
  std::string description;
  MPI_T_source_order ordering = MPI_T_SOURCE_ORDERED;
  bool timestamps_on_demand = true;

  // Guarded by lock.
  SpinLock lock;
  bool delivering = false;                 // one thread at a time delivers this source's instances
  Registration* in_callback = nullptr;     // registration whose callback runs now
  MPI_Count last_timestamp = 0;            // ORDERED: last timestamp handed out
  std::unique_ptr<QueuedInstance[]> ring;  // kRingCapacity slots
  std::size_t ring_head = 0;
  std::size_t ring_count = 0;
};

struct EventType {
  int index = -1;
  std::string name;
  std::string description;
  int verbosity = 0;
  int bind = 0;
  Source* source = nullptr;
  std::vector<Element> elements;
  std::size_t extent = 0;
  std::vector<std::pair<std::string, std::string>> info;
  std::atomic<void*> element_enum{nullptr};  // MPI_T_enum, made on first request

  // Guarded by source->lock (changed under control too): live registrations, id order;
  // version changes with the list; lax[c]: some registration has callbacks, none usable
  // in context c (then instances raised in c may have to wait in the ring).
  std::vector<Registration*> registrations;
  uint64_t version = 0;
  bool lax[kLevels] = {};
  // Guarded by control.
  int listening = 0;  // live registrations with >= 1 callback
  std::vector<unsigned char*> watchers;
};

struct Callback {
  MPI_T_event_cb_function* function = nullptr;
  void* user_data = nullptr;
};

struct Registration {
  uint64_t id = 0;
  EventType* type = nullptr;
  const void* object = nullptr;  // bound object's handle value (bound types)

  // Guarded by type->source->lock (written under control too).
  Callback callbacks[kLevels];
  int8_t choice[kLevels] = {-1, -1, -1, -1};  // callback level used in each context, or -1
  bool has_callback = false;
  bool object_gone = false;
  MPI_T_event_dropped_cb_function* dropped_handler = nullptr;
  MPI_Count dropped = 0;
  // Set by handle_free while a callback of this registration runs: the deliverer frees.
  bool free_pending = false;
  MPI_T_event_free_cb_function* free_cb = nullptr;
  void* free_user_data = nullptr;

  bool listening() const { return has_callback && !object_gone; }
  bool matches(const void* obj) const {
    return !object_gone && (type->bind == MPI_T_BIND_NO_OBJECT || object == obj);
  }
};

struct Registry {
  std::mutex control;
  std::atomic<int> num_sources{0};
  std::atomic<int> num_types{0};
  std::atomic<Source*> sources[kMaxSources] = {};
  std::atomic<EventType*> types[kMaxTypes] = {};
  std::unordered_map<std::string, int> source_names;  // control
  std::unordered_map<std::string, int> type_names;    // control
  std::unordered_set<Registration*> live;             // control: valid registration handles
  std::atomic<uint64_t> next_registration_id{1};
  std::atomic<long> queued{0};  // instances pending in all rings
};

Registry& registry();

inline Source* source_at(int index) {
  Registry& r = registry();
  if (index < 0 || index >= r.num_sources.load(std::memory_order_acquire)) return nullptr;
  return r.sources[index].load(std::memory_order_acquire);
}
inline EventType* type_at(int index) {
  Registry& r = registry();
  if (index < 0 || index >= r.num_types.load(std::memory_order_acquire)) return nullptr;
  return r.types[index].load(std::memory_order_acquire);
}

// ---- registration.cpp: lifecycle (call with control held) ----
void recompute_choice(Registration& reg);              // callbacks -> choice/has_callback
void update_listening(EventType& type, bool was, bool now);  // flags, with control held
void registrations_changed(EventType& type);  // with the source lock held: version, lax
Registration* find_registration(MPI_T_event_registration handle);  // control held; nullptr if invalid
// Run a free callback in the current context (no lock held) and delete the registration.
void run_free_callback(Registration* reg, MPI_T_cb_safety context);
// The MPI_T_event_handle_* / callback operations (validate the handle themselves).
int alloc_registration(EventType& type, const void* object, MPI_T_event_registration* out);
int check_registration(MPI_T_event_registration handle);
int set_callback(MPI_T_event_registration handle, int level, MPI_T_event_cb_function* function, void* user_data);
int set_dropped_handler(MPI_T_event_registration handle, MPI_T_event_dropped_cb_function* function);
int free_registration(MPI_T_event_registration handle, void* user_data, MPI_T_event_free_cb_function* free_cb);

// ---- delivery.cpp ----
// The calling thread's callback nesting: > 0 inside a user callback of this library.
int callback_depth();
MPI_T_cb_safety current_context();  // the innermost callback's context, else REQUIRE_NONE
// The instance being delivered on this thread with this handle, or nullptr.
struct InstanceView {
  EventType* type;
  const unsigned char* payload;
  MPI_Count timestamp;
};
const InstanceView* find_instance(MPI_T_event_instance handle);
// Call a free callback with the current context recorded as a callback context.
void invoke_free_callback(MPI_T_event_free_cb_function* cb, MPI_T_event_registration reg, void* user_data,
                          MPI_T_cb_safety context);

// ---- clock.cpp ----
MPI_Count clock_now();
MPI_Count clock_ticks_per_second();
MPI_Count clock_max_ticks();

// ---- ompi_bridge.cpp: what needs Open MPI internals ----
bool mpit_initialized();
bool mpi_usable();  // between MPI_Init and MPI_Finalize
int category_index();  // our category (registered/re-found now), or -1
// MPI_SUCCESS and whether cat_index is our category, or MPI_T_ERR_INVALID_INDEX.
int category_lookup(int cat_index, bool* ours);
int make_info(const std::vector<std::pair<std::string, std::string>>& keys, MPI_Info* out);
int element_enum(EventType& type, MPI_T_enum* out);

// Copy a string like MPI_T_pvar_get_info: *len in/out, truncation, NUL-terminated.
void copy_string(char* dest, int* len, const std::string& source);

}  // namespace mpimon::events

// Handle <-> object conversions.
inline MPI_T_event_registration to_handle(mpimon::events::Registration* reg) {
  return reinterpret_cast<MPI_T_event_registration>(reg);
}
inline mpimon::events::Registration* from_handle(MPI_T_event_registration handle) {
  return reinterpret_cast<mpimon::events::Registration*>(handle);
}
