// Site log sizes and index cost (docs/performance.md "Site log"), from generated jobs made
// with the writer library itself: format_job_records (each rank's block, as the component
// formats it), format_site_annotations, assemble_job_file, gzip_compress, publish_site_log.
//
//   mpimon_bench_site_log sizes [ranks...]        (default 64 1000 100000)
//   mpimon_bench_site_log index <folder> <logs>   <logs> logs of 64 ranks in <folder>/YYYY/MM/DD,
//                                                 then `mpimon index`'s update twice (new, unchanged)
//
// The generated traffic: a 3-D halo (6 neighbours, r +- 1, +- n, +- n^2 with n = cbrt(ranks)),
// 200 messages of 8 KiB each, as external records; a binary-tree reduction (internal: 2
// children, coll: to the root's parent); 32 ranks per host. Reports only.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "files/site_log.h"
#include "formats/job_format.h"
#include "site_database.h"

namespace fs = std::filesystem;
using namespace mpimon;
using Clock = std::chrono::steady_clock;

namespace {

Counters counters(uint64_t messages, uint64_t bytes_each) {
  Counters c;
  c.messages = messages;
  c.bytes = messages * bytes_each;
  int bucket = 0;
  while (bucket < kHistogramBuckets - 1 && (uint64_t{1} << bucket) <= bytes_each) ++bucket;
  c.histogram[bytes_each == 0 ? 0 : bucket] = messages;
  return c;
}

// Rank r's records (sorted by peer, category).
Snapshot rank_records(int32_t rank, int32_t ranks, std::mt19937& random) {
  std::map<std::pair<int32_t, int>, Counters> by_peer;
  const int n = std::max(1, static_cast<int>(std::cbrt(static_cast<double>(ranks))));
  for (int step : {1, n, n * n})
    for (int sign : {-1, 1}) {
      const int32_t peer = ((rank + sign * step) % ranks + ranks) % ranks;
      if (peer == rank) continue;
      by_peer[{peer, static_cast<int>(Category::external)}] = counters(200 + random() % 8, 8192);
    }
  for (int32_t child : {2 * rank + 1, 2 * rank + 2})
    if (child < ranks) by_peer[{child, static_cast<int>(Category::internal)}] = counters(10, 64);
  if (rank > 0) by_peer[{(rank - 1) / 2, static_cast<int>(Category::coll)}] = counters(10, 64);
  Snapshot records;
  for (const auto& [key, c] : by_peer) records.push_back({key.first, static_cast<Category>(key.second), c});
  return records;
}

std::string job_text(int32_t ranks, uint32_t seed, const std::string& user, const std::string& start) {
  std::mt19937 random(seed);
  JobHeader header;
  header.world_size = ranks;
  header.enable_level = 2;
  header.open_mpi_version = "4.1.4";
  header.start_time = start;
  header.end_time = start;
  std::vector<std::string> blocks(ranks);
  std::vector<std::string> hosts(ranks);
  for (int32_t r = 0; r < ranks; ++r) {
    blocks[r] = format_job_records(r, rank_records(r, ranks, random));
    char host[32];
    std::snprintf(host, sizeof host, "node%05d", r / 32);
    hosts[r] = host;
  }
  blocks[0] += format_job_program("app");
  blocks[0] += format_site_annotations({user, "app", std::to_string(seed), 1000 + static_cast<long>(seed), 0}, hosts);
  return assemble_job_file(header, blocks);
}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int sizes(const std::vector<int32_t>& rank_counts) {
  std::printf(
      "| ranks | records | job text (bytes) | site log, gzip (bytes) | ratio | bytes per record (gzip) | assemble (ms) "
      "| compress (ms) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int32_t ranks : rank_counts) {
    const auto t0 = Clock::now();
    const std::string text = job_text(ranks, 1, "alice", "2026-11-29T01:00:00Z");
    const double assemble_ms = ms_since(t0);
    size_t records = 0;
    for (size_t at = text.find(" external "); at != std::string::npos; at = text.find(" external ", at + 1)) ++records;
    for (size_t at = text.find(" internal "); at != std::string::npos; at = text.find(" internal ", at + 1)) ++records;
    for (size_t at = text.find(" coll "); at != std::string::npos; at = text.find(" coll ", at + 1)) ++records;
    const auto t1 = Clock::now();
    const std::string packed = gzip_compress(text);
    const double compress_ms = ms_since(t1);
    std::printf("| %d | %zu | %zu | %zu | %.1f | %.1f | %.1f | %.1f |\n", ranks, records, text.size(), packed.size(),
                static_cast<double>(text.size()) / packed.size(), static_cast<double>(packed.size()) / records,
                assemble_ms, compress_ms);
  }
  return 0;
}

int index(const std::string& folder, int logs) {
  const std::string day = "2026/11/29";
  fs::create_directories(folder + "/" + day);
  const auto t0 = Clock::now();
  uint64_t bytes = 0;
  for (int i = 0; i < logs; ++i) {
    const std::string packed =
        gzip_compress(job_text(64, static_cast<uint32_t>(i), "user" + std::to_string(i % 50), "2026-11-29T01:00:00Z"));
    bytes += packed.size();
    const std::string path =
        folder + "/" + day + "/user" + std::to_string(i % 50) + "_app_id" + std::to_string(i) + "-1_010000.mpimon";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(packed.data(), 1, packed.size(), f) != packed.size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "mpimon_bench_site_log: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::printf("generated %d logs of 64 ranks (2 hosts), %.1f MB, in %.1f s\n", logs, bytes / 1e6, ms_since(t0) / 1000);
  const std::string database = folder + "/mpimon-index.sqlite";
  auto say = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const auto t1 = Clock::now();
  const tools::IndexReport first = tools::update_site_index(folder, database, 500, say);
  const double first_s = ms_since(t1) / 1000;
  const auto t2 = Clock::now();
  const tools::IndexReport second = tools::update_site_index(folder, database, 500, say);
  const double second_s = ms_since(t2) / 1000;
  struct stat st {};
  ::stat(database.c_str(), &st);
  std::printf(
      "| logs | first index (s) | per log (ms) | again, unchanged (s) | database (bytes) | per log (bytes) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %zu | %.2f | %.2f | %.2f (%zu unchanged) | %lld | %.0f |\n", first.added, first_s,
              first_s * 1000 / std::max<size_t>(first.added, 1), second_s, second.unchanged,
              static_cast<long long>(st.st_size), static_cast<double>(st.st_size) / std::max<size_t>(first.added, 1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "sizes";
  if (mode == "sizes") {
    std::vector<int32_t> counts;
    for (int i = 2; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
    if (counts.empty()) counts = {64, 1000, 100000};
    return sizes(counts);
  }
  if (mode == "index" && argc == 4) return index(argv[2], std::atoi(argv[3]));
  std::fprintf(stderr, "usage: mpimon_bench_site_log sizes [ranks...] | index <folder> <logs>\n");
  return 2;
}
