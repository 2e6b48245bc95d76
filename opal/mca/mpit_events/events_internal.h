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
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
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

// Whether this library offers the MPI_T_event_* functions (api.cpp) and our MPI_T
// category: not on Open MPI 6.0, whose libmpi has its own (docs/open-mpi-6.md, "Events").
#ifndef MPIMON_EVENTS_PUBLIC_API
#define MPIMON_EVENTS_PUBLIC_API 1
#endif

// Pointers to the three callback types: the standard declares function types (as our
// mpit_events.h does), Open MPI 6.0's mpi.h declares pointer types.
using EventCallback = std::add_pointer_t<std::remove_pointer_t<MPI_T_event_cb_function>>;
using DroppedCallback = std::add_pointer_t<std::remove_pointer_t<MPI_T_event_dropped_cb_function>>;
using FreeCallback = std::add_pointer_t<std::remove_pointer_t<MPI_T_event_free_cb_function>>;

// The handles given to tools are these structs' addresses.
struct mpimon_mpit_event_registration;
struct mpimon_mpit_event_instance;

namespace mpimon::events {

inline constexpr std::size_t kMaxPayload = 64;      // bytes of one instance's payload
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
  EventCallback function = nullptr;
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
  const void* object;      // the bound object's handle value; nullptr for unbound types
  Registration* reg;       // nullptr: the end of the list
  EventCallback function;  // the lowest-level callback usable in the context, or nullptr
  void* user_data;
};

// Snapshot::single's entry when no registration qualifies: bound to an object no raise
// names (its own address), so that the inline path's comparison of the object rejects it
// without a test of its own.
extern MPIMON_EVENTS_HIDDEN const Delivery no_single;
static_assert(kLevels == 4, "Snapshot::single's and EventType::single's initialisers name every level");

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
  // instance can be stamped with rdtsc inline), else &no_single: the raise's shortest
  // path (raise_inline.h).
  const Delivery* single[kLevels] = {&no_single, &no_single, &no_single, &no_single};
  Snapshot* next_retired = nullptr;
};

// The object of a registration that receives the events of every object of its type's
// kind (the allocation hint mpimon_every_object): Delivery::object and
// Registration::object point here. Raised objects are never this address.
extern MPIMON_EVENTS_HIDDEN const char every_object;
inline bool matches(const Delivery& e, const void* object) { return e.object == object || e.object == &every_object; }

// One pending instance (payload copied), in a source's ring: raised while another
// thread delivered the source's instances, it waits for that thread to decide it.
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
  // Registrations that have had a backlog (Registration::backlog; they stay listed, empty
  // or not, until freed or their object is), and the instances in all backlogs; kWork
  // stays set while there are some, so that every raise of the source goes through the
  // lock and no registration receives an instance before older ones.
  std::vector<Registration*> backlogged;
  std::size_t backlog_count = 0;
  uint64_t decided = 0;  // instances put in delivery order so far (numbers backlog entries)
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
  // snapshot->single, mirrored (publish_snapshot stores it before the snapshot): the
  // inline raise reads one pointer instead of two. Read, like the snapshot, only with the
  // source's token held.
  std::atomic<const Delivery*> single[kLevels] = {&no_single, &no_single, &no_single, &no_single};
  // Guarded by control.
  std::map<uint64_t, Registration*> registrations;                      // live, object not freed, by id
  std::map<std::pair<const void*, uint64_t>, Registration*> by_object;  // the bound ones, by (object, id)
  int listening = 0;                                                    // registrations with >= 1 callback
  struct Watcher {
    unsigned char* flag;
    mpimon_events_changed_fn* changed;  // may be null
    void* arg;
  };
  std::vector<Watcher> watchers;
};

// An instance a registration waits for a laxer context to receive (timestamp final).
struct BacklogEntry {
  uint64_t sequence;  // its place in the source's delivery order
  MPI_Count timestamp;
  alignas(8) unsigned char payload[kMaxPayload];
};

// A registration's backlog: memory only for registrations that have waited (most never
// do); kept once allocated, so that a registration that waits at every event does not
// allocate at every event.
class Backlog {
 public:
  bool empty() const { return queue_ == nullptr || queue_->empty(); }
  std::size_t size() const { return queue_ == nullptr ? 0 : queue_->size(); }
  BacklogEntry& push() {  // throws bad_alloc
    if (queue_ == nullptr) queue_ = std::make_unique<std::deque<BacklogEntry>>();
    return queue_->emplace_back();
  }
  const BacklogEntry& front() const { return queue_->front(); }
  void pop() { queue_->pop_front(); }
  void clear() { queue_.reset(); }  // and its memory

 private:
  std::unique_ptr<std::deque<BacklogEntry>> queue_;
};

