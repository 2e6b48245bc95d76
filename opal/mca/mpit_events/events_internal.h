// The events library's shared state: registry of sources and event types,
// registrations, their published snapshots, delivery. See mpit_events_producer.h for the
// contract and delivery.cpp for how a raise runs.
//
// Synchronisation (no lock is ever held while a user callback runs):
// - Registry::control (std::mutex): registry growth, names, registrations' lifecycle and
//   callbacks, snapshots' construction, listening flags. Control calls only.
// - Source::state (atomic word): the source's delivery token (one thread at a time
//   delivers the source's instances) and what its holder must look at before giving it
//   back (queued instances, retired objects, drops to report). The common raise takes
//   and returns the token with one CAS each and reads nothing but immutable data: the
//   type's current Snapshot. See delivery.cpp.
// - Source::lock (spin lock): the ring, drop counters, retired lists, snapshot
//   publication, and every change of state other than the common raise's two CASes.
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
#include <x86intrin.h>
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
// Internal globals of the shared library: reached PC-relative, without a GOT load.
#define MPIMON_EVENTS_HIDDEN __attribute__((visibility("hidden")))

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

struct Callback {
  MPI_T_event_cb_function* function = nullptr;
  void* user_data = nullptr;
};

// ---- Snapshots (snapshot.cpp) ----
// What a delivery reads of a type's registrations: the live ones that have a callback
// and whose object is not freed, in id order, with the callback to invoke in each
// context precomputed. Immutable once published; a change of registrations or callbacks
// publishes a new one (copy-on-write under control + source lock) and retires the old
// one, which is destroyed only when no delivery can still read it.

// One registration as seen by instances raised in one context.
struct Delivery {
  const void* object;                 // the bound object's handle value; nullptr for unbound types
  Registration* reg;                  // nullptr: the end of the list
  MPI_T_event_cb_function* function;  // the lowest-level callback usable in the context, or nullptr
  void* user_data;
};

struct Snapshot {
  EventType* type = nullptr;
  std::size_t count = 0;
  // list[c]: the registrations for context c, id order, ended by a Delivery with reg nullptr.
  const Delivery* list[kLevels] = {};
  // direct[c]: list[c] if it is not empty and every registration has a callback usable
  // in context c, else nullptr: an instance raised in c may have to wait in the ring (or
  // be dropped) for one of them, so the raise takes the slow path (which also serves the
  // rare raise of a type nobody listens to).
  const Delivery* direct[kLevels] = {};
  // single[c]: list[c] if it holds exactly one registration, that one has a callback
  // usable in context c, the source is ORDERED and the clock the TSC (so that the
  // instance can be stamped with rdtsc inline), else nullptr: the raise's shortest path
  // (raise_inline.h).
  const Delivery* single[kLevels] = {};
  Snapshot* next_retired = nullptr;
};

// One pending instance (payload copied).
struct QueuedInstance {
  EventType* type;
  const void* object;
  MPI_Count timestamp;
  uint64_t horizon;  // only registrations with id <= horizon existed when it was raised
  alignas(8) unsigned char payload[kMaxPayload];
};

// Source::state: the delivery token and what its holder must look at before releasing it.
inline constexpr uint32_t kDelivering = 1;  // a thread holds the token
// The ring is not empty, or objects were retired while the token was held.
inline constexpr uint32_t kWork = 2;
// One unit per registration whose dropped handler must be called before its next event.
inline constexpr uint32_t kDropReport = 4;

struct Source {
  int index = -1;
  std::string name;
  std::string description;
  MPI_T_source_order ordering = MPI_T_SOURCE_ORDERED;
  bool ordered = true;  // ordering == MPI_T_SOURCE_ORDERED
  bool timestamps_on_demand = true;

  // 0: idle, nothing queued, nothing to report: a raise may deliver directly.
  std::atomic<uint32_t> state{0};
  // Guarded by the token: ORDERED: the last timestamp delivered.
  MPI_Count last_timestamp = 0;

  // Guarded by lock.
  SpinLock lock;
  std::unique_ptr<QueuedInstance[]> ring;  // kRingCapacity slots
  std::size_t ring_head = 0;
  std::size_t ring_count = 0;
  // Retired while the token was held: the holder disposes of them before releasing it.
  Snapshot* retired_snapshots = nullptr;
  Registration* retired_registrations = nullptr;  // freed handles: free_cb, then delete
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
  // Raised objects are masked with it: 0 for unbound types (whose entries hold nullptr).
  uintptr_t object_mask = ~uintptr_t{0};

  // Never null. Published under control + source lock; read by deliverers.
  std::atomic<const Snapshot*> snapshot{nullptr};
  // Guarded by control.
  std::vector<Registration*> registrations;  // live, object not freed, id order
  int listening = 0;                          // registrations with >= 1 callback
  struct Watcher {
    unsigned char* flag;
    mpimon_events_changed_fn* changed;  // may be null
    void* arg;
  };
  std::vector<Watcher> watchers;
};

struct Registration {
  uint64_t id = 0;
  EventType* type = nullptr;
  const void* object = nullptr;  // bound object's handle value (bound types)

  // Guarded by control.
  Callback callbacks[kLevels];
  bool object_gone = false;
  // Written with control and the source lock held: in the type's current snapshot.
  bool active = false;
  // Guarded by the source lock.
  MPI_T_event_dropped_cb_function* dropped_handler = nullptr;
  MPI_Count dropped = 0;
  bool drop_report = false;  // counted in source->state (see update_drop_report)
  MPI_T_event_free_cb_function* free_cb = nullptr;
  void* free_user_data = nullptr;
  Registration* next_retired = nullptr;

