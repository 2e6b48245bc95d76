// The wrappers put into each window's module, and the table that finds a window's state.
//
// What is recorded, at the origin only, when the forwarded call returned OMPI_SUCCESS
// (an error is returned unchanged and records nothing). D(count, type) = count × the
// type's packed size; the peer is the target's MPI_COMM_WORLD rank (self included).
//
//   operation                          osc_sent (S)              osc_recv (R)
//   put, rput                          D(origin)                 -
//   accumulate, raccumulate            D(origin)                 -
//   get, rget                          -                         D(origin)
//   get_accumulate, rget_accumulate    D(origin) unless MPI_NO_OP D(result)
//   fetch_and_op                       D(1, type) unless MPI_NO_OP D(1, type)
//   compare_and_swap                   D(1, type)                D(1, type)
//
// MPI_NO_OP moves no origin data (the call is an atomic read), so nothing is sent.
// Synchronisation calls (fence, start, complete, post, wait, test, lock, unlock,
// lock_all, unlock_all, sync, flush, flush_all, flush_local, flush_local_all) are timed:
// one call and the ticks spent inside the forwarded call, whatever it returned.
// shared_query, attach and detach are forwarded untouched; free forwards, then forgets
// the window (its times stay in the window_sync registry under its name).
#include "osc_monitoring.h"
#include "osc_monitoring_events.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/engine.h"
#include "runtime/runtime.h"
#include "wait_states/window_tracker.h"
#include "analyses/window_sync.h"

// ompi/op/op.h cannot be included (it needs an uninstalled header): the one predefined
// operation we compare against, by address.
extern "C" {
struct ompi_predefined_op_t;
extern struct ompi_predefined_op_t ompi_mpi_op_no_op;
}

namespace mpimon::osc {
namespace {

// The counters of the peers a window last sent to / received from, one entry per
// target rank modulo kPeerCacheSize (single-threaded processes only): counter blocks
// never move, so the hot path can increment them directly. Targets and counters are in
// separate arrays so that both are indexed by a scaled register (no multiplication).
inline constexpr int kPeerCacheSize = 8;
struct PeerCache {
  int32_t targets[kPeerCacheSize];  // rank in the window's group; -1: empty
  Counters* counters[kPeerCacheSize];
  void clear() {
    for (int i = 0; i < kPeerCacheSize; ++i) {
      targets[i] = -1;
      counters[i] = nullptr;
    }
  }
};

// One monitored window. States are never freed: a freed window's state is recycled, so
// a pointer read from the cache or the table always points to a valid object (its `win`
// then no longer matches).
struct WindowState {
  std::atomic<const ompi_win_t*> win{nullptr};  // nullptr: not in use
  ompi_osc_base_module_t original{};            // the component's functions
  WindowSyncTimes sync;                         // registered in window_sync() while live
  uint64_t sync_start = 0;  // clock at the start of the current synchronisation call (single-threaded)
  PeerCache peers[2];                           // [0] osc_sent, [1] osc_recv
  const ompi_group_t* group = nullptr;          // the window's group (target ranks)
  bool world_order = false;                     // group rank == world rank
  uint64_t sync_id = 0;
  int number = 0;  // n of the default name "window <n>"
  // The name the component gave the window when it created it (osc/rdma names its
  // windows "rdma window <communicator id>"): not the user's, so not shown.
  std::string component_name;
  // Wait states (osc_monitoring_wait_states 1); nullptr when off or not set up.
  std::unique_ptr<wait_states::WindowTracker> tracker;

  PeerCache& peer_cache(Category category) { return peers[category == Category::osc_recv]; }
};

// win -> state: open addressing, lock-free lookups. Inserts and removals take a mutex;
// a removed entry becomes a tombstone; a full table is replaced and the old one retired
// (never freed: a concurrent lookup may still read it).
class WindowTable {
 public:
  WindowTable() { table_.store(install(16), std::memory_order_release); }

  WindowState* find(const ompi_win_t* win) const {
    const Table* t = table_.load(std::memory_order_acquire);
    for (size_t i = hash(win, t->shift);; i = (i + 1) & t->mask) {
      WindowState* s = t->slots[i].load(std::memory_order_acquire);
      if (s == nullptr) return nullptr;
      if (s->win.load(std::memory_order_relaxed) == win) return s;
    }
  }

  // A recycled or new state, not yet visible.
  WindowState* acquire() {
    std::lock_guard lock(mutex_);
    if (!spare_.empty()) {
      WindowState* s = spare_.back();
      spare_.pop_back();
      return s;
    }
    states_.push_back(std::make_unique<WindowState>());
    return states_.back().get();
  }

  // Publishes `s` for `win` (all its other fields set).
  void insert(WindowState* s, const ompi_win_t* win) {
    std::lock_guard lock(mutex_);
    s->win.store(win, std::memory_order_release);
    Table* t = table_.load(std::memory_order_relaxed);
    if ((t->used + 1) * 2 > t->mask + 1) t = rebuild(live_ + 1);
    place(t, s);
    ++t->used;
    ++live_;
  }

