// Time spent in one-sided synchronisation calls, per window and per kind of call.
//
// Pure C++ (no Open MPI header): the OSC adapter (ompi/mca/osc/monitoring) times each
// synchronisation call it forwards and adds (1 call, elapsed ticks) to the live block of
// its window; dumps and performance variables read the totals from here.
//
// Windows are identified by a name that is the same on every run of the same program:
// the name given with MPI_Win_set_name, else "window <n>" where n is the smallest number
// >= 1 that no other live window of this process holds (so the creation order when the
// program does not free windows in between). A freed window's totals are kept under its
// name, merged with the earlier freed windows of the same name: memory grows with the
// distinct names and the live windows, not with the number of windows ever created.
//
// Thread safety: open/close/entries/read take a mutex; the hot path writes the live
// block of its own window without one (plain adds in single-threaded processes, relaxed
// atomic adds under MPI_THREAD_MULTIPLE: see SyncTotals::add).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/single_writer.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace mpimon {

// The synchronisation calls of MPI-3 one-sided communication, in the order of the
// values of the osc_monitoring_sync_time / _sync_count performance variables. The
// numeric values are part of those variables' contract: only append.
enum class SyncKind : uint8_t {
  fence = 0,        // MPI_Win_fence
  start,            // MPI_Win_start
  complete,         // MPI_Win_complete
  post,             // MPI_Win_post
  wait,             // MPI_Win_wait
  test,             // MPI_Win_test
  lock,             // MPI_Win_lock
  unlock,           // MPI_Win_unlock
  lock_all,         // MPI_Win_lock_all
  unlock_all,       // MPI_Win_unlock_all
  sync,             // MPI_Win_sync
  flush,            // MPI_Win_flush
  flush_all,        // MPI_Win_flush_all
  flush_local,      // MPI_Win_flush_local
  flush_local_all,  // MPI_Win_flush_local_all
};
inline constexpr int kSyncKindCount = 15;
// "fence", "start", ..., "flush_local_all" (the MPI name without "MPI_Win_").
const char* sync_kind_name(SyncKind kind) noexcept;

// Ticks of the clock the hot path reads: the time-stamp counter on x86-64 processors
// whose TSC is invariant (one instruction, no system call), else steady_clock's
// nanoseconds. SyncClock converts them to seconds.
class SyncClock {
 public:
  enum class Source { tsc, steady };
  // The best source this processor offers.
  static Source best_source();
  static uint64_t steady_now() noexcept {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
#if defined(__x86_64__)
  static uint64_t tsc_now() noexcept { return __rdtsc(); }
#else
  static uint64_t tsc_now() noexcept { return steady_now(); }
#endif

  explicit SyncClock(Source source = best_source());
  Source source() const { return source_; }
  uint64_t now() const noexcept { return source_ == Source::tsc ? tsc_now() : steady_now(); }
  // Seconds per tick. For the TSC: measured once, against steady_clock, over the time
  // from this clock's creation to the first call (at least 20 ms: an earlier first call
  // waits), then fixed, so that differences of converted totals stay exact (MPI_T
  // handles subtract them).
  double seconds_per_tick() const;

 private:
  Source source_;
  uint64_t calibration_tsc_ = 0;
  std::chrono::steady_clock::time_point calibration_steady_;
  mutable std::once_flag calibrated_;
  mutable double seconds_per_tick_ = 1e-9;
};

// One kind of synchronisation of one window.
struct SyncTotals {
  uint64_t calls = 0;
  uint64_t ticks = 0;

  // The hot path's update; `threaded` (MPI_THREAD_MULTIPLE) uses relaxed atomic adds.
  template <bool threaded>
  void add(uint64_t elapsed_ticks) noexcept {
    if constexpr (threaded) {
      std::atomic_ref(calls).fetch_add(1, std::memory_order_relaxed);
      std::atomic_ref(ticks).fetch_add(elapsed_ticks, std::memory_order_relaxed);
    } else {
      single_writer_add(calls, 1);
      single_writer_add(ticks, elapsed_ticks);
    }
  }
};

// What the wrappers of one live window write to. Never moves while its window lives.
struct WindowSyncTimes {
  SyncTotals kinds[kSyncKindCount];
  SyncTotals& operator[](SyncKind kind) noexcept { return kinds[static_cast<int>(kind)]; }
};

// One window (or several freed ones of the same name) as dumps and readers see it.
struct WindowSyncEntry {
  std::string name;
  uint64_t calls[kSyncKindCount] = {};
  double seconds[kSyncKindCount] = {};
};

class WindowSyncRegistry {
 public:
  explicit WindowSyncRegistry(SyncClock::Source source = SyncClock::best_source());
  WindowSyncRegistry(const WindowSyncRegistry&) = delete;
  WindowSyncRegistry& operator=(const WindowSyncRegistry&) = delete;

  const SyncClock& clock() const { return clock_; }

  struct Opened {
    uint64_t id = 0;  // this window's key in the registry (never reused)
    int number = 0;   // n of its default name "window <n>"
  };
  // A window was created; its wrappers write to `times` (the caller's memory, zeroed
  // here, read by the registry until close).
  Opened open(WindowSyncTimes& times);
  // A window was freed under `name` (its final name): its totals join the freed entry of
  // that name; its number becomes free.
  void close(uint64_t id, std::string_view name);

  // Totals of one live window; false if `id` is not a live window.
  bool read(uint64_t id, uint64_t calls[kSyncKindCount], double seconds[kSyncKindCount]) const;

  // Every window with at least one call: freed entries and live windows (named by
  // live_name(id)), those of the same name merged, in the order their name first
  // appeared (open order).
  std::vector<WindowSyncEntry> entries(const std::function<std::string(uint64_t id)>& live_name) const;

  // Live windows and freed entries held (to check that memory stays bounded).
  size_t live_count() const;
  size_t freed_count() const;

  static std::string default_name(int number) { return "window " + std::to_string(number); }

 private:
  struct Live {
    uint64_t id;
    int number;
    const WindowSyncTimes* times;
  };
  struct Freed {
    std::string name;
    uint64_t first_id;  // ordering: when this name first appeared
    uint64_t calls[kSyncKindCount] = {};
    uint64_t ticks[kSyncKindCount] = {};
  };
  SyncClock clock_;
  mutable std::mutex mutex_;
  uint64_t next_id_ = 1;
  std::vector<Live> live_;
  std::vector<Freed> freed_;
};

// The registry of this process (lives in libmpimon_monitoring.so, never destroyed).
WindowSyncRegistry& window_sync();

// Dump lines (see docs/formats.md). `name` escaping: percent-encoding (%XX, upper-case
// hex) of '%', control characters (< 0x20, 0x7f) and, in the job file, the space.
// .prof: "# SYNC\t<me>\t<name>\t<kind>\t<calls> calls\t<seconds> s\n" per kind with calls
std::string format_sync_prof_lines(int me, const std::vector<WindowSyncEntry>& entries);
// Job file: "window_sync <me> <name> <kind> <calls> <seconds>\n" per kind with calls
std::string format_sync_job_lines(int me, const std::vector<WindowSyncEntry>& entries);

}  // namespace mpimon
