// mpimon place end to end: from a real job's dump to a rankfile mpirun accepts.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {
const std::string kExample = MPIMON_EXAMPLE;
}

TEST(Place, RankfileForThisMachineIsAcceptedByMpirun2Ranks) {
  const JobResult job = run_job(2, {"--mca", "pml_monitoring_enable", "2", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobResult place =
      run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --topology machine --rankfile rf --keys keys");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("| mpimon |"), std::string::npos) << place.output;
  const JobResult placed = run_shell(job.folder, MPIRUN_EXECUTABLE " -np 2 --rankfile rf " + kExample + " ring");
  EXPECT_EQ(placed.exit_code, 0) << read_text(job.folder / "rf") << placed.output;
  EXPECT_EQ(read_text(job.folder / "keys").substr(0, 6), "# rank");
}

TEST(Place, BinaryTreeReduceOnTwoPackagesCrossesOnce8Ranks) {
  const JobResult job =
      run_job(8, concat_arguments({"--mca", "pml_monitoring_enable", "2"},
                                  concat_arguments(binary_tree_reduce_arguments(), {kExample, "reduce"})));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobResult place =
      run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --category internal --topology 'pack:2 core:4 pu:1'");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("| by-slot | 1408 | 256 |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| mpimon | 1024 | 64 |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("mpimon: optimal"), std::string::npos) << place.output;
}

TEST(Place, BadTopologyAndTooManyProcessesAreClearErrors4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobResult bad = run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --topology 'bogus:3'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("neither a file nor a valid synthetic topology"), std::string::npos) << bad.output;
  const JobResult small = run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --topology 'pack:1 core:2 pu:1'");
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_NE(small.output.find("4 processes do not fit on 2 cores"), std::string::npos) << small.output;
}

// Ranks -> core from place's mapping table ("| 3 | localhost | 1 |") and from mpirun's
// --report-bindings ("MCW rank 3 bound to socket 0[core 1[hwt 0]]").
std::map<int, int> cores_in(const std::string& text, const std::regex& pattern) {
  std::map<int, int> cores;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
    cores[std::stoi((*it)[1])] = std::stoi((*it)[2]);
  return cores;
}

TEST(PlaceHostfile, RankfileIsAcceptedWithTheHostfileAndBindsAsPrinted4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", kExample, "halo"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  std::ofstream(job.folder / "hf") << "# this machine, 2 processes per core\nlocalhost slots=4\n";
  const JobResult place = run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --hostfile hf --rankfile rf");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("| placement | hop-bytes | bytes crossing hosts |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| round-robin by host |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("(mpirun --hostfile hf --rankfile rf)"), std::string::npos) << place.output;
  std::string rankfile;
  for (const std::string& a : rankfile_arguments("rf")) rankfile += a + " ";
  const JobResult placed =
      run_shell(job.folder, MPIRUN_EXECUTABLE " --hostfile hf " + rankfile +
                                "--report-bindings --mca mpi_yield_when_idle 1 " + kExample + " halo");
  ASSERT_EQ(placed.exit_code, 0) << read_text(job.folder / "rf") << placed.output;
  const auto printed = cores_in(place.output, std::regex(R"(\| (\d+) \| localhost \| (\d+) \|)"));
  // 4.1: "MCW rank 3 bound to socket 0[core 1[hwt 0]]"; 5.0: "Rank 3 bound to package[0][core:1]".
  const auto bound =
      cores_in(placed.output,
               std::regex(R"((?:MCW rank|Rank) (\d+) bound to (?:socket \d+\[core |package\[\d+\]\[core:)(\d+))"));
  EXPECT_EQ(printed.size(), 4u) << place.output;
  EXPECT_EQ(printed, bound) << place.output << placed.output;
}

