// The one clock of every source: the TSC on x86-64 when it is invariant (constant rate,
// running in every C-state), calibrated once against CLOCK_MONOTONIC so that
// ticks_per_second is the same at every MPI_T_source_get_info; otherwise
// CLOCK_MONOTONIC in nanoseconds.
#include <ctime>
#include <mutex>

#include "events_internal.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace mpimon::events {

// Constant-initialised: usable from any static initialiser. Read inline by clock_read().
constinit std::atomic<int> clock_kind{kClockUnknown};

namespace {

MPI_Count monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<MPI_Count>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int detect() {
#if defined(__x86_64__)
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) && eax >= 0x80000007u &&
      __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8)) != 0)
    return kClockTsc;
#endif
  return kClockMonotonic;
}

MPI_Count calibrate() {
#if defined(__x86_64__)
  if (clock_kind.load(std::memory_order_relaxed) == kClockTsc) {
    // 20 ms against CLOCK_MONOTONIC: about 1e-6 relative error.
    const MPI_Count t0 = monotonic_ns();
    const MPI_Count c0 = static_cast<MPI_Count>(__rdtsc());
    MPI_Count t1;
    do t1 = monotonic_ns();
    while (t1 - t0 < 20000000);
    const MPI_Count c1 = static_cast<MPI_Count>(__rdtsc());
    const double hz = static_cast<double>(c1 - c0) * 1e9 / static_cast<double>(t1 - t0);
    return static_cast<MPI_Count>(hz / 1000.0 + 0.5) * 1000;  // kHz resolution
  }
#endif
  return 1000000000;
}

}  // namespace

MPI_Count clock_now() {
  int kind = clock_kind.load(std::memory_order_relaxed);
  if (__builtin_expect(kind == kClockUnknown, 0)) {
    kind = detect();
    clock_kind.store(kind, std::memory_order_relaxed);
  }
#if defined(__x86_64__)
  if (kind == kClockTsc) return static_cast<MPI_Count>(__rdtsc());
#endif
  return monotonic_ns();
}

bool clock_is_tsc() {
  clock_now();  // decides the clock
  return clock_kind.load(std::memory_order_relaxed) == kClockTsc;
}

MPI_Count clock_ticks_per_second() {
  static std::once_flag once;
  static MPI_Count ticks = 0;
  std::call_once(once, [] {
    clock_now();  // decide the clock first
    ticks = calibrate();
  });
  return ticks;
}

MPI_Count clock_max_ticks() { return kMaxCount; }

}  // namespace mpimon::events

extern "C" MPI_Count mpimon_events_now(void) { return mpimon::events::clock_now(); }
