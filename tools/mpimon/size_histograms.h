// Message-size histograms of one sender, per peer, for a selection (data flow, as the
// matrices: one-sided gets count at the target whose data was read). Job files have a
// histogram per record; .prof files, as Open MPI writes them, have one per peer for E and
// I traffic together (on the E line, or on the I line when there is no E line) and none on
// S, R and C lines. What a selection needs but the .prof files do not hold is reported,
// never guessed.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dumps.h"

namespace mpimon::tools {

using Histogram = std::array<uint64_t, kHistogramBuckets>;

struct SizeHistograms {
  int32_t sender = 0;
  std::string selection;
  std::map<int32_t, Histogram> per_peer;  // peers the sender's data reached
  // .prof input: peers whose E and I traffic share one histogram while the selection takes
  // only one of them (not in per_peer).
  std::set<int32_t> mixed_peers;
  // .prof input: the selection has S, R or C traffic of the sender, which has no sizes there.
  bool sizes_missing = false;
};

SizeHistograms size_histograms(const std::vector<std::string>& files, int32_t sender, const Selection& selection,
                               const DumpLoader& load = load_dump_file);

// Bucket b's upper bound as text: "0" for bucket 0, else "<128", "<1K", ...
std::string bucket_label(int bucket);

// A table for the terminal: one row per peer, one column per size class used, a total row,
// then the notes (mixed peers, missing sizes).
std::string format_size_histograms(const SizeHistograms& histograms);
// The notes alone ("" when none), one per line.
std::string size_histogram_notes(const SizeHistograms& histograms);

}  // namespace mpimon::tools
