// Placement across hosts, end to end on emulated hosts: the rankfile `mpimon place
// --hostfile` writes is accepted by mpirun with that hostfile and crosses hosts as
// printed; mpimon_reorder() honours where processes really run.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "cluster.h"
#include "crossing.h"

using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;
const std::string kExample = MPIMON_EXAMPLE;
const std::string kReorderPatterns = MPIMON_REORDER_PATTERNS;

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
  const JobResult placed =
      cluster.run_job_in(rerun_folder, 8, concat_arguments(rankfile_arguments("rf"), partners_job()));
  ASSERT_EQ(placed.exit_code, 0) << read_text(rerun_folder / "rf") << placed.output;
  // Each rank ran on the host the rankfile names (as the hostfile does: hostN is
  // 10.200.0.1N on 4.1, hostN on 5.0).
  const auto hosts = hosts_of(placed.output);
  std::ifstream rankfile(rerun_folder / "rf");
  static const std::regex entry(R"(rank (\d+)=(?:10\.200\.0\.1|host)(\d) slot=)");
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
    rankfile << "rank " << r << "=" << cluster.node_name(r % 4 < 2 ? 1 : 2) << " slot=" << r % 2 << "\n";
  rankfile.close();
  const auto [before, after] = reorder_crossing(cluster, rankfile_arguments("rf"), folder);
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(after, 0u);
}

