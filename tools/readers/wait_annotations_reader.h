// Reading the wait-state lines of a job file (analyses/wait_states/wait_totals.h writes
// them). Pure C++, in mpimon_readers: the tools and tests link it, the runtime
// library never does.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/wait_states/wait_patterns.h"
#include "readers/format_error.h"
#include "readers/job_reader.h"

namespace mpimon::wait_states {

// The same lines read back from a job file's annotations (tools).
struct WaitStateLine {
  int32_t waiter = 0;
  std::string window;  // unescaped
  Pattern pattern = Pattern::late_post;
  int32_t culprit = 0;
  uint64_t count = 0;
  double seconds = 0;
};
struct WaitWindowLine {
  int32_t rank = 0;
  std::string window;
  double rma_seconds = 0;
  uint64_t unmatched = 0;
  double clock_offset = 0;
  std::optional<double> clock_drift;
  double clock_uncertainty = 0;
};
struct WaitAnnotations {
  std::vector<WaitStateLine> waits;
  std::vector<WaitWindowLine> windows;
  std::map<int32_t, double> process_seconds;  // rank -> seconds from MPI_Init to MPI_Finalize
  bool empty() const { return waits.empty() && windows.empty() && process_seconds.empty(); }
};
// Picks the wait_* annotations; a malformed one throws FormatError "<file>:<line>: expected
// ...": wrong field count, unknown pattern, negative or non-finite seconds, counts from
// 2^60 on, ranks outside [0, world_size) (when world_size > 0).
WaitAnnotations read_wait_annotations(const std::vector<JobAnnotation>& annotations, std::string_view file_name,
                                      int32_t world_size = 0);

}  // namespace mpimon::wait_states
