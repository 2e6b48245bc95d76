// RMA wait states as the tools show them, from a job file's annotations (wait_state,
// wait_window, wait_process_time, window_sync lines; docs/formats.md): the paper's
// Table 2 (time per pattern and share of the job's time, per job and per window) and the
// who-makes-whom-wait matrix of a pattern. O(annotations): no dense N x N structure.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job_format.h"
#include "wait_patterns.h"
#include "wait_totals.h"

namespace mpimon::tools {

using mpimon::wait_states::kPatternCount;
using mpimon::wait_states::Pattern;

struct WaitTimes {
  double sync_seconds = 0;  // inside one-sided synchronisation calls
  double rma_seconds = 0;   // inside one-sided communication calls
  std::array<double, kPatternCount> seconds{};
  std::array<uint64_t, kPatternCount> counts{};
};

struct WaitSummary {
  bool has_wait_states = false;  // the job ran with osc_monitoring_wait_states 1
  int32_t ranks = 0;
  double total_seconds = 0;  // every rank's time from MPI_Init to MPI_Finalize, summed
  WaitTimes job;
  std::map<std::string, WaitTimes> windows;  // by window name
  uint64_t unmatched = 0;
  double max_clock_drift = 0;        // largest |drift| measured at MPI_Win_free
  double max_clock_uncertainty = 0;  // largest half round trip of the offset measurements
};

// A job file's header and annotations (records skipped). FormatError if `path` is not a
// job file (wait states are only in job files) or is malformed.
struct JobAnnotations {
  JobHeader header;
  std::vector<JobAnnotation> annotations;
};
JobAnnotations read_job_annotations(const std::string& path);

// Throws FormatError for a malformed wait-state annotation.
WaitSummary summarize_waits(const std::vector<JobAnnotation>& annotations, std::string_view file_name,
                            int32_t world_size);

// The paper's Table 2: one column per job (its label), rows Total time, RMA
// synchronisation, Wait at Fence, Early Fence, Early Wait, Late Complete, Late Post,
// Lock Competition, RMA communication, Early Transfer; seconds and % of the total time.
// Markdown when `markdown`, else aligned text.
std::string format_wait_table(const std::vector<std::pair<std::string, WaitSummary>>& jobs, bool markdown);

// Who made whom wait, for one pattern or all of them summed: (waiter, culprit) ->
// seconds and occurrences (MPI_COMM_WORLD ranks; rows wait, columns were waited for).
struct WaitCell {
  double seconds = 0;
  uint64_t count = 0;
};
struct WaitMatrix {
  int32_t ranks = 0;
  std::map<std::pair<int32_t, int32_t>, WaitCell> cells;
};
WaitMatrix wait_matrix(const mpimon::wait_states::WaitAnnotations& annotations, std::optional<Pattern> pattern,
                       int32_t world_size);

// Dense text (small jobs), CSV ("waiter,<0>,<1>,..."), or MatrixMarket (non-zeros);
// `counts`: occurrences instead of seconds.
enum class WaitMatrixFormat { text, csv, matrix_market };
std::string format_wait_matrix(const WaitMatrix& matrix, WaitMatrixFormat format, bool counts);

// "late_post", ..., or "all" (every pattern summed).
std::vector<std::string> wait_pattern_choices();

}  // namespace mpimon::tools