  void remove(WindowState* s) {
    std::lock_guard lock(mutex_);
    Table* t = table_.load(std::memory_order_relaxed);
    const ompi_win_t* win = s->win.load(std::memory_order_relaxed);
    for (size_t i = hash(win, t->shift);; i = (i + 1) & t->mask) {
      WindowState* slot = t->slots[i].load(std::memory_order_relaxed);
      if (slot == nullptr) break;
      if (slot == s) {
        t->slots[i].store(&tombstone_, std::memory_order_release);
        break;
      }
    }
    s->win.store(nullptr, std::memory_order_release);
    --live_;
    spare_.push_back(s);
  }

  template <typename Visit>
  void for_each_live(Visit&& visit) const {
    std::lock_guard lock(mutex_);
    for (const auto& s : states_) {
      const ompi_win_t* win = s->win.load(std::memory_order_acquire);
      if (win != nullptr) visit(*s, win);
    }
  }

 private:
  struct Table {
    size_t mask = 0;
    unsigned shift = 0;  // 64 - log2(capacity)
    size_t used = 0;     // live entries and tombstones
    std::unique_ptr<std::atomic<WindowState*>[]> slots;
  };
  static size_t hash(const ompi_win_t* win, unsigned shift) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(win) * 0x9E3779B97F4A7C15ull) >> shift);
  }
  static void place(Table* t, WindowState* s) {
    for (size_t i = hash(s->win.load(std::memory_order_relaxed), t->shift);; i = (i + 1) & t->mask) {
      WindowState* slot = t->slots[i].load(std::memory_order_relaxed);
      if (slot == nullptr) {
        t->slots[i].store(s, std::memory_order_release);
        return;
      }
    }
  }
  Table* install(size_t capacity) {
    auto t = std::make_unique<Table>();
    t->mask = capacity - 1;
    t->shift = 64 - static_cast<unsigned>(std::bit_width(capacity) - 1);
    t->slots = std::make_unique<std::atomic<WindowState*>[]>(capacity);
    for (size_t i = 0; i < capacity; ++i) t->slots[i].store(nullptr, std::memory_order_relaxed);
    Table* raw = t.get();
    tables_.push_back(std::move(t));
    return raw;
  }
  // A table for `live` entries at load factor <= 1/4, holding every live state.
  Table* rebuild(size_t live) {
    size_t capacity = 16;
    while (capacity < live * 4) capacity *= 2;
    Table* t = install(capacity);
    for (const auto& s : states_) {
      if (s->win.load(std::memory_order_relaxed) == nullptr) continue;
      place(t, s.get());
      ++t->used;
    }
    table_.store(t, std::memory_order_release);
    return t;
  }

  mutable std::mutex mutex_;
  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // the current one last; older ones retired
  std::vector<std::unique_ptr<WindowState>> states_;
  std::vector<WindowState*> spare_;
  size_t live_ = 0;
  WindowState tombstone_;  // win == nullptr: never matches, probing goes on
};

// Everything the hot path reads, in one object.
struct Hot {
  std::atomic<WindowState*> last{nullptr};  // the state found last (a one-entry cache)
  Engine* engine = nullptr;
  LocalJob job;
};
Hot hot;
WindowState no_window;  // the cache's initial value: matches no window
WindowTable* windows = nullptr;

// The state of `win`, through the table; caches it. nullptr only if our wrappers are
// called for a window we never wrapped (cannot happen: only wrapped modules point to
// them).
[[gnu::noinline]] WindowState* find_state(const ompi_win_t* win) {
  WindowState* s = hot.last.load(std::memory_order_relaxed);
  if (s->win.load(std::memory_order_relaxed) == win) return s;
  s = windows->find(win);
  if (s != nullptr) hot.last.store(s, std::memory_order_relaxed);
  return s;
}


inline void add_message(Counters& c, uint64_t bytes) {
  single_writer_add(c.messages, 1);
  single_writer_add(c.bytes, bytes);
  single_writer_add(c.histogram[message_bucket(bytes)], 1);
}

// Any case: through the engine (atomic increments when threaded, other jobs totalled
// apart). In a single-threaded process, also remembers the peer's counters for the hot
// path.
template <bool threaded>
void record(WindowState& s, int target, Category category, uint64_t bytes) {
  int32_t peer = target;
  if (!s.world_order) {
    peer = world_rank_in_group(s.group, target, hot.job);
    if (peer < 0) {
      hot.engine->record_other_job(category, bytes);
      return;
    }
  }
  if constexpr (threaded) {
    hot.engine->record(peer, category, bytes);
  } else {
    Counters& c = hot.engine->counters().find_or_insert(Engine::key(peer, category));
    PeerCache& cache = s.peer_cache(category);
    cache.targets[target & (kPeerCacheSize - 1)] = target;
    cache.counters[target & (kPeerCacheSize - 1)] = &c;
    add_message(c, bytes);
  }
}

inline uint64_t data_bytes(int count, const ompi_datatype_t* type) {
  return static_cast<uint64_t>(count) * type->super.size;
}

inline bool is_no_op(const struct ompi_op_t* op) {
  return op == reinterpret_cast<const struct ompi_op_t*>(&ompi_mpi_op_no_op);
}

constexpr int kNoWindow = OMPI_ERR_NOT_FOUND;

using Module = ompi_osc_base_module_t;

// Whether two slot member pointers (of possibly different types) are the same slot.
template <auto a, auto b>
constexpr bool same_slot() {
  if constexpr (std::is_same_v<decltype(a), decltype(b)>) return a == b;
  else return false;
}

