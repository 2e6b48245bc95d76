// Wait-state totals per window: seconds and occurrences per pattern, and per culprit
// (the who-makes-whom-wait row of this process), kept while the job runs, read by the
// performance variables and written into the end-of-job dumps. Pure C++.
//
// Windows are named as analyses/window_sync.h names them (MPI_Win_set_name's name, else
// "window <n>"); a freed window's totals join the freed entry of its name, so memory
// grows with the distinct names, the live windows and the culprits, never with epochs.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/wait_states/wait_patterns.h"
#include "formats/job_format.h"  // escape_name

namespace mpimon::wait_states {

struct PatternTotals {
  uint64_t count = 0;
  Nanos time = 0;
};
using PatternArray = std::array<PatternTotals, kPatternCount>;

struct WindowWaits {
  PatternArray patterns{};
  std::map<int32_t, PatternArray> culprits;  // culprit's MPI_COMM_WORLD rank -> totals
  Nanos rma_op_time = 0;                     // time inside RMA operations (the paper's "RMA comm.")
  uint64_t unmatched = 0;                    // epochs whose remote timestamps did not arrive
  // This process's clock against the window's reference (rank 0's host).
  Nanos clock_offset = 0;
  Nanos clock_uncertainty = 0;  // half the best round trip
  bool drift_measured = false;
  Nanos clock_drift = 0;  // offset measured at free minus offset at creation

  void add(Pattern pattern, Nanos duration, int32_t culprit_world_rank);
  void merge(const WindowWaits& other);
};

// One window (or several freed ones of one name) as dumps see it.
struct WindowWaitsEntry {
  std::string name;
  WindowWaits waits;
};

class WaitStateRegistry {
 public:
  // A monitored window was created: its totals start at zero. Ids are the window_sync
  // registry's.
  void open(uint64_t id);
  // Under the registry's lock (performance variables may read from another thread).
  void add(uint64_t id, Pattern pattern, Nanos duration, int32_t culprit_world_rank);
  void add_op_time(uint64_t id, Nanos duration);
  void add_unmatched(uint64_t id, uint64_t epochs);
  void set_clock(uint64_t id, Nanos offset, Nanos uncertainty);
  void set_drift(uint64_t id, Nanos drift);
  // The window was freed under `name`.
  void close(uint64_t id, std::string_view name);

  // Seconds and occurrences per pattern of one live window; false if not live.
  bool read(uint64_t id, double seconds[kPatternCount], uint64_t counts[kPatternCount]) const;
  // Freed entries and live windows (named by live_name), merged by name, in the order
  // their names first appeared.
  std::vector<WindowWaitsEntry> entries(const std::function<std::string(uint64_t id)>& live_name) const;
  size_t live_count() const;
  size_t freed_count() const;

 private:
  struct Freed {
    uint64_t first_id;
    WindowWaits waits;
  };
  mutable std::mutex mutex_;
  std::map<uint64_t, WindowWaits> live_;
  std::map<std::string, Freed, std::less<>> freed_;
};

// ---------------------------------------------------------------------------------------
// Dump lines (docs/formats.md, "Wait states"). Seconds with 9 decimals; names escaped as
// window_sync's (escape_name); ranks are MPI_COMM_WORLD ranks.
//   .prof: "# WAIT\t<me>\t<window>\t<pattern>\t<culprit>\t<count> times\t<seconds> s"
//          "# WAIT_WINDOW\t<me>\t<window>\t<rma seconds> s\t<unmatched> unmatched\t
//           <offset> s\t<drift> s\t<uncertainty> s"            (drift "-" if not measured)
//   job:   "wait_state <me> <window> <pattern> <culprit> <count> <seconds>"
//          "wait_window <me> <window> <rma seconds> <unmatched> <offset> <drift> <uncertainty>"
//          "wait_process_time <me> <seconds>"
std::string format_wait_prof_lines(int me, const std::vector<WindowWaitsEntry>& entries);
std::string format_wait_job_lines(int me, const std::vector<WindowWaitsEntry>& entries, double process_seconds);

}  // namespace mpimon::wait_states
