// The payloads of the time series' frames (formats/series_frame.h): what one process writes at the
// start, at every snapshot and at its end. Text, one item per line (docs/formats.md,
// "Time series"):
//
//   start:     world_size 4 / enable_level 2 / open_mpi 4.1.4 / job_start_us <t0> /
//              interval_us 1000000 / host <name> / pid <pid>        (one key per line)
//   snapshot:  <peer> <category> <messages> <bytes>[ <bucket>:<count>,...]   per record that changed
//              annotations <lines now> <lines changed>                      if the block changed
//              <index> <annotation line>                                    per changed line
//   final:     end <finalize | signal <n> | exit>, then as a snapshot
//
// Records hold what changed since the process's previous snapshot (sparse: only peers and
// categories whose totals moved); their sum over a process's frames is its totals.
// Annotation lines (the COLL and OSC layers' job-file lines, and whatever other layers add
// through the runtime's dump providers) are totals: the series keeps the process's whole
// block of them, as a list of lines, and writes the positions whose text changed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"

namespace mpimon::series {

struct SeriesStart {
  int world_size = 0;
  int enable_level = 0;
  std::string open_mpi_version;
  int64_t job_start_us = 0;  // the job's time 0: end of MPI_Init on rank 0 (same in every start frame)
  int64_t interval_us = 0;   // the snapshot interval
  std::string host;
  int64_t pid = 0;
};
std::string format_start_payload(const SeriesStart& start);

// Writer side. A process's totals as the encoder reads them: where each (peer,
// category)'s counters are (the live engine's blocks, read with relaxed atomic loads while
// the application records, or the records of a finished snapshot), sorted by (peer,
// category).
struct TotalsEntry {
  int32_t peer = 0;
  Category category = Category::external;
  const Counters* counters = nullptr;
};
using TotalsView = std::vector<TotalsEntry>;
TotalsView view_of(const Snapshot& records);

// The totals of the last snapshot that was written, and the payload of what changed
// since. Per snapshot it reads two words of each (peer, category) (its message and byte
// counts) and the whole histogram only of those that moved. A record's message count is
// taken as its histogram's sum: a message being counted during the read is then either
// wholly in this snapshot's counts or wholly in the next one's (its bytes may land in the
// other); each counter only grows, so sums over snapshots stay exact. A snapshot that could
// not be written is not committed: it is folded into the next one (nothing is lost while a
// disk is full).
class DeltaEncoder {
 public:
  std::string payload(const TotalsView& now, const std::vector<std::string>& annotation_lines,
                      std::string_view end_reason = {});
  bool changed() const { return changed_; }  // the last payload holds any change
  void commit();                             // the last payload reached the file

 private:
  Snapshot committed_;                                // sorted by (peer, category)
  std::vector<std::pair<size_t, Counters>> updates_;  // of the last payload: index in committed_, new totals
  Snapshot inserts_;                                  // of the last payload: new (peer, category), sorted
  std::vector<std::string> committed_lines_, pending_lines_;
  bool changed_ = false;
};

// The order of a payload's records and of the encoder's totals: by peer, then category.
inline bool record_before(const Record& a, const Record& b) {
  return a.peer != b.peer ? a.peer < b.peer : a.category < b.category;
}

// Splits text into lines (without their '\n'); a last line without '\n' counts too.
std::vector<std::string> split_lines(std::string_view text);

}  // namespace mpimon::series
