// A mixed deployment never hangs: when some hosts lack our components (Open MPI's own
// load there) or run another version, every rank of ours finds out at the end of
// MPI_Init without any collective call, one rank prints one line naming those hosts,
// and the job runs to completion unmonitored (no dumps of ours, no job file).
#include <gtest/gtest.h>

#include "cluster.h"

using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;
const std::string kPluginDir = MPIMON_PLUGIN_DIR;
const std::string kOtherVersion = MPIMON_OTHER_VERSION_DIR;
const std::string kLine = "mpimon: monitoring off for this job (mpimon " MPIMON_VERSION "): ";

// A hang shows as exit code 124 well before ctest's own timeout.
const ClusterJobOptions kNoHang{Components::ours, 60, "hostfile"};

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// --tag-output prefixes every line with [<job>,<rank>]<stream>: who printed it (5.0's
// PRRTE adds a space after the colon). The end of that prefix for `rank` and `stream`.
std::string tagged(int rank, const std::string& stream) {
  return "," + std::to_string(rank) + "]<" + stream + ">:" + (open_mpi_4_1() ? "" : " ");
}

// What most of these jobs run: the hosts program, monitored, its lines tagged.
std::vector<std::string> job_arguments() {
  return concat_arguments(monitoring_arguments(), {"--tag-output", kPatterns, "hosts"});
}

// The job ended well, with exactly one line "monitoring off...", printed by `rank` and
// holding `what`, and no job file.
void expect_one_line(const JobResult& job, int rank, const std::string& what) {
  EXPECT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(occurrences(job.output, "monitoring off for this job"), 1u) << job.output;
  EXPECT_NE(job.output.find(tagged(rank, "stderr") + kLine + what), std::string::npos) << job.output;
  EXPECT_FALSE(std::filesystem::exists(job.folder / "mpimon-job.txt"));
}

JobResult run_monitored(const EmulatedCluster& cluster, int ranks, const std::vector<std::string>& extra_arguments,
                        const std::vector<std::string>& program) {
  return cluster.run_job(
      ranks,
      concat_arguments(extra_arguments,
                       concat_arguments(monitoring_arguments(), concat_arguments({"--tag-output"}, program))),
      kNoHang);
}

// Runs the job over `cluster` (mpi_patterns hosts, monitored) and expects the one line.
JobResult run_expecting_one_line(const EmulatedCluster& cluster, int ranks, int rank, const std::string& what,
                                 const std::vector<std::string>& extra_arguments = {},
                                 const std::vector<std::string>& program = {kPatterns, "hosts"}) {
  const JobResult job = run_monitored(cluster, ranks, extra_arguments, program);
  expect_one_line(job, rank, what);
  return job;
}

}  // namespace

TEST(MixedDeployment, AHostWithoutOurPluginFolderRunsUnmonitoredRankZeroSaysSoOnce2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster({EmulatedHost(2), EmulatedHost(2).hide(kPluginDir)});
  const JobResult job = run_expecting_one_line(
      cluster, 4, 0,
      "its components are not running on 1 host: " + cluster.node_name(2) + "; the job runs on unmonitored");
  for (int r = 0; r < 4; ++r)  // every rank ran to the end of its program
    EXPECT_NE(job.output.find(tagged(r, "stdout") + "rank " + std::to_string(r) + ": host " +
                              cluster.hostname(r < 2 ? 1 : 2)),
              std::string::npos)
        << job.output;
  // Nothing wrote dumps: ours are off, and Open MPI's own components are excluded on every
  // host (`mpimon run`'s environment), host2 included: no half-monitored job.
  for (int r = 0; r < 4; ++r)
    EXPECT_FALSE(std::filesystem::exists(job.folder / ("prof." + std::to_string(r) + ".prof"))) << job.output;
}

TEST(MixedDeployment, WhenRankZerosHostLacksThemTheLowestMonitoredRankSaysSo2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster({EmulatedHost(2).hide(kPluginDir), EmulatedHost(2)});
  const JobResult job =
      run_expecting_one_line(cluster, 4, 2, "its components are not running on 1 host: " + cluster.node_name(1) + ";");
  EXPECT_FALSE(std::filesystem::exists(job.folder / "prof.3.prof"));
}