// Which MPI_T event kind a data slot is (communication_events.h).
template <auto slot>
constexpr int op_kind() {
  using M = ompi_osc_base_module_t;
  if constexpr (same_slot<slot, &M::osc_put>()) return MPIMON_OSC_OP_put;
  else if constexpr (same_slot<slot, &M::osc_rput>()) return MPIMON_OSC_OP_rput;
  else if constexpr (same_slot<slot, &M::osc_get>()) return MPIMON_OSC_OP_get;
  else if constexpr (same_slot<slot, &M::osc_rget>()) return MPIMON_OSC_OP_rget;
  else if constexpr (same_slot<slot, &M::osc_accumulate>()) return MPIMON_OSC_OP_accumulate;
  else if constexpr (same_slot<slot, &M::osc_raccumulate>()) return MPIMON_OSC_OP_raccumulate;
  else if constexpr (same_slot<slot, &M::osc_get_accumulate>()) return MPIMON_OSC_OP_get_accumulate;
  else if constexpr (same_slot<slot, &M::osc_rget_accumulate>()) return MPIMON_OSC_OP_rget_accumulate;
  else if constexpr (same_slot<slot, &M::osc_fetch_and_op>()) return MPIMON_OSC_OP_fetch_and_op;
  else return MPIMON_OSC_OP_compare_and_swap;
}

// The target argument of the synchronisation calls that have one (window rank), else -1.
template <SyncKind kind, typename... Args>
int sync_target(Args... args) {
  auto a = std::forward_as_tuple(args...);
  if constexpr (kind == SyncKind::lock) return std::get<1>(a);  // (lock_type, target, assert, win)
  else if constexpr (kind == SyncKind::unlock || kind == SyncKind::flush || kind == SyncKind::flush_local)
    return std::get<0>(a);  // (target, win)
  else return -1;
}

// The window among a synchronisation call's arguments (last, except for MPI_Win_test).
template <typename First, typename... Rest>
const ompi_win_t* window_argument(First first, Rest... rest) {
  if constexpr (std::is_same_v<First, ompi_win_t*>) return first;
  else return window_argument(rest...);
}

// World rank of a target (window group rank), -1 for another job's process.
inline int32_t world_of(const WindowState& s, int target) {
  return s.world_order ? target : world_rank_in_group(s.group, target, hot.job);
}

// The wrappers for one kind of process (threaded: MPI_THREAD_MULTIPLE), clock (tsc: the
// time-stamp counter, else steady_clock), whether synchronisation calls are timed
// (osc_monitoring_sync_timing; untimed synchronisation wrappers exist for the events)
// and whether wait states are detected (osc_monitoring_wait_states: every call then
// also feeds the window's tracker; single-threaded processes only, timing on).
//
// Hot paths: each frequent wrapper (put, get, accumulate and their request forms, every
// synchronisation call) is a fast twin that handles the common case without saving a
// register it does not need (the cached window, the cached peer counters) and otherwise
// tail-calls its slow twin (same signature), which handles every case.
template <bool threaded, bool tsc, bool timing, bool waits = false>
struct Wrappers {
  static uint64_t now() { return tsc ? SyncClock::tsc_now() : SyncClock::steady_now(); }

