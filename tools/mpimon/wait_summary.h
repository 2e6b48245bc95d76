// RMA wait states as the tools show them, from what read_dumps(..., Annotations::read)
// returns for job files (wait_state, wait_window, wait_process_time annotations and the
// window_sync rows; docs/formats.md): the paper's Table 2 (time per pattern and share of
// the job's time, per job and per window) and the who-makes-whom-wait matrix of a
// pattern. O(annotations): nothing dense but the bounded dense formats.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyses/wait_states/wait_patterns.h"
#include "analyses/wait_states/wait_totals.h"
#include "dumps.h"
#include "formats/job_format.h"
#include "readers/wait_annotations_reader.h"

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

// Throws FormatError for a malformed wait-state annotation (ranks checked against the
// job file's world size).
WaitSummary summarize_waits(const Dumps& dumps);

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
// The same from what was read; `pattern` a pattern's name or "all".
WaitMatrix read_wait_matrix(const Dumps& dumps, const std::string& pattern);

// Dense text (up to kDenseTextRanks), dense CSV ("waiter,<0>,<1>,...", up to
// kDenseFileRanks), sparse CSV ("waiter,culprit,<value>"), or MatrixMarket (non-zeros);
// dense formats beyond their size throw std::invalid_argument. `counts`: occurrences
// instead of seconds.
enum class WaitMatrixFormat { text, csv, sparse_csv, matrix_market };
std::string format_wait_matrix(const WaitMatrix& matrix, WaitMatrixFormat format, bool counts);

// "late_post", ..., or "all" (every pattern summed).
std::vector<std::string> wait_pattern_choices();

}  // namespace mpimon::tools