  bool has_callback() const {
    for (const Callback& cb : callbacks)
      if (cb.function != nullptr) return true;
    return false;
  }
  bool listening() const { return has_callback() && !object_gone; }
};

// Control-side registry (names, live handles). Function-local: producers may register
// from their own static initialisers.
struct Registry {
  std::mutex control;
  std::unordered_map<std::string, int> source_names;  // control
  std::unordered_map<std::string, int> type_names;    // control
  std::unordered_set<Registration*> live;             // control: valid registration handles
};
Registry& registry();

// What the raise path reads: constant-initialised globals (no initialisation guard).
struct Tables {
  std::atomic<EventType*> types[kMaxTypes] = {};  // first: indexed with no offset
  std::atomic<int> num_sources{0};
  std::atomic<int> num_types{0};
  std::atomic<Source*> sources[kMaxSources] = {};
  std::atomic<uint64_t> next_registration_id{1};
  std::atomic<long> queued{0};  // instances pending in all rings
};
extern MPIMON_EVENTS_HIDDEN Tables tables;

inline Source* source_at(int index) {
  if (index < 0 || index >= tables.num_sources.load(std::memory_order_acquire)) return nullptr;
  return tables.sources[index].load(std::memory_order_acquire);
}
inline EventType* type_at(int index) {
  if (index < 0 || index >= tables.num_types.load(std::memory_order_acquire)) return nullptr;
  return tables.types[index].load(std::memory_order_acquire);
}

// ---- snapshot.cpp (control held; publish/retire with the source lock held too) ----
// A snapshot of `regs` (the type's prospective registration list). Throws bad_alloc.
Snapshot* build_snapshot(EventType& type, const std::vector<Registration*>& regs);
void destroy_snapshot(const Snapshot* snapshot);
// Make `next` the type's snapshot; the previous one is destroyed or retired.
void publish_snapshot(EventType& type, Snapshot* next);
// If a thread holds the source's token, flag work for it (kWork) and return true: it then
// disposes of what the caller adds to the retired lists. False: the token is free, and
// no delivery can read anything unpublished before this call.
bool defer_to_token_holder(Source& source);

// ---- registration.cpp ----
void update_listening(EventType& type, bool was, bool now);  // flags, with control held
// Keeps reg.drop_report and the source's kDropReport count in line with reg's dropped
// count, handler and activity. Source lock held.
void update_drop_report(Source& source, Registration& reg);
Registration* find_registration(MPI_T_event_registration handle);  // control held; nullptr if invalid
// Run a free callback in `context` (no lock held) and delete the registration.
void run_free_callback(Registration* reg, MPI_T_cb_safety context);
// The MPI_T_event_handle_* / callback operations (validate the handle themselves).
int alloc_registration(EventType& type, const void* object, MPI_T_event_registration* out);
int check_registration(MPI_T_event_registration handle);
int set_callback(MPI_T_event_registration handle, int level, MPI_T_event_cb_function* function, void* user_data);
int set_dropped_handler(MPI_T_event_registration handle, MPI_T_event_dropped_cb_function* function);
int free_registration(MPI_T_event_registration handle, void* user_data, MPI_T_event_free_cb_function* free_cb);

// ---- delivery.cpp ----
// The instance a callback receives (its MPI_T_event_instance is its Frame's address).
struct InstanceView {
  EventType* type;  // nullptr: a frame without instance (dropped handler, free callback)
  const unsigned char* payload;
  MPI_Count timestamp;
};
// One user callback running on this thread; innermost first.
struct Frame {
  InstanceView view;
  Frame* outer;
  MPI_T_cb_safety context;
};
// constinit: no TLS wrapper call, in any translation unit.
extern MPIMON_EVENTS_TLS constinit thread_local Frame* tls_frame;

inline bool in_callback() { return tls_frame != nullptr; }
// The innermost callback's context, else REQUIRE_NONE.
inline MPI_T_cb_safety current_context() { return tls_frame != nullptr ? tls_frame->context : MPI_T_CB_REQUIRE_NONE; }
// The instance being delivered on this thread with this handle, or nullptr.
const InstanceView* find_instance(MPI_T_event_instance handle);
// Call a free callback with `context` recorded as the current callback context.
void invoke_free_callback(MPI_T_event_free_cb_function* cb, MPI_T_event_registration reg, void* user_data,
                          MPI_T_cb_safety context);

// ---- clock.cpp ----
enum ClockKind : int { kClockUnknown = 0, kClockTsc = 1, kClockMonotonic = 2 };
extern MPIMON_EVENTS_HIDDEN std::atomic<int> clock_kind;  // constant-initialised
MPIMON_EVENTS_HIDDEN MPI_Count clock_now();
bool clock_is_tsc();  // decides the clock if not yet done
MPI_Count clock_ticks_per_second();
MPI_Count clock_max_ticks();
// clock_now() with the common case inline (the raise path stamps MPIMON_EVENTS_NOW).
inline MPI_Count clock_read() {
#if defined(__x86_64__)
  if (__builtin_expect(clock_kind.load(std::memory_order_relaxed) == kClockTsc, 1))
    return static_cast<MPI_Count>(__rdtsc());
#endif
  return clock_now();
}

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