  // --- communication -------------------------------------------------------------------
  // One operation moving `bytes` of `category` data with target `target`.
  template <Category category, auto slot, auto slow, typename... Args>
  [[gnu::always_inline]] static int data_fast(ompi_win_t* win, int target, uint64_t bytes, Args... args) {
    if constexpr (!threaded && !waits) {
      // Computed first: one value to keep across the call instead of the datatype, and no
      // register freed for it after the tests.
      asm("" : "+r"(bytes));
      WindowState* s = hot.last.load(std::memory_order_relaxed);
      if (s->win.load(std::memory_order_relaxed) == win) [[likely]] {
        const PeerCache& cache = s->peer_cache(category);
        const unsigned i = static_cast<unsigned>(target) & (kPeerCacheSize - 1);
        // A tool listening to operation events: the slow twin raises them.
        if (cache.targets[i] == target && !op_events_listened()) [[likely]] {
          Counters* c = cache.counters[i];
          const int rc = (s->original.*slot)(args...);
          if (rc == OMPI_SUCCESS) [[likely]] add_message(*c, bytes);
          return rc;
        }
      }
    }
    return slow(args...);
  }
  // The operation-issued event of a put/get/accumulate (and request forms).
  template <Category category, auto slot>
  [[gnu::noinline]] static void op_event(const WindowState& s, const ompi_win_t* win, int target, uint64_t bytes) {
    raise_op(win, op_kind<slot>(), world_of(s, target), target, category == Category::osc_sent ? bytes : 0,
             category == Category::osc_recv ? bytes : 0);
  }
  // The component's operation; with wait states, timed for the window's tracker.
  template <auto slot, typename... Args>
  static int forward_op(WindowState& s, int target, Args... args) {
    if constexpr (waits) {
      if (s.tracker != nullptr) {
        const wait_states::Nanos enter = s.tracker->now();
        const int rc = (s.original.*slot)(args...);
        s.tracker->operation(target, enter, s.tracker->now());
        return rc;
      }
    }
    return (s.original.*slot)(args...);
  }
  template <Category category, auto slot, typename... Args>
  static int data_slow(ompi_win_t* win, int target, uint64_t bytes, Args... args) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    const int rc = forward_op<slot>(*s, target, args...);
    if (rc == OMPI_SUCCESS) {
      record<threaded>(*s, target, category, bytes);
      if (op_events_listened()) [[unlikely]] op_event<category, slot>(*s, win, target, bytes);
    }
    return rc;
  }

  static int put(const void* origin, int origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                 int target_count, ompi_datatype_t* target_type, ompi_win_t* win) {
    return data_fast<Category::osc_sent, &Module::osc_put, put_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, win);
  }
  [[gnu::noinline]] static int put_slow(const void* origin, int origin_count, ompi_datatype_t* origin_type,
                                        int target, ptrdiff_t disp, int target_count, ompi_datatype_t* target_type,
                                        ompi_win_t* win) {
    return data_slow<Category::osc_sent, &Module::osc_put>(win, target, data_bytes(origin_count, origin_type),
                                                           origin, origin_count, origin_type, target, disp,
                                                           target_count, target_type, win);
  }
  static int rput(const void* origin, int origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                  int target_count, ompi_datatype_t* target_type, ompi_win_t* win, ompi_request_t** request) {
    return data_fast<Category::osc_sent, &Module::osc_rput, rput_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, win, request);
  }
  [[gnu::noinline]] static int rput_slow(const void* origin, int origin_count, ompi_datatype_t* origin_type,
                                         int target, ptrdiff_t disp, int target_count, ompi_datatype_t* target_type,
                                         ompi_win_t* win, ompi_request_t** request) {
    return data_slow<Category::osc_sent, &Module::osc_rput>(win, target, data_bytes(origin_count, origin_type),
                                                            origin, origin_count, origin_type, target, disp,
                                                            target_count, target_type, win, request);
  }
  static int get(void* origin, int origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                 int target_count, ompi_datatype_t* target_type, ompi_win_t* win) {
    return data_fast<Category::osc_recv, &Module::osc_get, get_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, win);
  }
  [[gnu::noinline]] static int get_slow(void* origin, int origin_count, ompi_datatype_t* origin_type, int target,
                                        ptrdiff_t disp, int target_count, ompi_datatype_t* target_type,
                                        ompi_win_t* win) {
    return data_slow<Category::osc_recv, &Module::osc_get>(win, target, data_bytes(origin_count, origin_type),
                                                           origin, origin_count, origin_type, target, disp,
                                                           target_count, target_type, win);
  }
  static int rget(void* origin, int origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                  int target_count, ompi_datatype_t* target_type, ompi_win_t* win, ompi_request_t** request) {
    return data_fast<Category::osc_recv, &Module::osc_rget, rget_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, win, request);
  }
  [[gnu::noinline]] static int rget_slow(void* origin, int origin_count, ompi_datatype_t* origin_type, int target,
                                         ptrdiff_t disp, int target_count, ompi_datatype_t* target_type,
                                         ompi_win_t* win, ompi_request_t** request) {
    return data_slow<Category::osc_recv, &Module::osc_rget>(win, target, data_bytes(origin_count, origin_type),
                                                            origin, origin_count, origin_type, target, disp,
                                                            target_count, target_type, win, request);
  }
  static int accumulate(const void* origin, int origin_count, ompi_datatype_t* origin_type, int target,
                        ptrdiff_t disp, int target_count, ompi_datatype_t* target_type, struct ompi_op_t* op,
                        ompi_win_t* win) {
    return data_fast<Category::osc_sent, &Module::osc_accumulate, accumulate_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, op, win);
  }
  [[gnu::noinline]] static int accumulate_slow(const void* origin, int origin_count, ompi_datatype_t* origin_type,
                                               int target, ptrdiff_t disp, int target_count,
                                               ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win) {
    return data_slow<Category::osc_sent, &Module::osc_accumulate>(win, target, data_bytes(origin_count, origin_type),
                                                                  origin, origin_count, origin_type, target, disp,
                                                                  target_count, target_type, op, win);
  }
  static int raccumulate(const void* origin, int origin_count, ompi_datatype_t* origin_type, int target,
                         ptrdiff_t disp, int target_count, ompi_datatype_t* target_type, struct ompi_op_t* op,
                         ompi_win_t* win, ompi_request_t** request) {
    return data_fast<Category::osc_sent, &Module::osc_raccumulate, raccumulate_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, op, win, request);
  }
  [[gnu::noinline]] static int raccumulate_slow(const void* origin, int origin_count, ompi_datatype_t* origin_type,
                                                int target, ptrdiff_t disp, int target_count,
                                                ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win,
                                                ompi_request_t** request) {
    return data_slow<Category::osc_sent, &Module::osc_raccumulate>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, op, win, request);
  }

  // Fetching operations: sent data (none for MPI_NO_OP) and received result.
  template <auto slot>
  static void record_fetching(WindowState& s, ompi_win_t* win, int target, uint64_t sent, uint64_t received,
                              const struct ompi_op_t* op) {
    if (is_no_op(op)) {
      sent = 0;
    } else {
      record<threaded>(s, target, Category::osc_sent, sent);
    }
    record<threaded>(s, target, Category::osc_recv, received);
    if (op_events_listened()) [[unlikely]] raise_op(win, op_kind<slot>(), world_of(s, target), target, sent, received);
  }
  static int get_accumulate(const void* origin, int origin_count, ompi_datatype_t* origin_type, void* result,
                            int result_count, ompi_datatype_t* result_type, int target, ptrdiff_t disp,
                            int target_count, ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    const int rc = forward_op<&Module::osc_get_accumulate>(*s, target, origin, origin_count, origin_type, result,
                                                           result_count, result_type, target, disp, target_count,
                                                           target_type, op, win);
    if (rc == OMPI_SUCCESS)
      record_fetching<&Module::osc_get_accumulate>(*s, win, target, data_bytes(origin_count, origin_type), data_bytes(result_count, result_type), op);
    return rc;
  }
  static int rget_accumulate(const void* origin, int origin_count, ompi_datatype_t* origin_type, void* result,
                             int result_count, ompi_datatype_t* result_type, int target, ptrdiff_t disp,
                             int target_count, ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win,
                             ompi_request_t** request) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    const int rc = forward_op<&Module::osc_rget_accumulate>(*s, target, origin, origin_count, origin_type, result,
                                                            result_count, result_type, target, disp, target_count,
                                                            target_type, op, win, request);
    if (rc == OMPI_SUCCESS)
      record_fetching<&Module::osc_rget_accumulate>(*s, win, target, data_bytes(origin_count, origin_type), data_bytes(result_count, result_type), op);
    return rc;
  }
  static int fetch_and_op(const void* origin, void* result, ompi_datatype_t* type, int target, ptrdiff_t disp,
                          struct ompi_op_t* op, ompi_win_t* win) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    const int rc = forward_op<&Module::osc_fetch_and_op>(*s, target, origin, result, type, target, disp, op, win);
    if (rc == OMPI_SUCCESS) record_fetching<&Module::osc_fetch_and_op>(*s, win, target, type->super.size, type->super.size, op);
    return rc;
  }
  static int compare_and_swap(const void* origin, const void* compare, void* result, ompi_datatype_t* type,
                              int target, ptrdiff_t disp, ompi_win_t* win) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    const int rc =
        forward_op<&Module::osc_compare_and_swap>(*s, target, origin, compare, result, type, target, disp, win);
    if (rc == OMPI_SUCCESS) {
      record<threaded>(*s, target, Category::osc_sent, type->super.size);
      record<threaded>(*s, target, Category::osc_recv, type->super.size);
      if (op_events_listened()) [[unlikely]]
        raise_op(win, MPIMON_OSC_OP_compare_and_swap, world_of(*s, target), target, type->super.size,
                 type->super.size);
    }
    return rc;
  }

  // --- synchronisation: timed ----------------------------------------------------------
  template <SyncKind kind, auto slot, typename... Args>
  [[gnu::always_inline]] static int timed_call(WindowState& s, Args... args) {
    if constexpr (waits) return with_wait_states<kind, slot>(s, args...);
    return timed_body<kind, slot>(s, args...);
  }
  // The window's tracker sees the call's entry and exit around the real call. The call's
  // time (and its events) cover the tracker's work too: it is time the application spent
  // in the call (e.g. osc pt2pt's MPI_Win_complete waiting for a late post partly inside
  // the tracker's exchange).
  template <SyncKind kind, auto slot, typename... Args>
  [[gnu::noinline]] static int with_wait_states(WindowState& s, Args... args) {
    wait_states::WindowTracker* t = s.tracker.get();
    if (t == nullptr) return timed_body<kind, slot>(s, args...);
    auto a = std::forward_as_tuple(args...);
    using K = SyncKind;
    const bool events = sync_events_listened();
    const ompi_win_t* win = window_argument(args...);
    if (events) raise_sync_begin(win, static_cast<int>(kind), sync_target<kind>(args...));
    const uint64_t start = now();
    if constexpr (kind == K::fence) t->before_fence();
    else if constexpr (kind == K::start) t->before_start();
    else if constexpr (kind == K::complete) t->before_complete();
    else if constexpr (kind == K::post) t->before_post(std::get<0>(a), std::get<1>(a));
    else if constexpr (kind == K::wait) t->before_wait();
    else if constexpr (kind == K::test) t->before_test();
    else if constexpr (kind == K::lock) t->before_lock();
    else if constexpr (kind == K::unlock) t->before_unlock(std::get<0>(a));
    const int rc = (s.original.*slot)(args...);
    if constexpr (kind == K::fence) t->after_fence(rc);
    else if constexpr (kind == K::start) t->after_start(std::get<0>(a), std::get<1>(a), rc);
    else if constexpr (kind == K::complete) t->after_complete(rc);
    else if constexpr (kind == K::post) t->after_post(rc);
    else if constexpr (kind == K::wait) t->after_wait(rc);
    else if constexpr (kind == K::test) t->after_test(rc, *std::get<1>(a) != 0);
    else if constexpr (kind == K::lock) t->after_lock(std::get<0>(a), std::get<1>(a), std::get<2>(a), rc);
    else if constexpr (kind == K::unlock) t->after_unlock(std::get<0>(a), rc);
    else if constexpr (kind == K::lock_all) t->after_lock_all(rc);
    else if constexpr (kind == K::unlock_all) t->after_unlock_all(rc);
    s.sync[kind].template add<false>(now() - start);
    if (events) raise_sync_end(win, static_cast<int>(kind), sync_target<kind>(args...), rc);
    return rc;
  }
  template <SyncKind kind, auto slot, typename... Args>
  [[gnu::always_inline]] static int timed_body(WindowState& s, Args... args) {
    if (sync_events_listened()) [[unlikely]] return sync_with_events<kind, slot>(s, args...);
    if constexpr (!timing) {
      return (s.original.*slot)(args...);
    } else if constexpr (threaded) {
      const uint64_t start = now();
      const int rc = (s.original.*slot)(args...);
      s.sync[kind].template add<true>(now() - start);
      return rc;
    } else {
      // The start is kept in the window's state rather than in a saved register: one
      // register less to save on the hot path (single-threaded: no concurrent call).
      s.sync_start = now();
      const int rc = (s.original.*slot)(args...);
      s.sync[kind].template add<false>(now() - s.sync_start);
      return rc;
    }
  }
  // A tool listens: begin event, the call (timed if timing is on), end event.
  template <SyncKind kind, auto slot, typename... Args>
  [[gnu::noinline]] static int sync_with_events(WindowState& s, Args... args) {
    const ompi_win_t* win = window_argument(args...);
    const int target = sync_target<kind>(args...);
    raise_sync_begin(win, static_cast<int>(kind), target);
    const uint64_t start = now();
    const int rc = (s.original.*slot)(args...);
    if constexpr (timing) s.sync[kind].template add<threaded>(now() - start);
    raise_sync_end(win, static_cast<int>(kind), target, rc);
    return rc;
  }
  template <SyncKind kind, auto slot, auto slow, typename... Args>
  [[gnu::always_inline]] static int timed(ompi_win_t* win, Args... args) {
    WindowState* s = hot.last.load(std::memory_order_relaxed);
    if (s->win.load(std::memory_order_relaxed) != win) [[unlikely]] return slow(args...);
    return timed_call<kind, slot>(*s, args...);
  }
  template <SyncKind kind, auto slot, typename... Args>
  static int timed_slow(ompi_win_t* win, Args... args) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    return timed_call<kind, slot>(*s, args...);
  }
  // Each call: its fast twin, then its slow twin.
  static int fence(int assertion, ompi_win_t* win) {
    return timed<SyncKind::fence, &Module::osc_fence, fence_slow>(win, assertion, win);
  }
  [[gnu::noinline]] static int fence_slow(int assertion, ompi_win_t* win) {
    return timed_slow<SyncKind::fence, &Module::osc_fence>(win, assertion, win);
  }
  static int start(ompi_group_t* group, int assertion, ompi_win_t* win) {
    return timed<SyncKind::start, &Module::osc_start, start_slow>(win, group, assertion, win);
  }
  [[gnu::noinline]] static int start_slow(ompi_group_t* group, int assertion, ompi_win_t* win) {
    return timed_slow<SyncKind::start, &Module::osc_start>(win, group, assertion, win);
  }
  static int complete(ompi_win_t* win) {
    return timed<SyncKind::complete, &Module::osc_complete, complete_slow>(win, win);
  }
  [[gnu::noinline]] static int complete_slow(ompi_win_t* win) {
    return timed_slow<SyncKind::complete, &Module::osc_complete>(win, win);
  }
  static int post(ompi_group_t* group, int assertion, ompi_win_t* win) {
    return timed<SyncKind::post, &Module::osc_post, post_slow>(win, group, assertion, win);
  }
  [[gnu::noinline]] static int post_slow(ompi_group_t* group, int assertion, ompi_win_t* win) {
    return timed_slow<SyncKind::post, &Module::osc_post>(win, group, assertion, win);
  }
  static int wait(ompi_win_t* win) {
    return timed<SyncKind::wait, &Module::osc_wait, wait_slow>(win, win);
  }
  [[gnu::noinline]] static int wait_slow(ompi_win_t* win) {
    return timed_slow<SyncKind::wait, &Module::osc_wait>(win, win);
  }
  static int test(ompi_win_t* win, int* flag) {
    return timed<SyncKind::test, &Module::osc_test, test_slow>(win, win, flag);
  }
  [[gnu::noinline]] static int test_slow(ompi_win_t* win, int* flag) {
    return timed_slow<SyncKind::test, &Module::osc_test>(win, win, flag);
  }
  static int lock(int lock_type, int target, int assertion, ompi_win_t* win) {
    return timed<SyncKind::lock, &Module::osc_lock, lock_slow>(win, lock_type, target, assertion, win);
  }
  [[gnu::noinline]] static int lock_slow(int lock_type, int target, int assertion, ompi_win_t* win) {
    return timed_slow<SyncKind::lock, &Module::osc_lock>(win, lock_type, target, assertion, win);
  }
  static int unlock(int target, ompi_win_t* win) {
    return timed<SyncKind::unlock, &Module::osc_unlock, unlock_slow>(win, target, win);
  }
  [[gnu::noinline]] static int unlock_slow(int target, ompi_win_t* win) {
    return timed_slow<SyncKind::unlock, &Module::osc_unlock>(win, target, win);
  }
  static int lock_all(int assertion, ompi_win_t* win) {
    return timed<SyncKind::lock_all, &Module::osc_lock_all, lock_all_slow>(win, assertion, win);
  }
  [[gnu::noinline]] static int lock_all_slow(int assertion, ompi_win_t* win) {
    return timed_slow<SyncKind::lock_all, &Module::osc_lock_all>(win, assertion, win);
  }
  static int unlock_all(ompi_win_t* win) {
    return timed<SyncKind::unlock_all, &Module::osc_unlock_all, unlock_all_slow>(win, win);
  }
  [[gnu::noinline]] static int unlock_all_slow(ompi_win_t* win) {
    return timed_slow<SyncKind::unlock_all, &Module::osc_unlock_all>(win, win);
  }
  static int sync(ompi_win_t* win) {
    return timed<SyncKind::sync, &Module::osc_sync, sync_slow>(win, win);
  }
  [[gnu::noinline]] static int sync_slow(ompi_win_t* win) {
    return timed_slow<SyncKind::sync, &Module::osc_sync>(win, win);
  }
  static int flush(int target, ompi_win_t* win) {
    return timed<SyncKind::flush, &Module::osc_flush, flush_slow>(win, target, win);
  }
  [[gnu::noinline]] static int flush_slow(int target, ompi_win_t* win) {
    return timed_slow<SyncKind::flush, &Module::osc_flush>(win, target, win);
  }
  static int flush_all(ompi_win_t* win) {
    return timed<SyncKind::flush_all, &Module::osc_flush_all, flush_all_slow>(win, win);
  }
  [[gnu::noinline]] static int flush_all_slow(ompi_win_t* win) {
    return timed_slow<SyncKind::flush_all, &Module::osc_flush_all>(win, win);
  }
  static int flush_local(int target, ompi_win_t* win) {
    return timed<SyncKind::flush_local, &Module::osc_flush_local, flush_local_slow>(win, target, win);
  }
  [[gnu::noinline]] static int flush_local_slow(int target, ompi_win_t* win) {
    return timed_slow<SyncKind::flush_local, &Module::osc_flush_local>(win, target, win);
  }
  static int flush_local_all(ompi_win_t* win) {
    return timed<SyncKind::flush_local_all, &Module::osc_flush_local_all, flush_local_all_slow>(win, win);
  }
  [[gnu::noinline]] static int flush_local_all_slow(ompi_win_t* win) {
    return timed_slow<SyncKind::flush_local_all, &Module::osc_flush_local_all>(win, win);
  }

  // --- window management: forwarded --------------------------------------------------
  static int shared_query(ompi_win_t* win, int rank, size_t* size, int* disp_unit, void* baseptr) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    return s->original.osc_win_shared_query(win, rank, size, disp_unit, baseptr);
  }
  static int attach(ompi_win_t* win, void* base, size_t size) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    return s->original.osc_win_attach(win, base, size);
  }
  static int detach(ompi_win_t* win, const void* base) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]] return kNoWindow;
    return s->original.osc_win_detach(win, base);
  }
  static int free(ompi_win_t* win);

  static constexpr ompi_osc_base_module_t table = {
      .osc_win_shared_query = shared_query,
      .osc_win_attach = attach,
      .osc_win_detach = detach,
      .osc_free = free,
      .osc_put = put,
      .osc_get = get,
      .osc_accumulate = accumulate,
      .osc_compare_and_swap = compare_and_swap,
      .osc_fetch_and_op = fetch_and_op,
      .osc_get_accumulate = get_accumulate,
      .osc_rput = rput,
      .osc_rget = rget,
      .osc_raccumulate = raccumulate,
      .osc_rget_accumulate = rget_accumulate,
      .osc_fence = fence,
      .osc_start = start,
      .osc_complete = complete,
      .osc_post = post,
      .osc_wait = wait,
      .osc_test = test,
      .osc_lock = lock,
      .osc_unlock = unlock,
      .osc_lock_all = lock_all,
      .osc_unlock_all = unlock_all,
      .osc_sync = sync,
      .osc_flush = flush,
      .osc_flush_all = flush_all,
      .osc_flush_local = flush_local,
      .osc_flush_local_all = flush_local_all,
  };
};

