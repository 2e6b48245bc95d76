#include "readers/series_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "formats/job_format.h"

namespace mpimon::series {

namespace fs = std::filesystem;

namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

std::string ranks_phrase(const std::vector<int32_t>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + format_rank_ranges(ranks);
}

// The ranks of [0, world_size) with no start frame, as "rank 5" or "ranks 2-3,7-99999":
// from the gaps between the ranks present (never one entry per missing rank: a hostile
// world size of 2^31 costs nothing).
std::string missing_ranks(const std::map<int32_t, RankProgress>& present, int32_t world_size) {
  std::string out;
  int64_t missing = 0;
  int32_t next = 0;
  auto gap = [&](int32_t from, int32_t to) {  // [from, to)
    if (from >= to) return;
    if (!out.empty()) out += ',';
    out += std::to_string(from);
    if (to - from > 1) out += "-" + std::to_string(to - 1);
    missing += to - from;
  };
  for (const auto& [rank, progress] : present) {
    gap(next, rank);
    next = rank + 1;
  }
  gap(next, world_size);
  return missing == 0 ? "" : (missing == 1 ? "rank " : "ranks ") + out;
}

std::string reason_phrase(const std::string& reason) {
  if (reason == "finalize") return "MPI_Finalize";
  if (reason == "exit") return "exit without MPI_Finalize";
  if (reason == "signal 15") return "SIGTERM";
  return reason;
}

}  // namespace

bool SeriesInfo::finished() const {
  if (job.world_size <= 0 || ranks.size() != static_cast<size_t>(job.world_size)) return false;
  for (const auto& [rank, progress] : ranks)
    if (progress.end_reason != "finalize") return false;
  return true;
}

std::string SeriesInfo::describe_end() const {
  int64_t last_us = job.job_start_us;
  for (const auto& [rank, p] : ranks) last_us = std::max(last_us, p.last_time_us);
  const std::string last = seconds_text(static_cast<double>(last_us - job.job_start_us) / 1e6);
  if (finished()) return "finished: every rank reached MPI_Finalize (last snapshot at " + last + ")";
  // Ranks grouped by how they ended and in which interval.
  std::map<std::pair<std::string, uint64_t>, std::pair<std::vector<int32_t>, int64_t>> groups;
  for (const auto& [r, p] : ranks) {
    auto& group = groups[{p.end_reason, p.last_interval}];
    group.first.push_back(r);
    group.second = std::max(group.second, p.last_time_us);
  }
  std::string out = "did not finish (data up to its last snapshot, at " + last + ")";
  size_t shown = 0;
  for (const auto& [key, group] : groups) {
    if (++shown > 8) {
      out += "; and " + std::to_string(groups.size() - 8) + " more groups of ranks";
      break;
    }
    const std::string when = seconds_text(static_cast<double>(group.second - job.job_start_us) / 1e6);
    out += "; " + ranks_phrase(group.first) +
           (key.first.empty() ? ": no final snapshot (killed?), last at " + when
                              : ": final snapshot at " + reason_phrase(key.first) + ", " + when);
  }
  if (const std::string silent = missing_ranks(ranks, job.world_size); !silent.empty())
    out += "; " + silent + ": no frames at all";
  return out;
}

bool TimeRange::contains_interval(uint64_t k, double interval_seconds) const {
  const double end = static_cast<double>(k) * interval_seconds;
  constexpr double kSlack = 1e-9;
  return end > from + kSlack && end <= to + kSlack;
}

