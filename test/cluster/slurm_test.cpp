// Monitored jobs under a real Slurm (the harness's Slurm mode, cluster.h; docs/slurm.md),
// submitted by an ordinary user from the environment of mpimon-env.sh (what `module load
// mpimon` sets), in every way a cluster starts them: an sbatch script with mpirun, salloc
// + mpirun, srun --mpi=pmix (Slurm's PMIx server, no mpirun), `mpimon run` inside an
// allocation, `mpimon srun`. Each gives the exact counts of known patterns and the same dumps and job
// records as the same program under plain mpirun on one host.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "cluster.h"
#include "dump_sections.h"

using namespace mpimon::test;

namespace {

namespace fs = std::filesystem;

const std::string kExample = MPIMON_EXAMPLE;
const std::string kPatterns = MPIMON_PATTERNS;
const std::string kEnvScript = MPIMON_ENV_SCRIPT;
const std::string kPluginDir = MPIMON_PLUGIN_DIR;
const std::string kMpimon = MPIMON_BIN;
const std::string kOffLine = "mpimon: monitoring off for this job (mpimon " MPIMON_VERSION "): ";

constexpr int kNodes = 2;
constexpr int kPerNode = 2;
constexpr int kRanks = kNodes * kPerNode;

// Persistent sends (3 x 16 bytes to rank+1) and a binary-tree reduce of 8 doubles.
const std::vector<std::string> kProgram = {kExample, "persistent", "reduce"};

// The MCA settings of every job here: monitored, per-rank dumps prof.<rank>.prof, the
// reduce forced to a binary tree; ranks yield (4 ranks share 2 cores).
std::vector<std::string> job_mca() {
  return concat_arguments(concat_arguments(monitoring_arguments(), binary_tree_reduce_arguments()),
                          {"--mca", "mpi_yield_when_idle", "1"});
}

std::string words(const std::vector<std::string>& arguments) {
  std::string text;
  for (const std::string& a : arguments) text += " " + shell_quote(a);
  return text;
}

// "--mca name value" triples as the exports a batch script would make (srun passes the
// environment to every rank).
std::string exports(const std::vector<std::string>& mca) {
  std::string text;
  for (size_t i = 0; i + 2 < mca.size(); i += 3)
    text += "export OMPI_MCA_" + mca[i + 1] + "=" + shell_quote(mca[i + 2]) + "\n";
  return text;
}

enum class Launch { sbatch_mpirun, salloc_mpirun, srun_pmix, mpimon_run, mpimon_srun };

const std::string kAllocation =
    " --nodes=" + std::to_string(kNodes) + " --ntasks-per-node=" + std::to_string(kPerNode) + " ";

// What the user types on the login node, after `. mpimon-env.sh`.
std::string user_command(Launch launch, const fs::path& folder, const std::vector<std::string>& program) {
  const std::string environment = ". " + shell_quote(kEnvScript) + "\n";
  switch (launch) {
    case Launch::sbatch_mpirun: {
      std::ofstream(folder / "job.sh") << "#!/bin/sh\n#SBATCH" << kAllocation << "--job-name=mpimon-test\n"
                                       << environment << "mpirun" << words(job_mca()) << words(program) << "\n";
      // Waits for the job's end as sbatch --wait would, but polling every 0.1 s (sbatch
      // polls every few seconds), then exits with the job's exit code.
      return "id=$(sbatch --parsable --output=slurm-%j.out job.sh) || exit 1\n"
             "while [ -n \"$(squeue -h -j \"$id\" 2>/dev/null)\" ]; do sleep 0.1; done\n"
             "cat slurm-$id.out; scontrol show job \"$id\" | grep -q 'ExitCode=0:0'";
    }
    case Launch::salloc_mpirun:
      return environment + "salloc" + kAllocation + "mpirun" + words(job_mca()) + words(program);
    case Launch::srun_pmix:
      return environment + exports(job_mca()) + "srun" + kAllocation + "--mpi=pmix" + words(program);
    case Launch::mpimon_run:
      return environment + "salloc" + kAllocation + "mpimon run --" + words(job_mca()) + words(program);
    case Launch::mpimon_srun:  // --mpi=pmix added by mpimon srun
      return environment + exports(job_mca()) + "mpimon srun --" + kAllocation + words(program);
  }
  return "";
}

// The same program under plain mpirun on one host (the hostfile harness's reference).
const JobResult& one_host_reference() {
  static const JobResult job = run_job(kRanks, concat_arguments(job_mca(), kProgram));
  return job;
}

void expect_exact_counts(const fs::path& folder) {
  Edges expected;
  for (int r = 0; r < kRanks; ++r) expected[{'E', r, (r + 1) % kRanks}] = {48, 3};  // 3 starts of 16 bytes
  for (auto [child, parent] : {std::pair{1, 0}, {2, 0}, {3, 1}}) expected[{'I', child, parent}] = {64, 1};
  EXPECT_EQ(read_edges(folder, "EI"), expected);
}

// The job file of the cluster's one job, named by default mpimon-job-<job id>.<step>.txt
// under Slurm: <step> is Slurm's under srun (0: the first step), mpirun's own job under
// mpirun (files/name_patterns.h). "" (and a failure) when there is not exactly one.
fs::path job_file_of_the_one_job(const EmulatedCluster& cluster, const fs::path& folder, Launch launch) {
  const std::vector<std::string> ids = cluster.slurm_job_ids();
  EXPECT_EQ(ids.size(), 1u);
  if (ids.size() != 1) return {};
  const std::string prefix = "mpimon-job-" + ids[0] + ".";
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".txt") found.push_back(entry);
  }
  EXPECT_EQ(found.size(), 1u) << "no single " << prefix << "*.txt in " << folder;
  if (found.size() != 1) return {};
  if (launch == Launch::srun_pmix || launch == Launch::mpimon_srun) {
    EXPECT_EQ(found[0].filename().string(), prefix + "0.txt");
  }
  EXPECT_FALSE(fs::exists(folder / "mpimon-job.txt"));  // today's default name is not used under Slurm
  return found[0];
}