std::string name_of(const ompi_win_t* win) { return std::string(win->w_name, strnlen(win->w_name, sizeof win->w_name)); }

// The window's name as dumps show it: the one given with MPI_Win_set_name, else
// "window <n>".
std::string display_name(const WindowState& s, const ompi_win_t* win) {
  std::string name = name_of(win);
  return name.empty() || name == s.component_name ? WindowSyncRegistry::default_name(s.number) : name;
}

template <bool threaded, bool tsc, bool timing, bool waits>
int Wrappers<threaded, tsc, timing, waits>::free(ompi_win_t* win) {
  WindowState* s = find_state(win);
  if (s == nullptr) [[unlikely]] return kNoWindow;
  const std::string name = display_name(*s, win);
  if (s->tracker != nullptr) {
    s->tracker->destroy();  // collective: every process of the window is in MPI_Win_free
    s->tracker.reset();
    wait_states::registry().close(s->sync_id, name);
  }
  const int rc = s->original.osc_free(win);  // the module is gone after this
  if (rc == OMPI_SUCCESS) {
    window_sync().close(s->sync_id, name);
    windows->remove(s);
    mpimon_events_object_freed(MPI_T_BIND_MPI_WIN, win);  // its event registrations end here
  }
  return rc;
}

const ompi_osc_base_module_t* wrappers = nullptr;  // the table chosen by start_layer

