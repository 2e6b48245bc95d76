// The site log under a real Slurm (docs/site-deployment.md): with only the site's switch set
// in the environment a module would set, an ordinary user's sbatch job leaves one log in
// the dated folder, owned by that user, named with Slurm's job id, and nothing in its
// working folder; the index lists it with the exact traffic of known patterns.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "cluster.h"

namespace fs = std::filesystem;
using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;
const std::string kEnvScript = MPIMON_ENV_SCRIPT;
const std::string kMpimon = MPIMON_BIN;

std::string words(const std::vector<std::string>& arguments) {
  std::string text;
  for (const std::string& a : arguments) text += " " + shell_quote(a);
  return text;
}

}  // namespace

TEST(SlurmSiteLog, SbatchJobWithOnlyTheSiteSwitchLeavesOneLogOfItsUser2Nodes4Ranks) {
  MPIMON_REQUIRE_SLURM();
  EmulatedCluster cluster(std::vector<EmulatedHost>(2, EmulatedHost(2)), SlurmOptions{});
  // The site's log path, made by the admin (root) with the dated folders.
  const fs::path root = new_test_folder();
  fs::permissions(root, fs::perms(0755));
  const JobResult made = run_shell(root, kMpimon + " admin mk-log-dirs " + shell_quote(root.string()));
  ASSERT_EQ(made.exit_code, 0) << made.output;

  // Persistent sends (3 x 16 bytes to rank + 1) and a binary-tree reduce of 8 doubles; no
  // monitoring parameter but the switch, exported as a module or the site's environment does.
  const fs::path folder = cluster.new_user_folder();
  std::ofstream(folder / "job.sh") << "#!/bin/sh\n#SBATCH --nodes=2 --ntasks-per-node=2 --job-name=site\n"
                                   << ". " << shell_quote(kEnvScript) << "\n"
                                   << "export OMPI_MCA_mpimon_log_path=" << shell_quote(root.string()) << "\n"
                                   << "mpirun --mca mpi_yield_when_idle 1" << words(binary_tree_reduce_arguments())
                                   << " " << shell_quote(kExample) << " persistent reduce\n";
  const JobResult job = cluster.run_as_user(folder,
                                            "id=$(sbatch --parsable --output=slurm-%j.out job.sh) || exit 1\n"
                                            "while [ -n \"$(squeue -h -j \"$id\" 2>/dev/null)\" ]; do sleep 0.1; done\n"
                                            "cat slurm-$id.out; scontrol show job \"$id\" | grep -q 'ExitCode=0:0'");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::vector<std::string> ids = cluster.slurm_job_ids();
  ASSERT_EQ(ids.size(), 1u);

  // One log, in a dated folder, named <user>_<exe>_id<job id>[.<step>]-<pid>_<time>.mpimon,
  // the user's, readable by nobody else (the default group policy).
  const std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u) << job.output;
  const std::string user = EmulatedCluster::user_name();
  EXPECT_TRUE(std::regex_match(logs[0].filename().string(), std::regex(user + "_mpimon_example_id" + ids[0] +
                                                                       "(\\.[0-9]+)?-[0-9]+_[0-9]{6}\\.mpimon")))
      << logs[0];
  EXPECT_TRUE(
      std::regex_match(fs::relative(logs[0].parent_path(), root).string(), std::regex("[0-9]{4}/[0-9]{2}/[0-9]{2}")))
      << logs[0];
  struct stat st {};
  ASSERT_EQ(::stat(logs[0].c_str(), &st), 0);
  const passwd* entry = ::getpwnam(user.c_str());
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(st.st_uid, entry->pw_uid);
  EXPECT_EQ(st.st_mode & 07777, 0400u);
  // Nothing of mpimon's in the working folder: the job script, Slurm's output only.
  for (const auto& file : fs::directory_iterator(folder)) {
    const std::string name = file.path().filename().string();
    EXPECT_TRUE(name == "job.sh" || name == "slurm-" + ids[0] + ".out") << name;
  }

  // The index: exactly this job, with the patterns' exact traffic on 2 hosts.
  const JobResult index = run_shell(root, kMpimon + " index " + shell_quote(root.string()));
  ASSERT_EQ(index.exit_code, 0) << index.output;
  const JobResult sql =
      run_shell(root, "sqlite3 " + shell_quote((root / "mpimon-index.sqlite").string()) +
                          " \"SELECT owner, user, ranks, hosts, external_bytes, external_messages, internal_bytes, "
                          "internal_messages, substr(job_id, 1, instr(job_id || '.', '.') - 1) FROM jobs\"");
  ASSERT_EQ(sql.exit_code, 0) << sql.output;
  EXPECT_EQ(sql.output, user + "|" + user + "|4|2|192|12|192|3|" + ids[0] + "\n");
}
