// The site log over emulated hosts (docs/site-deployment.md): the log names both hosts and
// the batch system's job id, the index finds what a better placement keeps off the network,
// and hosts configured differently make the job run unmonitored with one line, not hang.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "cluster.h"
#include "readers/job_reader.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;
const std::string kMpimon = MPIMON_BIN;

fs::path new_log_root() {
  const fs::path root = new_test_folder();
  fs::permissions(root, fs::perms(0755));
  const JobResult made = run_shell(root, kMpimon + " admin mk-log-dirs " + shell_quote(root.string()));
  EXPECT_EQ(made.exit_code, 0) << made.output;
  return root;
}

std::vector<std::string> site_lines(const JobFile& file, const std::string& key) {
  std::vector<std::string> lines;
  for (const JobAnnotation& a : file.annotations)
    if (a.keyword == "site" && !a.fields.empty() && a.fields[0] == key) {
      std::string line;
      for (size_t i = 1; i < a.fields.size(); ++i) line += (i > 1 ? " " : "") + a.fields[i];
      lines.push_back(line);
    }
  return lines;
}

}  // namespace

// By slot, ranks 0-3 run on host1 and 4-7 on host2: every partner pair (r, r + 4) of
// `mpi_patterns partners` (64 KiB each way) crosses; placed together, none would.
TEST(ClusterSiteLog, PartnersApartShowTheirPlacementGainInTheIndex2Hosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 4);
  const fs::path root = new_log_root();
  const JobResult job = cluster.run_job(
      8, {"--mca", "mpimon_log_path", root.string(), "-x", "PBS_JOBID=4242.server", kPatterns, "partners"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.output.find("mpimon:"), std::string::npos) << job.output;
  const std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u) << job.output;
  EXPECT_TRUE(std::regex_match(logs[0].filename().string(),
                               std::regex("root_mpi_patterns_id4242.server-[0-9]+_[0-9]{6}\\.mpimon")))
      << logs[0];
  const JobFile file = read_job_file(logs[0].string());
  EXPECT_EQ(site_lines(file, "hosts"), std::vector<std::string>{"2"});
  EXPECT_EQ(site_lines(file, "host"), (std::vector<std::string>{"host1 0-3", "host2 4-7"}));

  const JobResult index = run_shell(root, kMpimon + " index " + shell_quote(root.string()));
  ASSERT_EQ(index.exit_code, 0) << index.output;
  const JobResult sql = run_shell(
      root, "sqlite3 " + shell_quote((root / "mpimon-index.sqlite").string()) +
                " \"SELECT hosts, external_bytes, crossing_bytes, placed_crossing_bytes, placement_gain_bytes, "
                "job_id FROM jobs\"");
  ASSERT_EQ(sql.exit_code, 0) << sql.output;
  EXPECT_EQ(sql.output, "2|524288|524288|0|524288|4242.server\n");
  const JobResult jobs = run_shell(root, kMpimon + " jobs " + shell_quote(root.string()));
  ASSERT_EQ(jobs.exit_code, 0) << jobs.output;
  EXPECT_NE(jobs.output.find("524.3 kB fewer bytes crossing hosts (524.3 kB -> 0 B)"), std::string::npos)
      << jobs.output;
  EXPECT_NE(jobs.output.find("mpimon place " + logs[0].string() + " --hostfile <your hostfile> --rankfile"),
            std::string::npos)
      << jobs.output;
}

// host1's installation turns the site log on (its openmpi-mca-params.conf), host2's does
// not: the start-up check sees two configurations, one line, the job ends unmonitored.
TEST(ClusterSiteLog, HostsThatDisagreeRunUnmonitoredWithOneLine2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  const fs::path root = new_log_root();
  const fs::path etc = new_test_folder();
  fs::permissions(etc, fs::perms(0755));
  fs::copy("/etc/openmpi", etc, fs::copy_options::recursive);
  std::ofstream(etc / "openmpi-mca-params.conf", std::ios::app) << "\nmpimon_log_path = " << root.string() << "\n";
  EmulatedCluster cluster({EmulatedHost(2).replace("/etc/openmpi", etc.string()), EmulatedHost(2)});
  const JobResult job = cluster.run_job(
      4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file", "", kPatterns, "hosts"},
      ClusterJobOptions{Components::ours, 60, "hostfile"});
  EXPECT_EQ(job.exit_code, 0) << job.output;  // 124: a hang
  // host2 named as Open MPI names it (node_name: its address on 4.1, its hostname on 5.0),
  // its tag without the site log.
  EXPECT_NE(job.output.find("mpimon: monitoring off for this job (mpimon " MPIMON_VERSION " site log " + root.string() +
                            "): another version runs on 1 host: " + cluster.node_name(2) +
                            " (mpimon " MPIMON_VERSION "); the job runs on unmonitored"),
            std::string::npos)
      << job.output;
  EXPECT_TRUE(site_logs_under(root).empty());
  if (HasFailure()) {
    const JobResult probe = cluster.run_job(4, {"sh", "-c",
                                                "echo $(hostname): $(grep mpimon /etc/openmpi/openmpi-mca-params.conf) "
                                                "$(env | grep OMPI_MCA_mca_base_param)"});
    ADD_FAILURE() << probe.output;
  }
}