TEST(PlaceHostfile, BinaryTreeReduceOnTwoHostsCrossesOnce8Ranks) {
  const JobResult job =
      run_job(8, concat_arguments({"--mca", "pml_monitoring_enable", "2"},
                                  concat_arguments(binary_tree_reduce_arguments(), {kExample, "reduce"})));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  std::ofstream(job.folder / "hosts") << "node1 slots=4\nnode2 slots=4\n";
  const JobResult place = run_shell(job.folder, MPIMON_BIN
                                    " place mpimon-job.txt --hostfile hosts --category internal "
                                    "--topology 'pack:2 core:2 pu:1' --rankfile rf --scotch-rankfile rfs");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  // Edges 1,2->0; 3,5->1; 4,6->2; 7->3 of 64 bytes: by-slot (ranks 0-3 | 4-7) cuts four of
  // them; round-robin and the optimum one (the optimum with fewer hops inside the hosts).
  EXPECT_NE(place.output.find("| by-slot | 2176 | 256 |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| round-robin by host | 1664 | 64 |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| Scotch | "), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| mpimon | 1536 | 64 |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("mpimon: optimal"), std::string::npos) << place.output;
  const std::string rankfile = read_text(job.folder / "rf");
  EXPECT_NE(rankfile.find("rank 0=node1 slot="), std::string::npos) << rankfile;
  EXPECT_NE(rankfile.find("rank 7=node"), std::string::npos) << rankfile;
  // Scotch's mapping as a rankfile too: every rank once, on the hostfile's hosts.
  const std::string scotch = read_text(job.folder / "rfs");
  EXPECT_TRUE(std::regex_match(scotch, std::regex(R"((rank [0-7]=node[12] slot=[0-3]\n){8})"))) << scotch;
  for (int r = 0; r < 8; ++r) EXPECT_NE(scotch.find("rank " + std::to_string(r) + "="), std::string::npos) << scotch;
}

TEST(PlaceHostfile, HostTopologiesAndNetworkAreUsedAndShown) {
  const auto folder = new_test_folder();
  std::ofstream(folder / "job.0.prof") << "# POINT TO POINT\nE\t0\t1\t64 bytes\t1 msgs sent\n";
  std::ofstream(folder / "hosts") << "a slots=2\nb slots=6\nc slots=2\n";
  const JobResult place = run_shell(folder, MPIMON_BIN
                                    " place job.0.prof --hostfile hosts --topology 'pack:1 core:2 "
                                    "pu:1' --host-topology 'b=pack:2 core:3 pu:1' --network 2");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("2 processes on 3 hosts (hostfile hosts, 10 slots; network: 2 hosts per switch)"),
            std::string::npos)
      << place.output;
  EXPECT_NE(place.output.find("  a, c: 2 slots, synthetic 'pack:1 core:2 pu:1' (2 cores: 2) each"), std::string::npos)
      << place.output;
  EXPECT_NE(place.output.find("  b: 6 slots, synthetic 'pack:2 core:3 pu:1' (6 cores: 2 x 3)"), std::string::npos)
      << place.output;
  EXPECT_NE(place.output.find("| Scotch | n/a | n/a |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| by-slot | 128 | 0 |"), std::string::npos) << place.output;  // 64 B, 2 hops
}

TEST(PlaceHostfile, HostsOfMillionsOfSlotsArePlacedAndScotchSaysWhyNot) {
  // 300 hosts x 10 000 000 slots: 3e9 slots in all (beyond an int), a regular tree that
  // Scotch's architecture cannot hold. Scotch used to abort the command here.
  const auto folder = new_test_folder();
  std::ofstream(folder / "job.0.prof") << "# POINT TO POINT\nE\t0\t1\t64 bytes\t1 msgs sent\n";
  std::ofstream hosts(folder / "hosts");
  for (int h = 0; h < 300; ++h) hosts << "node" << h << " slots=10000000\n";
  hosts.close();
  const JobResult place =
      run_shell(folder, MPIMON_BIN " place job.0.prof --hostfile hosts --topology 'pack:1 core:2 pu:1' --rankfile rf");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("| Scotch | n/a | n/a |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("Scotch: n/a, not run on more than 1048576 slots in all"), std::string::npos)
      << place.output;
  // Two processes on a host of 2 cores and 10 000 000 slots: one per core, as mpirun binds them.
  EXPECT_NE(place.output.find("| mpimon | 128 | 0 |"), std::string::npos) << place.output;
  EXPECT_EQ(read_text(folder / "rf"), "rank 0=node0 slot=0\nrank 1=node0 slot=1\n");
  // No Scotch mapping, no Scotch rankfile: said, and the command fails.
  const JobResult scotch = run_shell(
      folder, MPIMON_BIN " place job.0.prof --hostfile hosts --topology 'pack:1 core:2 pu:1' --scotch-rankfile rfs");
  EXPECT_EQ(scotch.exit_code, 1) << scotch.output;
  EXPECT_NE(scotch.output.find("mpimon place: no Scotch rankfile: not run on more than 1048576 slots in all"),
            std::string::npos)
      << scotch.output;
  EXPECT_FALSE(std::filesystem::exists(folder / "rfs"));
}

TEST(PlaceHostfile, BadHostfileAndOptionsAreClearErrorsWithExit2) {
  const auto folder = new_test_folder();
  std::ofstream(folder / "job.0.prof") << "# POINT TO POINT\nE\t0\t1\t64 bytes\t1 msgs sent\n";
  std::ofstream(folder / "hf") << "a\na slots=4\n";
  std::ofstream(folder / "good") << "a slots=2\n";
  const JobResult bad = run_shell(folder, MPIMON_BIN " place job.0.prof --hostfile hf");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("hf:2: expected one slot count for a"), std::string::npos) << bad.output;
  const JobResult ghost =
      run_shell(folder, MPIMON_BIN " place job.0.prof --hostfile good --host-topology ghost=machine");
  EXPECT_EQ(ghost.exit_code, 2) << ghost.output;
  EXPECT_NE(ghost.output.find("--host-topology: no host 'ghost' in good"), std::string::npos) << ghost.output;
  const JobResult network = run_shell(folder, MPIMON_BIN " place job.0.prof --hostfile good --network 4,x");
  EXPECT_EQ(network.exit_code, 2) << network.output;
  EXPECT_NE(network.output.find("--network: expected hosts per switch"), std::string::npos) << network.output;
  const JobResult missing = run_shell(folder, MPIMON_BIN " place job.0.prof --hostfile nowhere");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("nowhere"), std::string::npos) << missing.output;
  std::ofstream(folder / "small") << "a slots=1\n";
  const JobResult small = run_shell(folder, MPIMON_BIN " place job.0.prof --hostfile small");
  EXPECT_EQ(small.exit_code, 2) << small.output;
  EXPECT_NE(small.output.find("2 processes do not fit on 1 slots of small"), std::string::npos) << small.output;
}