std::vector<std::string> series_files(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  if (ec) throw FormatError(folder + ": cannot list the series folder: " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (entry.is_regular_file(ec)) files.push_back(entry.path().string());
  }
  if (files.empty()) throw FormatError(folder + ": expected series files (one per host), found none");
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// Reading the frames of one series, file after file (a folder's, or bytes in memory).
class SeriesScan {
 public:
  SeriesScan(std::string folder, const std::function<void(const SeriesFrame&)>& on_frame) : on_frame_(on_frame) {
    info_.folder = std::move(folder);
  }

  // Scans one file: `scan(on_frame, issues)` calls back with its frames.
  template <typename Scan>
  void file(const std::string& path, Scan&& scan) {
    std::vector<ScanIssue> issues;
    scan([&](const Frame& frame) { this->frame(path, frame); }, issues);
    for (const ScanIssue& issue : issues) {
      const std::string span = std::to_string(issue.bytes) + " bytes at offset " + std::to_string(issue.offset);
      info_.notes.push_back(path + ": " + span +
                            (issue.kind == ScanIssue::torn_tail
                                 ? " end in a torn write (a process killed while writing, or a job still running): "
                                   "dropped"
                                 : " hold no valid frame (a write torn by a killed process, or one that failed and "
                                   "was written again later): skipped"));
    }
  }

  SeriesInfo finish() {
    if (!have_job_) throw FormatError(info_.folder + ": expected a start frame in its files, found none");
    if (const std::string silent = missing_ranks(info_.ranks, info_.job.world_size); !silent.empty())
      info_.notes.push_back(info_.folder + ": no frames from " + silent +
                            " (their processes could not write here, or died before the end of MPI_Init)");
    return std::move(info_);
  }

 private:
  void frame(const std::string& path, const Frame& frame) {
    const std::string where = path + ":" + std::to_string(frame.offset);
    auto fail = [&](const std::string& expected) { throw FormatError(where + ": expected " + expected); };
    const int32_t rank = frame.header.rank;
    if (frame.header.kind == FrameKind::start) {
      const SeriesStart start = parse_start_payload(frame.payload, where);
      if (!have_job_) {
        info_.job = start;
        have_job_ = true;
      } else if (start.world_size != info_.job.world_size || start.job_start_us != info_.job.job_start_us ||
                 start.interval_us != info_.job.interval_us || start.enable_level != info_.job.enable_level) {
        fail("the same job as the series' other start frames (world size " + std::to_string(info_.job.world_size) +
             ", start " + std::to_string(info_.job.job_start_us) + ", interval " +
             std::to_string(info_.job.interval_us) + " us)");
      }
      if (rank >= info_.job.world_size)
        fail("a rank below the world size " + std::to_string(info_.job.world_size) + ", found " + std::to_string(rank));
      if (!info_.ranks.try_emplace(rank).second) fail("one start frame for rank " + std::to_string(rank));
      info_.ranks[rank].host = start.host;
      return;
    }
    auto it = info_.ranks.find(rank);
    if (it == info_.ranks.end()) fail("rank " + std::to_string(rank) + "'s start frame before its snapshots");
    RankProgress& progress = it->second;
    if (progress.end_reason == "finalize" || progress.end_reason == "exit")
      fail("no frame after rank " + std::to_string(rank) + "'s end (" + progress.end_reason + ")");
    if (frame.header.interval <= progress.last_interval)
      fail("rank " + std::to_string(rank) + "'s intervals increasing, found " + std::to_string(frame.header.interval) +
           " after " + std::to_string(progress.last_interval));
    const bool final = frame.header.kind == FrameKind::final;
    const SnapshotDelta delta = parse_snapshot_payload(frame.payload, final, info_.job.world_size, where);
    ++progress.frames;
    progress.last_interval = frame.header.interval;
    progress.last_time_us = frame.header.time_us;
    progress.end_reason = final ? delta.end_reason : "";
    info_.last_interval = std::max(info_.last_interval, frame.header.interval);
    on_frame_(SeriesFrame{rank, frame.header.interval, frame.header.time_us, frame.header.kind, &delta, where,
                          info_.interval_seconds()});
  }

  const std::function<void(const SeriesFrame&)>& on_frame_;
  SeriesInfo info_;
  bool have_job_ = false;
};

}  // namespace

SeriesInfo read_series(const std::string& folder, const std::function<void(const SeriesFrame&)>& on_frame) {
  SeriesScan scan(folder, on_frame);
  for (const std::string& path : series_files(folder))
    scan.file(path, [&](auto&& on, std::vector<ScanIssue>& issues) { scan_frame_file(path, on, issues); });
  return scan.finish();
}

