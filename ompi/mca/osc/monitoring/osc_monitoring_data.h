// The OSC adapter's data-movement wrappers: one-sided operations -> engine records.
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
// Internal to osc_monitoring_module.cpp, the OSC adapter's one translation unit: the
// wrappers' hot paths inline across these headers (as Open MPI's osc/monitoring includes
// its templates into one file). Included nowhere else.
#pragma once

#include "osc_monitoring_events.h"
#include "osc_monitoring_windows.h"

#include <type_traits>

#include "engine/single_writer.h"

// ompi/op/op.h cannot be included (it needs an uninstalled header): the one predefined
// operation we compare against, by address.
extern "C" {
struct ompi_predefined_op_t;
extern struct ompi_predefined_op_t ompi_mpi_op_no_op;
}

namespace mpimon::osc {
namespace {

inline void add_message(Counters& c, uint64_t bytes) {
  single_writer_add(c.messages, 1);
  single_writer_add(c.bytes, bytes);
  single_writer_add(c.histogram[message_bucket(bytes)], 1);
}

// Remembers `target`'s counters for the fast path, unless a tool listens to operation
// events: the fast path does not test for listeners, so their operations must miss the
// cache. A tool may start listening on another thread meanwhile (op_listeners_changed, then
// called on that thread, clears the targets after the flag is set): the fences make
// sure that either we see the flag or it sees our entry.
inline void remember_peer(PeerCache& cache, int target, Counters& c) {
  const unsigned i = static_cast<unsigned>(target) & (kPeerCacheSize - 1);
  // Already there (with wait states every operation takes the slow path): no fence. (A
  // target's counters never move: the same target, the same counters.)
  if (cache.targets[i] == target || op_events_listened()) return;
  cache.counters[i] = &c;
  __atomic_store_n(&cache.targets[i], target, __ATOMIC_RELAXED);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (op_events_listened()) __atomic_store_n(&cache.targets[i], -1, __ATOMIC_RELAXED);
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
    add_message(c, bytes);
    remember_peer(s.peer_cache(category), target, c);
  }
}

inline uint64_t data_bytes(Count count, const ompi_datatype_t* type) {
  return static_cast<uint64_t>(count) * type->super.size;
}

inline bool is_no_op(const struct ompi_op_t* op) {
  return op == reinterpret_cast<const struct ompi_op_t*>(&ompi_mpi_op_no_op);
}

// Whether two slot member pointers (of possibly different types) are the same slot.
template <auto a, auto b>
constexpr bool same_slot() {
  if constexpr (std::is_same_v<decltype(a), decltype(b)>)
    return a == b;
  else
    return false;
}

// Which MPI_T event kind a data slot is (communication_events.h).
template <auto slot>
constexpr int op_kind() {
  using M = ompi_osc_base_module_t;
  if constexpr (same_slot<slot, &M::osc_put>())
    return MPIMON_OSC_OP_put;
  else if constexpr (same_slot<slot, &M::osc_rput>())
    return MPIMON_OSC_OP_rput;
  else if constexpr (same_slot<slot, &M::osc_get>())
    return MPIMON_OSC_OP_get;
  else if constexpr (same_slot<slot, &M::osc_rget>())
    return MPIMON_OSC_OP_rget;
  else if constexpr (same_slot<slot, &M::osc_accumulate>())
    return MPIMON_OSC_OP_accumulate;
  else if constexpr (same_slot<slot, &M::osc_raccumulate>())
    return MPIMON_OSC_OP_raccumulate;
  else if constexpr (same_slot<slot, &M::osc_get_accumulate>())
    return MPIMON_OSC_OP_get_accumulate;
  else if constexpr (same_slot<slot, &M::osc_rget_accumulate>())
    return MPIMON_OSC_OP_rget_accumulate;
  else if constexpr (same_slot<slot, &M::osc_fetch_and_op>())
    return MPIMON_OSC_OP_fetch_and_op;
  else
    return MPIMON_OSC_OP_compare_and_swap;
}

// World rank of a target (window group rank), -1 for another job's process.
inline int32_t world_of(const WindowState& s, int target) {
  return s.world_order ? target : world_rank_in_group(s.group, target, hot.job);
}

// The data wrappers for one kind of process (threaded: MPI_THREAD_MULTIPLE) and whether
// wait states are detected (osc_monitoring_wait_states: every operation then also feeds
// the window's tracker; single-threaded processes only).
//
// Hot paths: each frequent wrapper (put, get, accumulate and their request forms) is a
// fast twin that handles the common case without saving a register it does not need
// (the cached window, the cached peer counters) and otherwise tail-calls its slow twin
// (same signature), which handles every case.
template <bool threaded, bool waits>
struct DataWrappers {
  // One operation moving `bytes` of `category` data with target `target`.
  template <Category category, auto slot, auto slow, typename... Args>
  [[gnu::always_inline]] static int data_fast(ompi_win_t* win, int target, uint64_t bytes, Args... args) {
    if constexpr (!threaded && !waits) {
      // Computed first: one value to keep across the call instead of the datatype, and no
      // register freed for it after the tests.
      asm("" : "+r"(bytes));
      WindowState* s = hot.last.load(std::memory_order_relaxed);
      if (s->win_single_threaded() == win) [[likely]] {
        const PeerCache& cache = s->peer_cache(category);
        const unsigned i = static_cast<unsigned>(target) & (kPeerCacheSize - 1);
        // No test for listeners: while a tool listens to operation events, the caches
        // stay empty (remember_peer, op_listeners_changed) and every operation goes to the slow
        // twin, which raises them.
        if (cache.targets[i] == target) [[likely]] {
          Counters* c = cache.counters[i];
          const int rc = (s->original.*slot)(args...);
          if (rc == OMPI_SUCCESS) [[likely]]
            add_message(*c, bytes);
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
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    const int rc = forward_op<slot>(*s, target, args...);
    if (rc == OMPI_SUCCESS) {
      record<threaded>(*s, target, category, bytes);
      if (op_events_listened()) [[unlikely]]
        op_event<category, slot>(*s, win, target, bytes);
    }
    return rc;
  }

  static int put(const void* origin, Count origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                 Count target_count, ompi_datatype_t* target_type, ompi_win_t* win) {
    return data_fast<Category::osc_sent, &Module::osc_put, put_slow>(win, target, data_bytes(origin_count, origin_type),
                                                                     origin, origin_count, origin_type, target, disp,
                                                                     target_count, target_type, win);
  }
  [[gnu::noinline]] static int put_slow(const void* origin, Count origin_count, ompi_datatype_t* origin_type,
                                        int target, ptrdiff_t disp, Count target_count, ompi_datatype_t* target_type,
                                        ompi_win_t* win) {
    return data_slow<Category::osc_sent, &Module::osc_put>(win, target, data_bytes(origin_count, origin_type), origin,
                                                           origin_count, origin_type, target, disp, target_count,
                                                           target_type, win);
  }
  static int rput(const void* origin, Count origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                  Count target_count, ompi_datatype_t* target_type, ompi_win_t* win, ompi_request_t** request) {
    return data_fast<Category::osc_sent, &Module::osc_rput, rput_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, win, request);
  }
  [[gnu::noinline]] static int rput_slow(const void* origin, Count origin_count, ompi_datatype_t* origin_type,
                                         int target, ptrdiff_t disp, Count target_count, ompi_datatype_t* target_type,
                                         ompi_win_t* win, ompi_request_t** request) {
    return data_slow<Category::osc_sent, &Module::osc_rput>(win, target, data_bytes(origin_count, origin_type), origin,
                                                            origin_count, origin_type, target, disp, target_count,
                                                            target_type, win, request);
  }
  static int get(void* origin, Count origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                 Count target_count, ompi_datatype_t* target_type, ompi_win_t* win) {
    return data_fast<Category::osc_recv, &Module::osc_get, get_slow>(win, target, data_bytes(origin_count, origin_type),
                                                                     origin, origin_count, origin_type, target, disp,
                                                                     target_count, target_type, win);
  }
  [[gnu::noinline]] static int get_slow(void* origin, Count origin_count, ompi_datatype_t* origin_type, int target,
                                        ptrdiff_t disp, Count target_count, ompi_datatype_t* target_type,
                                        ompi_win_t* win) {
    return data_slow<Category::osc_recv, &Module::osc_get>(win, target, data_bytes(origin_count, origin_type), origin,
                                                           origin_count, origin_type, target, disp, target_count,
                                                           target_type, win);
  }
  static int rget(void* origin, Count origin_count, ompi_datatype_t* origin_type, int target, ptrdiff_t disp,
                  Count target_count, ompi_datatype_t* target_type, ompi_win_t* win, ompi_request_t** request) {
    return data_fast<Category::osc_recv, &Module::osc_rget, rget_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, win, request);
  }
  [[gnu::noinline]] static int rget_slow(void* origin, Count origin_count, ompi_datatype_t* origin_type, int target,
                                         ptrdiff_t disp, Count target_count, ompi_datatype_t* target_type,
                                         ompi_win_t* win, ompi_request_t** request) {
    return data_slow<Category::osc_recv, &Module::osc_rget>(win, target, data_bytes(origin_count, origin_type), origin,
                                                            origin_count, origin_type, target, disp, target_count,
                                                            target_type, win, request);
  }
  static int accumulate(const void* origin, Count origin_count, ompi_datatype_t* origin_type, int target,
                        ptrdiff_t disp, Count target_count, ompi_datatype_t* target_type, struct ompi_op_t* op,
                        ompi_win_t* win) {
    return data_fast<Category::osc_sent, &Module::osc_accumulate, accumulate_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, op, win);
  }
  [[gnu::noinline]] static int accumulate_slow(const void* origin, Count origin_count, ompi_datatype_t* origin_type,
                                               int target, ptrdiff_t disp, Count target_count,
                                               ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win) {
    return data_slow<Category::osc_sent, &Module::osc_accumulate>(win, target, data_bytes(origin_count, origin_type),
                                                                  origin, origin_count, origin_type, target, disp,
                                                                  target_count, target_type, op, win);
  }
  static int raccumulate(const void* origin, Count origin_count, ompi_datatype_t* origin_type, int target,
                         ptrdiff_t disp, Count target_count, ompi_datatype_t* target_type, struct ompi_op_t* op,
                         ompi_win_t* win, ompi_request_t** request) {
    return data_fast<Category::osc_sent, &Module::osc_raccumulate, raccumulate_slow>(
        win, target, data_bytes(origin_count, origin_type), origin, origin_count, origin_type, target, disp,
        target_count, target_type, op, win, request);
  }
  [[gnu::noinline]] static int raccumulate_slow(const void* origin, Count origin_count, ompi_datatype_t* origin_type,
                                                int target, ptrdiff_t disp, Count target_count,
                                                ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win,
                                                ompi_request_t** request) {
    return data_slow<Category::osc_sent, &Module::osc_raccumulate>(win, target, data_bytes(origin_count, origin_type),
                                                                   origin, origin_count, origin_type, target, disp,
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
    if (op_events_listened()) [[unlikely]]
      raise_op(win, op_kind<slot>(), world_of(s, target), target, sent, received);
  }
  static int get_accumulate(const void* origin, Count origin_count, ompi_datatype_t* origin_type, void* result,
                            Count result_count, ompi_datatype_t* result_type, int target, ptrdiff_t disp,
                            Count target_count, ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    const int rc =
        forward_op<&Module::osc_get_accumulate>(*s, target, origin, origin_count, origin_type, result, result_count,
                                                result_type, target, disp, target_count, target_type, op, win);
    if (rc == OMPI_SUCCESS)
      record_fetching<&Module::osc_get_accumulate>(*s, win, target, data_bytes(origin_count, origin_type),
                                                   data_bytes(result_count, result_type), op);
    return rc;
  }
  static int rget_accumulate(const void* origin, Count origin_count, ompi_datatype_t* origin_type, void* result,
                             Count result_count, ompi_datatype_t* result_type, int target, ptrdiff_t disp,
                             Count target_count, ompi_datatype_t* target_type, struct ompi_op_t* op, ompi_win_t* win,
                             ompi_request_t** request) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    const int rc = forward_op<&Module::osc_rget_accumulate>(*s, target, origin, origin_count, origin_type, result,
                                                            result_count, result_type, target, disp, target_count,
                                                            target_type, op, win, request);
    if (rc == OMPI_SUCCESS)
      record_fetching<&Module::osc_rget_accumulate>(*s, win, target, data_bytes(origin_count, origin_type),
                                                    data_bytes(result_count, result_type), op);
    return rc;
  }
  static int fetch_and_op(const void* origin, void* result, ompi_datatype_t* type, int target, ptrdiff_t disp,
                          struct ompi_op_t* op, ompi_win_t* win) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    const int rc = forward_op<&Module::osc_fetch_and_op>(*s, target, origin, result, type, target, disp, op, win);
    if (rc == OMPI_SUCCESS)
      record_fetching<&Module::osc_fetch_and_op>(*s, win, target, type->super.size, type->super.size, op);
    return rc;
  }
  static int compare_and_swap(const void* origin, const void* compare, void* result, ompi_datatype_t* type, int target,
                              ptrdiff_t disp, ompi_win_t* win) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    const int rc =
        forward_op<&Module::osc_compare_and_swap>(*s, target, origin, compare, result, type, target, disp, win);
    if (rc == OMPI_SUCCESS) {
      record<threaded>(*s, target, Category::osc_sent, type->super.size);
      record<threaded>(*s, target, Category::osc_recv, type->super.size);
      if (op_events_listened()) [[unlikely]]
        raise_op(win, MPIMON_OSC_OP_compare_and_swap, world_of(*s, target), target, type->super.size, type->super.size);
    }
    return rc;
  }
};

}  // namespace
}  // namespace mpimon::osc