struct Registration {
  uint64_t id = 0;
  EventType* type = nullptr;
  const void* object = nullptr;  // bound object's handle value (bound types), or &every_object

  // Guarded by control.
  Callback callbacks[kLevels];
  bool object_gone = false;
  // Written with control and the source lock held: in the type's current snapshot.
  bool active = false;
  // Guarded by the source lock.
  DroppedCallback dropped_handler = nullptr;
  MPI_Count dropped = 0;
  bool drop_report = false;  // counted in source->state (see update_drop_report)
  FreeCallback free_cb = nullptr;
  void* free_user_data = nullptr;
  Registration* next_retired = nullptr;
  // Instances of its source's order that this registration could not receive in the
  // context they were delivered in (its callbacks are all at laxer levels), until a
  // context they accept (a drain, a laxer raise); bounded by kRingCapacity, beyond which
  // they are dropped for this registration only. Guarded by the source lock.
  Backlog backlog;
  bool backlog_listed = false;  // in its source's `backlogged`
  // The strictest context one of its callbacks accepts (its highest level with a
  // callback), -1 if none: its backlog can move only in contexts up to this.
  int strictest_context = -1;

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
// A snapshot of the type's registrations but those `left_out` says. Throws bad_alloc.
// O(registrations of the type).
Snapshot* build_snapshot(EventType& type, const std::function<bool(const Registration&)>& left_out = nullptr);
void destroy_snapshot(const Snapshot* snapshot);
// Make `next` the type's snapshot; the previous one is destroyed or retired.
void publish_snapshot(EventType& type, Snapshot* next);
// If a thread holds the source's token, flag work for it (kWork) and return true: it then
// disposes of what the caller adds to the retired lists. False: the token is free, and
// no delivery can read anything unpublished before this call.
bool defer_to_token_holder(Source& source);

// ---- delivery.cpp, for registration changes (source lock held) ----
// Empties reg's backlog; its instances count as dropped if `count_dropped`.
void discard_backlog_locked(Source& source, Registration& reg, bool count_dropped);

// ---- registration.cpp ----
void update_listening(EventType& type, bool was, bool now);  // flags, with control held
// Keeps reg.drop_report and the source's kDropReport count in line with reg's dropped
// count, handler and activity. Source lock held.
void update_drop_report(Source& source, Registration& reg);
Registration* find_registration(MPI_T_event_registration handle);  // control held; nullptr if invalid
// Removes reg from the type's lists (control held; no-op for one not listed).
void forget(EventType& type, const Registration& reg);
// Run a free callback in `context` (no lock held) and delete the registration.
void run_free_callback(Registration* reg, MPI_T_cb_safety context);
// The MPI_T_event_handle_* / callback operations (validate the handle themselves).
// `object`: the bound object's handle value, &every_object, or nullptr (unbound types).
int alloc_registration(EventType& type, const void* object, MPI_T_event_registration* out);
int check_registration(MPI_T_event_registration handle);
// MPI_SUCCESS and whether the registration is bound to every object, or INVALID_HANDLE.
int registration_binds_every_object(MPI_T_event_registration handle, bool* every);
int set_callback(MPI_T_event_registration handle, int level, EventCallback function, void* user_data);
int set_dropped_handler(MPI_T_event_registration handle, DroppedCallback function);
int free_registration(MPI_T_event_registration handle, void* user_data, FreeCallback free_cb);

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
void invoke_free_callback(FreeCallback cb, MPI_T_event_registration reg, void* user_data, MPI_T_cb_safety context);

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
int category_index();  // our category (registered/re-found now), or -1
// MPI_SUCCESS and whether cat_index is our category, or MPI_T_ERR_INVALID_INDEX.
int category_lookup(int cat_index, bool* ours);
int make_info(const std::vector<std::pair<std::string, std::string>>& keys, MPI_Info* out);
// Whether `info` (may be MPI_INFO_NULL) holds MPIMON_EVENTS_EVERY_OBJECT = "true".
int every_object_hint(MPI_Info info, bool* every);
int element_enum(EventType& type, MPI_T_enum* out);

// ---- mpi_objects.cpp: the objects handle allocations name ----
// A live communicator (MPI_T_BIND_MPI_COMM, not MPI_COMM_NULL) or window (MPI_T_BIND_MPI_WIN,
// not MPI_WIN_NULL), by Open MPI's tables; other kinds: any non-null object.
bool object_is_live(int bind, const void* object);
// The live object `obj_handle` names (the address of a variable holding its handle, or the
// handle itself), or nullptr; never faults. `accept_predefined_before_init`: also
// MPI_COMM_WORLD and MPI_COMM_SELF until MPI_Init completes (events raised during it).
const void* object_named(int bind, const void* obj_handle, bool accept_predefined_before_init);

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
