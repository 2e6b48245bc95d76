// Reading the payloads of the time series' frames (formats/series_format.h). Pure C++,
// in mpimon_readers: the tools and tests link it, the runtime library never does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "formats/series_format.h"

namespace mpimon::series {

// `where` prefixes error messages ("<file>:<offset>"). Throws FormatError.
SeriesStart parse_start_payload(std::string_view payload, std::string_view where);

struct AnnotationChange {
  uint32_t index = 0;
  std::string line;
};

struct SnapshotDelta {
  std::string end_reason;  // final frames: "finalize", "signal <n>", "exit"
  Snapshot records;        // increases, sorted by (peer, category)
  bool annotations_changed = false;
  uint32_t annotation_count = 0;  // lines in the process's block from now on
  std::vector<AnnotationChange> annotation_changes;
};
// Peers must be below `world_size`. Throws FormatError ("<where>: line <n>: expected ...").
SnapshotDelta parse_snapshot_payload(std::string_view payload, bool final, int world_size, std::string_view where);
// Applies a delta's annotation changes to a process's block of lines.
void apply_annotation_changes(const SnapshotDelta& delta, std::vector<std::string>& lines);

}  // namespace mpimon::series