SeriesInfo read_series_text(const std::string& name, std::string_view bytes,
                            const std::function<void(const SeriesFrame&)>& on_frame) {
  SeriesScan scan(name, on_frame);
  scan.file(name, [&](auto&& on, std::vector<ScanIssue>& issues) { scan_frames(bytes, on, issues); });
  return scan.finish();
}

void SeriesTotals::add(const SeriesFrame& frame) {
  const double interval_seconds = frame.interval_seconds;
  RankSums& sums = ranks_[frame.rank];
  if (frame.delta->annotations_changed && static_cast<double>(frame.interval) * interval_seconds <= range_.to + 1e-9)
    apply_annotation_changes(*frame.delta, sums.annotations);
  if (!range_.contains_interval(frame.interval, interval_seconds)) return;
  ++frames_in_range_;
  auto add_checked = [&](uint64_t& total, uint64_t amount) {
    if (amount >= kCountLimit || total + amount >= kCountLimit)
      throw FormatError(std::string(frame.where) + ": expected totals below 2^60 (1 EiB) (rank " +
                        std::to_string(frame.rank) + ")");
    total += amount;
  };
  std::vector<Sum> merged;
  merged.reserve(sums.records.size() + frame.delta->records.size());
  auto old = sums.records.begin();
  auto before = [](int32_t p1, Category c1, int32_t p2, Category c2) { return p1 != p2 ? p1 < p2 : c1 < c2; };
  for (const Record& r : frame.delta->records) {
    while (old != sums.records.end() && before(old->peer, old->category, r.peer, r.category))
      merged.push_back(std::move(*old++));
    Sum s{r.peer, r.category, 0, 0, {}};
    if (old != sums.records.end() && old->peer == r.peer && old->category == r.category) s = std::move(*old++);
    add_checked(s.messages, r.counters.messages);
    add_checked(s.bytes, r.counters.bytes);
    for (int b = 0; b < kHistogramBuckets; ++b) {
      if (r.counters.histogram[b] == 0) continue;
      auto bucket = std::lower_bound(s.buckets.begin(), s.buckets.end(), std::pair<uint8_t, uint64_t>(b, 0),
                                     [](const auto& x, const auto& y) { return x.first < y.first; });
      if (bucket == s.buckets.end() || bucket->first != b)
        bucket = s.buckets.insert(bucket, {static_cast<uint8_t>(b), 0});
      add_checked(bucket->second, r.counters.histogram[b]);
    }
    merged.push_back(std::move(s));
  }
  while (old != sums.records.end()) merged.push_back(std::move(*old++));
  sums.records = std::move(merged);
}

std::string SeriesTotals::job_file_text(const SeriesInfo& info) const {
  JobHeader header;
  header.world_size = info.job.world_size;
  header.enable_level = info.job.enable_level;
  header.open_mpi_version = info.job.open_mpi_version;
  int64_t last_us = info.job.job_start_us;
  for (const auto& [rank, p] : info.ranks) last_us = std::max(last_us, p.last_time_us);
  header.start_time = iso8601_utc(info.job.job_start_us / 1000000);
  header.end_time = iso8601_utc(last_us / 1000000);
  // Version 1: no integrity trailer, which would need a block for every rank of the world
  // size the start frames claim (memory stays with the non-zeros); the frames were checked.
  std::string out = format_job_header(header, 1);
  for (const auto& [rank, sums] : ranks_) {
    Snapshot records;  // this rank's only: transient
    for (const Sum& s : sums.records) {
      if (s.messages == 0) continue;  // only bytes of a message counted after the range's end
      Record r;
      r.peer = s.peer;
      r.category = s.category;
      r.counters.messages = s.messages;
      r.counters.bytes = s.bytes;
      for (const auto& [bucket, count] : s.buckets) r.counters.histogram[bucket] = count;
      records.push_back(r);
    }
    out += format_job_records(rank, records);
    for (const std::string& line : sums.annotations) out += line + '\n';
  }
  return out;
}

}  // namespace mpimon::series