void expect_same_dumps_as_one_host(const fs::path& folder, const fs::path& job_file) {
  const JobResult& reference = one_host_reference();
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  for (int r = 0; r < kRanks; ++r) {
    const std::string name = "prof." + std::to_string(r) + ".prof";
    EXPECT_EQ(point_to_point_section(folder / name), point_to_point_section(reference.folder / name)) << "rank " << r;
  }
  const std::string records = job_records(reference.folder / "mpimon-job.txt");
  EXPECT_NE(records.find(" internal "), std::string::npos) << records;
  EXPECT_EQ(job_records(job_file), records);
}

void run_and_check(Launch launch) {
  MPIMON_REQUIRE_SLURM();
  EmulatedCluster cluster(std::vector<EmulatedHost>(kNodes, EmulatedHost(kPerNode)), SlurmOptions{});
  const fs::path folder = cluster.new_user_folder();
  const JobResult job = cluster.run_as_user(folder, user_command(launch, folder, kProgram));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  expect_exact_counts(folder);
  const fs::path job_file = job_file_of_the_one_job(cluster, folder, launch);
  ASSERT_FALSE(job_file.empty());
  expect_same_dumps_as_one_host(folder, job_file);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST(SlurmHarness, AnOrdinaryUserRunsAStepOnEveryNode2Nodes) {
  MPIMON_REQUIRE_SLURM();
  const auto start = std::chrono::steady_clock::now();
  EmulatedCluster cluster(std::vector<EmulatedHost>(kNodes, EmulatedHost(kPerNode)), SlurmOptions{});
  std::cout << "Slurm cluster of " << kNodes << " nodes up in " << seconds_since(start) << " s\n";
  const fs::path folder = cluster.new_user_folder();
  const JobResult job = cluster.run_as_user(
      folder, "id -un; hostname; srun" + kAllocation + "sh -c 'echo \"$(hostname) $(id -un)\"' | sort");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::string user = EmulatedCluster::user_name();
  EXPECT_EQ(job.output,
            user + "\nlauncher\nhost1 " + user + "\nhost1 " + user + "\nhost2 " + user + "\nhost2 " + user + "\n");
}

TEST(SlurmJobs, SbatchScriptWithMpirunCountsExactly2Nodes4Ranks) { run_and_check(Launch::sbatch_mpirun); }

TEST(SlurmJobs, SallocWithMpirunCountsExactly2Nodes4Ranks) { run_and_check(Launch::salloc_mpirun); }

TEST(SlurmJobs, SrunWithPmixCountsExactly2Nodes4Ranks) { run_and_check(Launch::srun_pmix); }

TEST(SlurmJobs, MpimonRunInsideAnAllocationCountsExactly2Nodes4Ranks) { run_and_check(Launch::mpimon_run); }

TEST(SlurmJobs, MpimonSrunCountsExactly2Nodes4Ranks) { run_and_check(Launch::mpimon_srun); }

// Against Slurm's PMIx server (no mpirun): a node whose ranks do not see our plugin
// folder turns monitoring off for the job, one line, no hang; the job runs to its end.
TEST(SlurmMixedDeployment, SrunWithANodeWithoutOurPluginFolderSaysSoOnceAndEnds2Nodes4Ranks) {
  MPIMON_REQUIRE_SLURM();
  EmulatedCluster cluster({EmulatedHost(kPerNode), EmulatedHost(kPerNode).hide(kPluginDir)}, SlurmOptions{});
  const fs::path folder = cluster.new_user_folder();
  const std::string command = user_command(Launch::srun_pmix, folder, {kPatterns, "hosts"});
  auto start = std::chrono::steady_clock::now();
  const JobResult deployed_everywhere_not = cluster.run_as_user(folder, command, 60);
  const double mixed_seconds = seconds_since(start);
  ASSERT_EQ(deployed_everywhere_not.exit_code, 0) << deployed_everywhere_not.output;
  const std::string& output = deployed_everywhere_not.output;
  size_t lines = 0;
  for (size_t at = output.find(kOffLine); at != std::string::npos; at = output.find(kOffLine, at + 1)) ++lines;
  EXPECT_EQ(lines, 1u) << output;
  EXPECT_NE(output.find(kOffLine + "its components are not running on 1 host: host2"), std::string::npos) << output;
  for (int r = 0; r < kRanks; ++r)
    EXPECT_NE(output.find("rank " + std::to_string(r) + ": host host" + std::to_string(1 + r / kPerNode)),
              std::string::npos)
        << output;
  for (const auto& entry : fs::directory_iterator(folder))  // no job file, no dump
    EXPECT_TRUE(entry.path().filename().string().rfind("mpimon-job", 0) != 0 && entry.path().extension() != ".prof")
        << entry.path();
  // The same job where every node has the folder, for the time the check costs.
  EmulatedCluster whole(std::vector<EmulatedHost>(kNodes, EmulatedHost(kPerNode)), SlurmOptions{});
  const fs::path whole_folder = whole.new_user_folder();
  start = std::chrono::steady_clock::now();
  const JobResult deployed = whole.run_as_user(whole_folder, command, 60);
  const double whole_seconds = seconds_since(start);
  ASSERT_EQ(deployed.exit_code, 0) << deployed.output;
  EXPECT_EQ(deployed.output.find(kOffLine), std::string::npos) << deployed.output;
  std::cout << "srun --mpi=pmix, " << kRanks << " ranks: " << mixed_seconds << " s with host2 lacking our folder, "
            << whole_seconds << " s deployed everywhere\n";
}
