// The OSC adapter's synchronisation wrappers: fence, start, complete, post, wait, test,
// lock, unlock, lock_all, unlock_all, sync, flush, flush_all, flush_local and
// flush_local_all are timed: one call and the ticks spent inside the forwarded call,
// whatever it returned (analyses/window_sync.h), and, with wait states, seen by the
// window's tracker.
// Internal to osc_monitoring_module.cpp, the OSC adapter's one translation unit: the
// wrappers' hot paths inline across these headers (as Open MPI's osc/monitoring includes
// its templates into one file). Included nowhere else.
#pragma once

#include "osc_monitoring_events.h"
#include "osc_monitoring_windows.h"

#include <tuple>
#include <type_traits>

namespace mpimon::osc {
namespace {

// The target argument of the synchronisation calls that have one (window rank), else -1.
template <SyncKind kind, typename... Args>
int sync_target(Args... args) {
  auto a = std::forward_as_tuple(args...);
  if constexpr (kind == SyncKind::lock)
    return std::get<1>(a);  // (lock_type, target, assert, win)
  else if constexpr (kind == SyncKind::unlock || kind == SyncKind::flush || kind == SyncKind::flush_local)
    return std::get<0>(a);  // (target, win)
  else
    return -1;
}

// The window among a synchronisation call's arguments (last, except for MPI_Win_test).
template <typename First, typename... Rest>
const ompi_win_t* window_argument(First first, Rest... rest) {
  if constexpr (std::is_same_v<First, ompi_win_t*>)
    return first;
  else
    return window_argument(rest...);
}

// The synchronisation wrappers for one kind of process (threaded: MPI_THREAD_MULTIPLE),
// clock (tsc: the time-stamp counter, else steady_clock), whether synchronisation calls
// are timed (osc_monitoring_sync_timing; untimed synchronisation wrappers exist for the
// events) and whether wait states are detected (osc_monitoring_wait_states: every call
// then also feeds the window's tracker; single-threaded processes only, timing on).
//
// Hot paths: each call is a fast twin that handles the common case (the cached window)
// and otherwise tail-calls its slow twin (same signature), which handles every case.
template <bool threaded, bool tsc, bool timing, bool waits>
struct SyncWrappers {
  static uint64_t now() { return tsc ? SyncClock::tsc_now() : SyncClock::steady_now(); }

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
    if constexpr (kind == K::fence)
      t->before_fence();
    else if constexpr (kind == K::start)
      t->before_start();
    else if constexpr (kind == K::complete)
      t->before_complete();
    else if constexpr (kind == K::post)
      t->before_post(std::get<0>(a), std::get<1>(a));
    else if constexpr (kind == K::wait)
      t->before_wait();
    else if constexpr (kind == K::test)
      t->before_test();
    else if constexpr (kind == K::lock)
      t->before_lock();
    else if constexpr (kind == K::unlock)
      t->before_unlock(std::get<0>(a));
    const int rc = (s.original.*slot)(args...);
    if constexpr (kind == K::fence)
      t->after_fence(rc);
    else if constexpr (kind == K::start)
      t->after_start(std::get<0>(a), std::get<1>(a), rc);
    else if constexpr (kind == K::complete)
      t->after_complete(rc);
    else if constexpr (kind == K::post)
      t->after_post(rc);
    else if constexpr (kind == K::wait)
      t->after_wait(rc);
    else if constexpr (kind == K::test)
      t->after_test(rc, *std::get<1>(a) != 0);
    else if constexpr (kind == K::lock)
      t->after_lock(std::get<0>(a), std::get<1>(a), std::get<2>(a), rc);
    else if constexpr (kind == K::unlock)
      t->after_unlock(std::get<0>(a), rc);
    else if constexpr (kind == K::lock_all)
      t->after_lock_all(rc);
    else if constexpr (kind == K::unlock_all)
      t->after_unlock_all(rc);
    s.sync[kind].template add<false>(now() - start);
    if (events) raise_sync_end(win, static_cast<int>(kind), sync_target<kind>(args...), rc);
    return rc;
  }
  template <SyncKind kind, auto slot, typename... Args>
  [[gnu::always_inline]] static int timed_body(WindowState& s, Args... args) {
    if (sync_events_listened()) [[unlikely]]
      return sync_with_events<kind, slot>(s, args...);
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
    if (s->win.load(std::memory_order_relaxed) != win) [[unlikely]]
      return slow(args...);
    return timed_call<kind, slot>(*s, args...);
  }
  template <SyncKind kind, auto slot, typename... Args>
  static int timed_slow(ompi_win_t* win, Args... args) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
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
  static int wait(ompi_win_t* win) { return timed<SyncKind::wait, &Module::osc_wait, wait_slow>(win, win); }
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
  static int sync(ompi_win_t* win) { return timed<SyncKind::sync, &Module::osc_sync, sync_slow>(win, win); }
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
};

}  // namespace
}  // namespace mpimon::osc