// 8 ranks bound by a rankfile on this machine's 2 cores: the cores play the part of hosts.
// "apart": ranks 0-3 on core 0, 4-7 on core 1, so partners w and w+4 are on different
// cores; "together": partners share a core.
std::string two_core_rankfile(bool partners_together) {
  std::string text;
  for (int r = 0; r < 8; ++r)
    text +=
        "rank " + std::to_string(r) + "=localhost slot=" + std::to_string(partners_together ? r / 2 % 2 : r / 4) + "\n";
  return text;
}

JobResult run_reorder_example(bool partners_together) {
  const auto folder = new_test_folder();
  std::ofstream(folder / "rf") << two_core_rankfile(partners_together);
  return run_job_in(
      folder, 8,
      concat_arguments(rankfile_arguments("rf"), {"--mca", "mpi_yield_when_idle", "1", "-x", "MPIMON_REORDER_VERBOSE=1",
                                                  "--mca", "pml_monitoring_enable", "2", kExample, "reorder"}));
}

// The example's line for the partner exchange before and after reordering.
void expect_crossing_cores(const JobResult& job, const std::string& before) {
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(
      job.output.find("reorder: bytes crossing hosts 0 before, 0 after; crossing cores " + before + " before, 0 after"),
      std::string::npos)
      << job.output;
}

TEST(ReorderApi, PartnersApartComeTogetherOnTheCoresTheyAreBoundTo8Ranks) {
  // Each of the 8 processes sends 64 KiB to a partner on the other core; after reordering,
  // logical partners run on the same core.
  const JobResult job = run_reorder_example(false);
  expect_crossing_cores(job, "524288");
  EXPECT_NE(job.output.find("hop-bytes 1048576 -> 0 (optimal)"), std::string::npos) << job.output;
}

TEST(ReorderApi, PartnersTogetherStayTogetherAndNoRankMoves8Ranks) {
  const JobResult job = run_reorder_example(true);
  expect_crossing_cores(job, "0");
  for (int r = 0; r < 8; ++r)
    EXPECT_NE(job.output.find("reorder: world rank " + std::to_string(r) + " is rank " + std::to_string(r) + " "),
              std::string::npos)
        << job.output;
  EXPECT_NE(job.output.find("(kept: nothing strictly better)"), std::string::npos) << job.output;
}

TEST(ReorderApi, SyntheticTopologyCountsUnboundProcessesInRankOrder8Ranks) {
  // Unbound processes (oversubscribed: mpirun binds none) count as process k on core k of
  // 'pack:2 core:4': partners w, w+4 are in different packages (4 hops), and come to
  // neighbouring cores of one package (2 hops).
  const JobResult job =
      run_job(8, {"-x", "MPIMON_REORDER_TOPOLOGY=pack:2 core:4 pu:1", "-x", "MPIMON_REORDER_VERBOSE=1", "--mca",
                  "pml_monitoring_enable", "2", kExample, "reorder"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("mpimon_reorder: 8 processes on 1 host(s); bytes crossing hosts 0 -> 0, hop-bytes "
                            "2097152 -> 1048576 (optimal)"),
            std::string::npos)
      << job.output;
}

TEST(ReorderApi, WithoutMonitoringSaysSoAndKeepsTheOrder4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "0", kExample, "reorder"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("reorder: not available"), std::string::npos) << job.output;
}