bool timing_sync = false;  // osc_monitoring_sync_timing
bool detect_waits = false;  // osc_monitoring_wait_states (implies timing_sync)

// Each slot of `module` gets ours, unless the component left it NULL (MPI then reports
// the operation as unsupported, as without us). Without synchronisation timing, the
// synchronisation slots keep the component's functions (no cost at all), unless the
// application has initialised MPI_T: then a tool may want their events.
void install(ompi_osc_base_module_t& module, const ompi_osc_base_module_t& ours) {
  auto set = [](auto& slot, auto wrapper) {
    if (slot != nullptr) slot = wrapper;
  };
  const bool wrap_sync = timing_sync || tools_may_listen();
  auto set_sync = [&](auto& slot, auto wrapper) {
    if (wrap_sync) set(slot, wrapper);
  };
  set(module.osc_win_shared_query, ours.osc_win_shared_query);
  set(module.osc_win_attach, ours.osc_win_attach);
  set(module.osc_win_detach, ours.osc_win_detach);
  set(module.osc_free, ours.osc_free);
  set(module.osc_put, ours.osc_put);
  set(module.osc_get, ours.osc_get);
  set(module.osc_accumulate, ours.osc_accumulate);
  set(module.osc_compare_and_swap, ours.osc_compare_and_swap);
  set(module.osc_fetch_and_op, ours.osc_fetch_and_op);
  set(module.osc_get_accumulate, ours.osc_get_accumulate);
  set(module.osc_rput, ours.osc_rput);
  set(module.osc_rget, ours.osc_rget);
  set(module.osc_raccumulate, ours.osc_raccumulate);
  set(module.osc_rget_accumulate, ours.osc_rget_accumulate);
  set_sync(module.osc_fence, ours.osc_fence);
  set_sync(module.osc_start, ours.osc_start);
  set_sync(module.osc_complete, ours.osc_complete);
  set_sync(module.osc_post, ours.osc_post);
  set_sync(module.osc_wait, ours.osc_wait);
  set_sync(module.osc_test, ours.osc_test);
  set_sync(module.osc_lock, ours.osc_lock);
  set_sync(module.osc_unlock, ours.osc_unlock);
  set_sync(module.osc_lock_all, ours.osc_lock_all);
  set_sync(module.osc_unlock_all, ours.osc_unlock_all);
  set_sync(module.osc_sync, ours.osc_sync);
  set_sync(module.osc_flush, ours.osc_flush);
  set_sync(module.osc_flush_all, ours.osc_flush_all);
  set_sync(module.osc_flush_local, ours.osc_flush_local);
  set_sync(module.osc_flush_local_all, ours.osc_flush_local_all);
}
static_assert(sizeof(ompi_osc_base_module_t) == 29 * sizeof(void (*)()),
              "install() must name every slot of ompi_osc_base_module_t");

}  // namespace

