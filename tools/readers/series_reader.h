// Reading a time series: the folder <job file>.series of a job, finished, running or
// dead, one file per host (series/series_writer.h), frames (formats/series_frame.h) with the payloads of
// formats/series_format.h. Pure C++, used by the tools.
//
// Checks everything: frames of one job (the same world size, start and interval in every
// start frame), each rank's start before its snapshots, its intervals increasing, nothing
// after its end, payloads as the format says. Malformed content is a FormatError naming
// the file and the frame's offset ("<file>:<offset>: ..."). Damaged and torn frames are
// not errors (a process killed while writing leaves one): they are skipped and listed in
// the notes. Memory: O(ranks + the non-zeros being summed), never the whole series.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "formats/series_format.h"
#include "formats/series_frame.h"
#include "readers/format_error.h"
#include "readers/series_frame_reader.h"
#include "readers/series_payload_reader.h"

namespace mpimon::series {

struct RankProgress {
  uint64_t frames = 0;         // snapshot and final frames
  uint64_t last_interval = 0;  // of its last frame
  int64_t last_time_us = 0;
  std::string end_reason;  // its last frame's, when final ("finalize", "signal 15", "exit")
  std::string host;
};

struct SeriesInfo {
  std::string folder;
  SeriesStart job;                        // world_size, enable_level, open_mpi, job_start_us, interval_us
  std::map<int32_t, RankProgress> ranks;  // ranks with a start frame
  std::vector<std::string> notes;         // skipped bytes, ranks without frames
  uint64_t last_interval = 0;             // over all ranks
  double interval_seconds() const { return static_cast<double>(job.interval_us) / 1e6; }
  // Every rank of the job ended in MPI_Finalize.
  bool finished() const;
  // One line: "finished ..." or "did not finish: ..." (which ranks ended how, and when).
  std::string describe_end() const;
};

// One snapshot or final frame, checked.
struct SeriesFrame {
  int32_t rank = 0;
  uint64_t interval = 0;
  int64_t time_us = 0;
  FrameKind kind = FrameKind::snapshot;
  const SnapshotDelta* delta = nullptr;
  std::string_view where;       // "<file>:<offset>", for messages
  double interval_seconds = 1;  // the job's snapshot interval
};

// The files of a series folder (regular files, not hidden), sorted. Throws FormatError if
// the folder cannot be listed or holds none.
std::vector<std::string> series_files(const std::string& folder);

// Reads every file of the folder; on_frame gets each rank's snapshot and final frames in
// order (files one after the other). Throws FormatError.
SeriesInfo read_series(const std::string& folder, const std::function<void(const SeriesFrame&)>& on_frame);

// The same for one file's bytes in memory, named `name` (the fuzz target).
SeriesInfo read_series_text(const std::string& name, std::string_view bytes,
                            const std::function<void(const SeriesFrame&)>& on_frame);
// How a series is read: read_series over a folder, read_series_text over bytes.
using SeriesReading = std::function<SeriesInfo(const std::function<void(const SeriesFrame&)>& on_frame)>;

// Seconds since the job's start; an interval k covers (k-1)·I to k·I.
struct TimeRange {
  double from = 0;
  double to = std::numeric_limits<double>::infinity();
  bool contains_interval(uint64_t k, double interval_seconds) const;
};

// Sums a series' frames over a time range into what a job file holds: per-peer records
// (their increases within the range) and each rank's annotation lines at the range's end
// (annotations are totals).
class SeriesTotals {
 public:
  explicit SeriesTotals(TimeRange range = {}) : range_(range) {}
  void add(const SeriesFrame& frame);
  // A job file (formats/job_format.h) of the range: header from `info`, then each rank's block.
  std::string job_file_text(const SeriesInfo& info) const;
  uint64_t frames_in_range() const { return frames_in_range_; }

 private:
  struct Sum {
    int32_t peer;
    Category category;
    uint64_t messages = 0, bytes = 0;
    std::vector<std::pair<uint8_t, uint64_t>> buckets;  // non-zero histogram buckets, in order
  };
  struct RankSums {
    std::vector<Sum> records;  // sorted by (peer, category)
    std::vector<std::string> annotations;
  };
  TimeRange range_;
  std::map<int32_t, RankSums> ranks_;
  uint64_t frames_in_range_ = 0;
};

}  // namespace mpimon::series
