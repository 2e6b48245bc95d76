#include "formats/io_format.h"

#include <cstdio>
#include <map>

#include "formats/job_format.h"  // escape_name

namespace mpimon::mpi_io {

namespace {

std::string seconds_text(uint64_t ticks, double seconds_per_tick) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9f", static_cast<double>(ticks) * seconds_per_tick);
  return text;
}

// 66 comma-separated counts (the .prof histograms).
std::string dense_histogram(const Counters& c) {
  std::string out;
  for (int b = 0; b < kHistogramBuckets; ++b) {
    if (b) out += ',';
    out += std::to_string(c.histogram[b]);
  }
  return out;
}

// <bucket>:<count> of the non-zero buckets (the job file's histograms).
std::string sparse_histogram(const Counters& c) {
  std::string out;
  for (int b = 0; b < kHistogramBuckets; ++b) {
    if (c.histogram[b] == 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(b) + ':' + std::to_string(c.histogram[b]);
  }
  return out;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

std::vector<FileSummary> summarize(const FileRegistry& registry) {
  std::map<std::string, FileSummary> by_identity;
  registry.for_each([&](const FileRecord& record) {
    const std::string identity = record.identity().identity();
    auto [it, added] = by_identity.try_emplace(identity);
    FileSummary& s = it->second;
    if (added) s.identity = record.identity();
    if (s.identity.member_ranges.empty()) s.identity.member_ranges = record.identity().member_ranges;
    const std::string io = record.io_component(), fcoll = record.fcoll_component();
    if (!io.empty()) s.io = io;
    if (!fcoll.empty()) s.fcoll = fcoll;
    s.totals.merge(record.totals());
  });
  std::vector<FileSummary> out;
  out.reserve(by_identity.size());
  for (auto& [identity, summary] : by_identity) out.push_back(std::move(summary));
  return out;
}

std::string format_prof_files(int32_t me, const FileRegistry& registry, double seconds_per_tick) {
  const std::string rank = std::to_string(me);
  std::string out;
  for (const FileSummary& f : summarize(registry)) {
    const std::string id = f.identity.identity();
    const FileTotals& t = f.totals;
    out += "# IO_FILE\t" + rank + '\t' + id + '\t' + escape_name(f.identity.name, false) + '\t' + or_dash(f.io) + '\t' +
           or_dash(f.fcoll);
    for (int m = 0; m < kMetaOpCount; ++m)
      out += '\t' + std::to_string(t.meta[m]) + ' ' + meta_op_name(static_cast<MetaOp>(m));
    out += '\t' + std::to_string(t.nonblocking_calls) + " nonblocking\t" + std::to_string(t.split_calls) + " split\t" +
           std::to_string(t.collective_calls) + " collective\t" + std::to_string(t.aggregated_calls) + " aggregated\t" +
           seconds_text(t.ticks[0], seconds_per_tick) + " s read\t" + seconds_text(t.ticks[1], seconds_per_tick) +
           " s write\t" + seconds_text(t.ticks[2], seconds_per_tick) + " s meta\n";
    for (int a = 0; a < kAccessCount; ++a) {
      const Counters& c = t.asked[a];
      if (c.messages == 0) continue;
      out += "# IO_ASKED\t" + rank + '\t' + id + '\t' + access_name(static_cast<Access>(a)) + '\t' +
             std::to_string(c.messages) + " calls\t" + std::to_string(c.bytes) + " bytes\t" + dense_histogram(c) + '\n';
    }
    for (int d = 0; d < kDirectionCount; ++d) {
      const FsTotals& fs = t.fs[d];
      if (fs.operations == 0 && fs.entries.bytes == 0) continue;  // bytes: also a short write's
      out += "# IO_FS\t" + rank + '\t' + id + '\t' + direction_name(static_cast<Direction>(d)) + '\t' +
             std::to_string(fs.operations) + " ops\t" + std::to_string(fs.entries.messages) + " entries\t" +
             std::to_string(fs.entries.bytes) + " bytes\t" + std::to_string(fs.consecutive) + " consecutive\t" +
             std::to_string(fs.sequential) + " sequential\t" + std::to_string(fs.end) + " end\t" +
             dense_histogram(fs.entries) + '\n';
    }
    for (int d = 0; d < kDirectionCount; ++d) {
      const FsTotals& fs = t.fs[d];
      if (fs.failed_operations == 0) continue;
      out += "# IO_FS_FAILED\t" + rank + '\t' + id + '\t' + direction_name(static_cast<Direction>(d)) + '\t' +
             std::to_string(fs.failed_operations) + " failed ops\t" + std::to_string(fs.failed_bytes) +
             " failed bytes\n";
    }
    for (const auto& [peer, traffic] : t.shuffle) {
      out += "# IO_SHUFFLE\t" + rank + '\t' + id + '\t' + std::to_string(peer) + '\t' + std::to_string(traffic.bytes) +
             " bytes\t" + std::to_string(traffic.messages) + " msgs sent\n";
    }
  }
  return out;
}

std::string format_job_files(int32_t me, const FileRegistry& registry, double seconds_per_tick) {
  std::string out;
  const std::string rank = std::to_string(me);
  for (const FileSummary& f : summarize(registry)) {
    const std::string id = f.identity.identity();
    const FileTotals& t = f.totals;
    if (f.identity.first_member && !f.identity.member_ranges.empty())
      out += "io_file " + id + ' ' + escape_name(f.identity.name, true) + ' ' + f.identity.member_ranges + '\n';
    out += "io_rank " + rank + ' ' + id + ' ' + or_dash(f.io) + ' ' + or_dash(f.fcoll);
    for (const uint64_t n : t.meta) out += ' ' + std::to_string(n);
    out += ' ' + std::to_string(t.nonblocking_calls) + ' ' + std::to_string(t.split_calls) + ' ' +
           std::to_string(t.collective_calls) + ' ' + std::to_string(t.aggregated_calls);
    for (const uint64_t ticks : t.ticks) out += ' ' + seconds_text(ticks, seconds_per_tick);
    out += '\n';
    for (int a = 0; a < kAccessCount; ++a) {
      const Counters& c = t.asked[a];
      if (c.messages == 0) continue;
      out += "io_asked " + rank + ' ' + id + ' ' + access_name(static_cast<Access>(a)) + ' ' +
             std::to_string(c.messages) + ' ' + std::to_string(c.bytes) + ' ' + sparse_histogram(c) + '\n';
    }
    for (int d = 0; d < kDirectionCount; ++d) {
      const FsTotals& fs = t.fs[d];
      if (fs.operations == 0 && fs.entries.bytes == 0) continue;  // bytes: also a short write's
      out += "io_fs " + rank + ' ' + id + ' ' + direction_name(static_cast<Direction>(d)) + ' ' +
             std::to_string(fs.operations) + ' ' + std::to_string(fs.entries.messages) + ' ' +
             std::to_string(fs.entries.bytes) + ' ' + std::to_string(fs.consecutive) + ' ' +
             std::to_string(fs.sequential) + ' ' + std::to_string(fs.end) + ' ' +
             (fs.entries.messages ? sparse_histogram(fs.entries) : "-") + '\n';
    }
    for (int d = 0; d < kDirectionCount; ++d) {
      const FsTotals& fs = t.fs[d];
      if (fs.failed_operations == 0) continue;
      out += "io_fs_failed " + rank + ' ' + id + ' ' + direction_name(static_cast<Direction>(d)) + ' ' +
             std::to_string(fs.failed_operations) + ' ' + std::to_string(fs.failed_bytes) + '\n';
    }
    for (const auto& [peer, traffic] : t.shuffle)
      out += "io_shuffle " + rank + ' ' + id + ' ' + std::to_string(peer) + ' ' + std::to_string(traffic.messages) +
             ' ' + std::to_string(traffic.bytes) + '\n';
  }
  return out;
}

}  // namespace mpimon::mpi_io