void start_layer(bool threaded, bool time_sync, bool wait_states) {
  if (windows != nullptr) return;
  detect_waits = wait_states && !threaded;
  timing_sync = time_sync || detect_waits;
  time_sync = timing_sync;
  windows = new WindowTable();  // used until process exit
  hot.engine = &Runtime::instance().engine;
  hot.job = LocalJob::of_this_process();
  hot.last.store(&no_window, std::memory_order_relaxed);
  const bool tsc = window_sync().clock().source() == SyncClock::Source::tsc;
  start_events(threaded);
  if (!time_sync) {
    wrappers = threaded ? &Wrappers<true, false, false>::table : &Wrappers<false, false, false>::table;
  } else if (threaded) {
    wrappers = tsc ? &Wrappers<true, true, true>::table : &Wrappers<true, false, true>::table;
  } else if (detect_waits) {
    wrappers = tsc ? &Wrappers<false, true, true, true>::table : &Wrappers<false, false, true, true>::table;
  } else {
    wrappers = tsc ? &Wrappers<false, true, true>::table : &Wrappers<false, false, true>::table;
  }
}

bool wrap_window(ompi_win_t* win, ompi_communicator_t* comm) {
  if (windows == nullptr || win->w_osc_module == nullptr) return false;
  ompi_osc_base_module_t& module = *win->w_osc_module;
  WindowState* s = windows->acquire();
  s->original = module;
  s->group = win->w_group;
  // MPI_COMM_WORLD's group (also that of its duplicates): ranks are world ranks. Read
  // here, not at start_layer: MPI_COMM_WORLD does not exist yet when the layer starts.
  s->world_order = win->w_group == ompi_mpi_comm_world.comm.c_local_group;
  for (PeerCache& cache : s->peers) cache.clear();
  const WindowSyncRegistry::Opened opened = window_sync().open(s->sync);
  s->sync_id = opened.id;
  s->number = opened.number;
  s->component_name = name_of(win);
  s->tracker.reset();
  // Collective over the window (we run inside its creation on every process).
  if (detect_waits) s->tracker = wait_states::WindowTracker::create(win, comm, s->sync_id);
  windows->insert(s, win);  // findable before any slot points to us
  install(module, *wrappers);
  return true;
}

uint64_t sync_id_of(const ompi_win_t* win) {
  if (windows == nullptr) return 0;
  const WindowState* s = windows->find(win);
  return s == nullptr ? 0 : s->sync_id;
}

std::string live_window_name(uint64_t id) {
  std::string name;
  if (windows == nullptr) return name;
  windows->for_each_live([&](const WindowState& s, const ompi_win_t* win) {
    if (s.sync_id == id) name = display_name(s, win);
  });
  return name;
}

}  // namespace mpimon::osc