namespace {

// The paper's binary-tree reduce (reorder_patterns treereduce, 64 Ki ints): bytes crossing
// hosts (E + I, from the run's own job file) of one reduce in `layout`, as the difference
// between runs of 1 + 3 and 1 + 1 reduces (the first reduce, the reordering and the
// program's start and end are the same in both and cancel).
uint64_t crossing_per_reduce(const EmulatedCluster& cluster, const std::filesystem::path& folder, int ranks,
                             const std::vector<std::string>& layout, bool reorder, const std::string& name) {
  uint64_t crossing[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    const std::string job = name + "." + std::to_string(run) + ".txt";
    std::vector<std::string> program = {kReorderPatterns, "treereduce", "65536", run == 0 ? "1" : "3"};
    if (reorder) program.push_back("reorder");
    const JobResult r = cluster.run_job_in(folder, ranks,
                                           concat_arguments(concat_arguments(layout, binary_tree_reduce_arguments()),
                                                            concat_arguments({"--mca", "pml_monitoring_enable", "2",
                                                                              "--mca", "pml_monitoring_job_file", job},
                                                                             program)));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return ~0ull;
    crossing[run] = crossing_bytes(folder / job, hosts_of(r.output), true);
  }
  return (crossing[1] - crossing[0]) / 2;
}

void expect_reorder_in_the_run_as_good_as_the_rankfile(int hosts, int slots) {
  EmulatedCluster cluster(hosts, slots);
  const int ranks = hosts * slots;
  const auto folder = new_test_folder();
  // The monitored run by slot, placed by its internal traffic (the tree), as the paper does.
  const JobResult monitored =
      cluster.run_job_in(folder, ranks,
                         concat_arguments(binary_tree_reduce_arguments(),
                                          {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file",
                                           "monitored.txt", kReorderPatterns, "treereduce", "65536", "1"}));
  ASSERT_EQ(monitored.exit_code, 0) << monitored.output;
  const JobResult place =
      run_shell(folder, MPIMON_BIN " place monitored.txt --hostfile hostfile --category internal --rankfile rf");
  ASSERT_EQ(place.exit_code, 0) << place.output;

  const uint64_t by_slot = crossing_per_reduce(cluster, folder, ranks, {"--map-by", "slot"}, false, "slot");
  const uint64_t rankfile = crossing_per_reduce(cluster, folder, ranks, rankfile_arguments("rf"), false, "rankfile");
  const uint64_t reordered = crossing_per_reduce(cluster, folder, ranks, {"--map-by", "slot"}, true, "reorder");
  std::printf(
      "binary-tree reduce of 256 KiB on %d hosts x %d: bytes crossing hosts per reduce: by slot %llu, "
      "place --category internal + rankfile %llu, mpimon_reorder() in the run %llu\n",
      hosts, slots, static_cast<unsigned long long>(by_slot), static_cast<unsigned long long>(rankfile),
      static_cast<unsigned long long>(reordered));
  EXPECT_LT(rankfile, by_slot) << place.output;
  EXPECT_LE(reordered, rankfile);
}

// The Cartesian program (mpi_patterns cart: a 2-D halo exchange of 64 KiB on a Cartesian
// communicator made with reorder = 1), round-robin over the hosts, monitored into `job`.
JobResult cart_job(const EmulatedCluster& cluster, const std::filesystem::path& folder, int ranks,
                   const std::string& job, const std::vector<std::string>& extra = {}) {
  return cluster.run_job_in(folder, ranks,
                            concat_arguments(concat_arguments({"--map-by", "node", "--mca", "pml_monitoring_enable",
                                                               "2", "--mca", "pml_monitoring_job_file", job},
                                                              extra),
                                             {kPatterns, "cart", "65536"}));
}

// Cart rank -> world rank, from "cart: world rank <w> is cart rank <c>" lines.
std::map<int, int> cart_ranks(const std::string& output) {
  std::map<int, int> world_of;
  static const std::regex line(R"(cart: world rank (\d+) is cart rank (\d+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    world_of[std::stoi((*it)[2])] = std::stoi((*it)[1]);
  return world_of;
}

void expect_cart_placed_by_job_file(int hosts, int slots) {
  EmulatedCluster cluster(hosts, slots);
  const int ranks = hosts * slots;
  const auto folder = new_test_folder();
  // A first run: reorder = 1 without a job file is Open MPI's default (no reordering).
  const JobResult first = cart_job(cluster, folder, ranks, "first.txt");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto identity = cart_ranks(first.output);
  ASSERT_EQ(identity.size(), static_cast<size_t>(ranks)) << first.output;
  for (const auto& [cart, world] : identity) EXPECT_EQ(cart, world) << first.output;
  const uint64_t before = crossing_bytes(folder / "first.txt", hosts_of(first.output));

  const JobResult place =
      run_shell(folder, MPIMON_BIN " place first.txt --hostfile hostfile --category external --rankfile rf");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_EQ(before, printed_crossing(place.output, "round-robin by host")) << place.output;
  const uint64_t predicted = printed_crossing(place.output, "mpimon");
  EXPECT_LT(predicted, before) << place.output;

  // The same program, pointed at the first run's job file: its Cartesian ranks are placed.
  const JobResult second =
      cart_job(cluster, folder, ranks, "second.txt",
               {"--mca", "topo_monitoring_job_file", "first.txt", "--mca", "topo_monitoring_verbose", "1"});
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("topo_monitoring: by first.txt: " + std::to_string(ranks) + " processes on " +
                               std::to_string(hosts) + " host(s)"),
            std::string::npos)
      << second.output;
  EXPECT_EQ(cart_ranks(second.output).size(), static_cast<size_t>(ranks)) << second.output;
  const uint64_t after = crossing_bytes(folder / "second.txt", hosts_of(second.output));
  EXPECT_EQ(after, predicted) << second.output;
  std::printf(
      "Cartesian halo exchange on %d hosts x %d, round-robin: bytes crossing hosts %llu without the job "
      "file, %llu with it (mpimon place predicts %llu)\n",
      hosts, slots, static_cast<unsigned long long>(before), static_cast<unsigned long long>(after),
      static_cast<unsigned long long>(predicted));
}

}  // namespace

TEST(ClusterReorder, TheBinaryTreeReduceReorderedInTheRunCrossesNoMoreThanThePlacedRankfile2Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  expect_reorder_in_the_run_as_good_as_the_rankfile(2, 4);
}

TEST(ClusterReorder, TheBinaryTreeReduceReorderedInTheRunCrossesNoMoreThanThePlacedRankfile4Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  expect_reorder_in_the_run_as_good_as_the_rankfile(4, 2);
}

TEST(ClusterTopo, ACartesianCommunicatorWithReorderIsPlacedByAPreviousRunsJobFile2Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  expect_cart_placed_by_job_file(2, 4);
}

TEST(ClusterTopo, ACartesianCommunicatorWithReorderIsPlacedByAPreviousRunsJobFile4Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  expect_cart_placed_by_job_file(4, 2);
}
