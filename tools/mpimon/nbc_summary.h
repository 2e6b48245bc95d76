// Did the nonblocking collectives overlap? The job files' `nbc_overlap` and `nbc_sampling`
// annotations (docs/formats.md) summed over the ranks per communicator (named by its
// `communicator` line) and kind. One summary for `mpimon report` (HTML) and `mpimon show`
// (terminal text); memory grows with the communicators and kinds. Lines whose fields do
// not parse are left out (the job reader checked the rest).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "readers/job_reader.h"

namespace mpimon::tools {

inline constexpr int kNbcBuckets = 10;

struct NbcKindSummary {
  uint64_t ranks = 0;               // ranks with followed calls
  uint64_t not_followed_ranks = 0;  // ranks whose calls were all left unfollowed ("not followed" lines)
  uint64_t calls = 0, waited = 0, bytes = 0, before = 0, measured = 0;
  double duration = 0, blocked = 0, overlap_sum = 0;
  uint64_t histogram[kNbcBuckets] = {};
  double lowest_mean = 2;  // the rank with the lowest mean overlap
  std::string lowest_rank;

  // No rank followed a call of it: nothing measured, it has no figure.
  bool not_followed() const { return calls == 0; }
  // Over the measured calls; NaN when none.
  double mean_overlap() const;
  // Bytes posted before the wait / bytes; the mean when no byte moved; NaN when nothing measured.
  double weighted_overlap() const;
};

struct NbcSummary {
  // (communicator name, kind) -> summed over the ranks
  std::map<std::pair<std::string, std::string>, NbcKindSummary> kinds;
  // The schedules of the ranks that left calls unfollowed (`nbc_sampling` lines):
  // "128" (older files: no exact calls field), "128 after the first 64".
  std::set<std::string> samplings;
};

// From the job files' annotations (`communicator` lines name the identities; without
// one, the field itself is the name, as in version 1 files).
NbcSummary summarize_nbc(const std::vector<JobAnnotation>& annotations);

// As a terminal table: one line per communicator and kind (the kMaxNbcRows with the most
// blocked time, then a line saying how many more), "not followed" for a kind without a
// followed call; "" without lines.
inline constexpr size_t kMaxNbcRows = 64;
std::string format_nbc_summary_text(const NbcSummary& summary);

// Two decimals, or "-" for NaN (nothing measured).
std::string overlap_text(double overlap, int decimals);

}  // namespace mpimon::tools
