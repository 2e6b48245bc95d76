// Placement across hosts, end to end on emulated hosts: the rankfile `mpimon place
// --hostfile` writes is accepted by mpirun with that hostfile and crosses hosts as
// printed; mpimon_reorder() honours where processes really run.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "cluster.h"
#include "formats/job_format.h"
#include "readers/job_reader.h"

using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;
const std::string kExample = MPIMON_EXAMPLE;

// rank -> host name, from mpi_patterns' "rank <r>: host <name>" lines.
std::map<int, std::string> hosts_of(const std::string& output) {
  std::map<int, std::string> hosts;
  static const std::regex line(R"(rank (\d+): host (\S+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    hosts[std::stoi((*it)[1])] = (*it)[2];
  return hosts;
}

// Application bytes (E records) between ranks on different hosts, from a job file.
uint64_t crossing_bytes(const std::filesystem::path& job_file, const std::map<int, std::string>& hosts) {
  uint64_t crossing = 0;
  for (const mpimon::JobRecord& r : mpimon::read_job_file(job_file.string()).records)
    if (r.category == mpimon::Category::external && hosts.at(r.source) != hosts.at(r.destination))
      crossing += r.counters.bytes;
  return crossing;
}

// "| <placement> | <hop-bytes> | <bytes crossing hosts> |" of mpimon place's table.
uint64_t printed_crossing(const std::string& place_output, const std::string& placement) {
  const std::regex row("\\| " + placement + R"( \| [0-9.e+]+ \| ([0-9]+) \|)");
  std::smatch m;
  if (!std::regex_search(place_output, m, row))
    throw std::runtime_error("no row '" + placement + "' in:\n" + place_output);
  return std::stoull(m[1]);
}

std::vector<std::string> partners_job() {
  return concat_arguments({"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file", "job.txt"},
                          {kPatterns, "partners"});
}

}  // namespace

TEST(ClusterPlacement, RankfileForTheHostfileIsAcceptedAndCrossesHostsAsPrinted2Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 4);
  // By slot, every partner pair (r, r + 4) is split between the hosts.
  const JobResult by_slot = cluster.run_job(8, partners_job());
  ASSERT_EQ(by_slot.exit_code, 0) << by_slot.output;
  const auto hosts_by_slot = hosts_of(by_slot.output);
  ASSERT_EQ(hosts_by_slot.size(), 8u) << by_slot.output;
  EXPECT_EQ(crossing_bytes(by_slot.folder / "job.txt", hosts_by_slot), 8u * 65536);

  const JobResult place =
      run_shell(by_slot.folder, MPIMON_BIN " place job.txt --hostfile hostfile --rankfile rf --category external");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_EQ(printed_crossing(place.output, "by-slot"), 8u * 65536) << place.output;

  // The rerun with the rankfile, in a folder of its own.
  const auto rerun_folder = new_test_folder();
  std::filesystem::copy_file(by_slot.folder / "rf", rerun_folder / "rf");
  const JobResult placed = cluster.run_job_in(rerun_folder, 8, concat_arguments({"--rankfile", "rf"}, partners_job()));
  ASSERT_EQ(placed.exit_code, 0) << read_text(rerun_folder / "rf") << placed.output;
  // Each rank ran on the host the rankfile names (by address; hostN is 10.200.0.1N).
  const auto hosts = hosts_of(placed.output);
  std::ifstream rankfile(rerun_folder / "rf");
  static const std::regex entry(R"(rank (\d+)=10\.200\.0\.1(\d) slot=)");
  int entries = 0;
  for (std::string line; std::getline(rankfile, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, entry)) continue;
    ++entries;
    EXPECT_EQ(hosts.at(std::stoi(m[1])), cluster.hostname(std::stoi(m[2]))) << line;
  }
  EXPECT_EQ(entries, 8) << read_text(rerun_folder / "rf");
  EXPECT_EQ(crossing_bytes(rerun_folder / "job.txt", hosts), printed_crossing(place.output, "mpimon")) << place.output;
  EXPECT_EQ(printed_crossing(place.output, "mpimon"), 0u) << place.output;
}

namespace {

// mpimon_example reorder over the cluster: "reorder: bytes crossing hosts <before>
// before, <after> after; ..." (partners r and r + 4 exchange 64 KiB each way).
std::pair<uint64_t, uint64_t> reorder_crossing(const EmulatedCluster& cluster, const std::vector<std::string>& layout,
                                               const std::filesystem::path& folder) {
  const JobResult job = cluster.run_job_in(
      folder, 8, concat_arguments(layout, {"--mca", "pml_monitoring_enable", "2", kExample, "reorder"}));
  EXPECT_EQ(job.exit_code, 0) << job.output;
  std::smatch m;
  static const std::regex line(R"(reorder: bytes crossing hosts (\d+) before, (\d+) after)");
  if (!std::regex_search(job.output, m, line)) {
    ADD_FAILURE() << "no crossing line in:\n" << job.output;
    return {~0ull, ~0ull};
  }
  return {std::stoull(m[1]), std::stoull(m[2])};
}

}  // namespace

TEST(ClusterReorder, PartnersApartComeTogether2Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 4);
  // By slot: ranks 0-3 on host1, 4-7 on host2, every pair split.
  const auto [before, after] = reorder_crossing(cluster, {"--map-by", "slot"}, new_test_folder());
  EXPECT_EQ(before, 8u * 65536);
  EXPECT_EQ(after, 0u);
}

TEST(ClusterReorder, PartnersTogetherStayTogether2Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 4);
  // A rankfile that puts each pair (r, r + 4) on one host: 0,1,4,5 on host1, the rest on host2.
  const auto folder = new_test_folder();
  std::ofstream rankfile(folder / "rf");
  for (int r = 0; r < 8; ++r)
    rankfile << "rank " << r << "=" << cluster.address(r % 4 < 2 ? 1 : 2) << " slot=" << r % 2 << "\n";
  rankfile.close();
  const auto [before, after] = reorder_crossing(cluster, {"--rankfile", "rf"}, folder);
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(after, 0u);
}