TEST(MixedDeployment, AnotherVersionOnOneHostIsNamedOnceByOneRank2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster({EmulatedHost(2), EmulatedHost(2).replace(kPluginDir, kOtherVersion)});
  // Both versions agree on who reports: one line, from rank 0.
  const JobResult job = run_expecting_one_line(
      cluster, 4, 0, "another version runs on 1 host: " + cluster.node_name(2) + " (mpimon 0.0.1);");
  for (int r = 0; r < 4; ++r)
    EXPECT_FALSE(std::filesystem::exists(job.folder / ("prof." + std::to_string(r) + ".prof"))) << r;
}

TEST(MixedDeployment, OneLineNamesEveryHostOfEachKind4Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster({EmulatedHost(1), EmulatedHost(1).hide(kPluginDir),
                           EmulatedHost(1).replace(kPluginDir, kOtherVersion), EmulatedHost(1).hide(kPluginDir)});
  run_expecting_one_line(cluster, 4, 0,
                         "its components are not running on 2 hosts: " + cluster.node_name(2) + ", " +
                             cluster.node_name(4) + "; another version runs on 1 host: " + cluster.node_name(3) +
                             " (mpimon 0.0.1); the job runs on unmonitored");
}

TEST(MixedDeployment, WithoutTheModexFenceDataIsFetchedAndTheVerdictIsTheSame2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster({EmulatedHost(2), EmulatedHost(2).hide(kPluginDir)});
  // Under heavy load Open MPI's own direct modex sometimes fails MPI_Init on the host
  // without our components ("PML add procs failed", Not found: ob1 looking up a peer's
  // BTL data; none of our code is loaded there): such a run is retried, up to 3 runs.
  const std::vector<std::string> direct_modex = {"--mca", "pmix_base_async_modex",  "1",
                                                 "--mca", "pmix_base_collect_data", "0"};
  JobResult job;
  for (int attempt = 0; attempt < 3; ++attempt) {
    job = run_monitored(cluster, 4, direct_modex, {kPatterns, "hosts"});
    if (job.output.find("PML add procs failed") == std::string::npos) break;
  }
  expect_one_line(job, 0, "its components are not running on 1 host: " + cluster.node_name(2) + ";");
}

TEST(MixedDeployment, OneSidedTrafficRunsUnmonitoredToo2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster({EmulatedHost(2), EmulatedHost(2).hide(kPluginDir)});
  // Every window flavour but shared and every RMA operation, data checked by the program;
  // the osc variables of our ranks stay 0. The osc component that works across hosts,
  // chosen by exclusion (host2 lacks ours: osc_across_hosts_exclusion()).
  const JobResult job = run_expecting_one_line(
      cluster, 4, 0, "its components are not running on 1 host: ", {"--mca", "osc", osc_across_hosts_exclusion()},
      {MPIMON_OSC_PATTERNS, "unmonitored", "no_shared"});
  expect_every_rank_ok(job, 4, "unmonitored");
}

TEST(MixedDeployment, MonitoredEverywhereWritesEverythingAndSaysNothing2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 2);
  const JobResult job =
      cluster.run_job(4, concat_arguments({"--mca", "pml_monitoring_verbose", "1"}, job_arguments()), kNoHang);
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.output.find("monitoring off"), std::string::npos) << job.output;
  // One rank per host looked at (the node map), not every rank.
  EXPECT_NE(job.output.find(tagged(0, "stderr") + "mpimon: start-up check: all 4 ranks run mpimon " MPIMON_VERSION
                                                  " (2 ranks looked at, "),
            std::string::npos)
      << job.output;
  EXPECT_TRUE(std::filesystem::exists(job.folder / "mpimon-job.txt")) << job.output;
  for (int r = 0; r < 4; ++r) {
    const auto file = job.folder / ("prof." + std::to_string(r) + ".prof");
    ASSERT_TRUE(std::filesystem::exists(file)) << r;
    // The ring of 64-byte messages (tag 7) to rank+1.
    EXPECT_NE(read_text(file).find("E\t" + std::to_string(r) + "\t" + std::to_string((r + 1) % 4) +
                                   "\t64 bytes\t1 msgs sent"),
              std::string::npos)
        << read_text(file);
  }
}
