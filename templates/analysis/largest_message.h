// TEMPLATE: a new analysis (docs/extending.md, "A new analysis").
//
// An analysis derives what the per-peer counters cannot say. This one keeps the largest
// message sent to each peer. Its four pieces, and where the real ones live:
//   1. the state a layer's wrapper feeds (LargestMessage::record): a pure class in
//      ompi/mca/common/monitoring/analyses/<name>.{h,cpp}, built into mpimon_core, unit-tested;
//   2. its job-file lines (LargestMessage::job_lines), handed to the end-of-job dump and to the
//      time series by a DumpProvider the layer's component registers (Runtime::add_dump_provider);
//   3. reading the lines back (read_largest_message_lines, largest_message_reader.cpp):
//      tools/readers/<name>_reader.{h,cpp}, with the readers' helpers (readers/text_fields.h);
//   4. showing them: a report section (tools/mpimon/report/) or a subcommand (templates/subcommand).
// Scale: memory grows with the peers this process talks to, never with the job's size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "readers/job_reader.h"  // JobAnnotation

namespace mpimon::templates {

// 1 + 2: the state, and its lines.
class LargestMessage {
 public:
  // From the layer's wrapper, after Engine::record. One thread at a time: a layer whose
  // calls come from several threads (MPI_THREAD_MULTIPLE) takes a lock or keeps one
  // instance per thread, as analyses/nbc_overlap.h does.
  void record(int32_t peer, uint64_t bytes);
  // "largest_message <world rank> <peer> <bytes>\n" per peer, by peer: job-file annotation
  // lines (docs/formats.md: a lower-case keyword, then fields; readers skip what they do
  // not know, so a new keyword changes no format version).
  std::string job_lines(int32_t world_rank) const;

 private:
  std::map<int32_t, uint64_t> largest_;  // peer -> bytes
};

// 3: a job file's largest_message lines, read back.
struct LargestMessageLine {
  int32_t rank = 0;
  int32_t peer = 0;
  uint64_t bytes = 0;
};
// Throws FormatError "<file>:<line>: expected ..." for a malformed line (field count,
// ranks outside [0, world_size), a byte count that is not a number).
std::vector<LargestMessageLine> read_largest_message_lines(const std::vector<JobAnnotation>& annotations,
                                                           std::string_view file, int32_t world_size);

}  // namespace mpimon::templates
