// The time series under Slurm's kill sequence (docs/slurm.md "Time limits and signals"):
// scancel sends SIGCONT + SIGTERM to every process of the job's steps, SIGKILL KillWait
// later. The series keeps every message each rank sent before the SIGTERM, and the tools
// read the killed job, by its job file's name, into the matrices a finished job gives.
// Each test runs series_patterns' 4-rank ring (10 messages per second per rank, 1 s
// snapshots) on 2 nodes, as the ordinary user, and cancels it after N iterations.
#include <gtest/gtest.h>

#include <fstream>

#include "cluster.h"
#include "formats/job_format.h"
#include "readers/job_reader.h"
#include "readers/series_reader.h"

using namespace mpimon;
using namespace mpimon::test;

namespace {

namespace fs = std::filesystem;

const std::string kEnvScript = MPIMON_ENV_SCRIPT;
const std::string kMpimon = MPIMON_BIN;
const std::string kSeriesPatterns = MPIMON_SERIES_PATTERNS;
constexpr int kRanks = 4;
constexpr int kIterations = 30;  // N: scancel once rank 0 logged this many sends

enum class Launch { srun_pmix, sbatch_mpirun };

const std::string kMonitoring =
    "export OMPI_MCA_pml_monitoring_enable=2 OMPI_MCA_pml_monitoring_snapshot_interval=1 "
    "OMPI_MCA_mpi_yield_when_idle=1\n";
const std::string kAllocation = " --nodes=2 --ntasks-per-node=2 ";

// Shell: wait until rank 0 logged `sends` sends (at most 60 s), then note the time (us).
std::string wait_then_note_time(int sends) {
  return "for i in $(seq 600); do [ \"$(cat sent.0 2>/dev/null | wc -l)\" -ge " + std::to_string(sends) +
         " ] && break; sleep 0.1; done\ndate +%s%6N > signalled\n";
}

// The user's script: start the ring, cancel its job after N iterations, wait for its end.
std::string cancel_script(Launch launch, const fs::path& folder) {
  const std::string ring = kSeriesPatterns + " ring 60";
  std::string start;
  if (launch == Launch::srun_pmix) {
    start = "srun" + kAllocation + "--mpi=pmix " + ring + " > ring.out 2>&1 &\n";
  } else {
    std::ofstream(folder / "ring.sh") << "#!/bin/sh\n#SBATCH" << kAllocation << "--job-name=ring\n"
                                      << ". " << kEnvScript << "\n"
                                      << kMonitoring << "mpirun " << ring << "\n";
    start = "sbatch --quiet --output=ring.out ring.sh\n";
  }
  return ". " + kEnvScript + "\n" + kMonitoring + start + wait_then_note_time(kIterations) +
         "scancel --user=\"$USER\"\n"
         // The job's end: no job of the user left (at most 60 s).
         "for i in $(seq 600); do [ -z \"$(squeue -h -u \"$USER\")\" ] && break; sleep 0.1; done\n"
         "wait; cat ring.out; echo \"jobs left: $(squeue -h -u \"$USER\" | wc -l)\"";
}

// The sends rank `rank` logged before `time_us` (sent.<rank>: "<n> <microseconds>").
size_t sends_before(const fs::path& folder, int rank, int64_t time_us) {
  std::ifstream in(folder / ("sent." + std::to_string(rank)));
  size_t n = 0;
  long long count = 0, when = 0;
  while (in >> count >> when)
    if (when < time_us) ++n;
  return n;
}

uint64_t ring_messages(const JobFile& job, int32_t source) {
  for (const JobRecord& r : job.records)
    if (r.source == source && r.destination == (source + 1) % kRanks && r.category == Category::external)
      return r.counters.messages;
  return 0;
}

// The one job file name the killed job would have had (its series is <name>.series).
std::string job_file_name(const fs::path& folder) {
  std::string found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".txt.series";
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      EXPECT_TRUE(found.empty()) << "two series: " << found << ", " << name;
      found = name.substr(0, name.size() - std::string(".series").size());
    }
  }
  return found;
}

void expect_every_message_before_the_cancel(Launch launch, int kill_wait_seconds) {
  MPIMON_REQUIRE_SLURM();
  EmulatedCluster cluster(std::vector<EmulatedHost>(2, EmulatedHost(2)), SlurmOptions{kill_wait_seconds});
  const fs::path folder = cluster.new_user_folder();
  const JobResult run = cluster.run_as_user(folder, cancel_script(launch, folder), 180);
  ASSERT_NE(run.output.find("jobs left: 0"), std::string::npos) << run.output;
  const std::string name = job_file_name(folder);
  ASSERT_FALSE(name.empty()) << run.output;
  EXPECT_FALSE(fs::exists(folder / name)) << "a cancelled job wrote its job file";
  std::ifstream time_file(folder / "signalled");
  long long signalled = 0;
  time_file >> signalled;
  ASSERT_GT(signalled, 0);

  series::SeriesTotals totals;
  const series::SeriesInfo info =
      series::read_series((folder / (name + ".series")).string(), [&](const series::SeriesFrame& f) { totals.add(f); });
  const JobFile job = parse_job_file(totals.job_file_text(info), "series");
  for (int r = 0; r < kRanks; ++r) {
    const size_t sent = sends_before(folder, r, signalled);
    EXPECT_GE(sent, static_cast<size_t>(kIterations) - 2) << "rank " << r;  // the ring ran N iterations
    EXPECT_GE(ring_messages(job, r), sent) << "rank " << r << ": " << info.describe_end();
    EXPECT_EQ(info.ranks.at(r).end_reason, "signal 15") << "rank " << r << ": " << info.describe_end();
  }
  // The tools read the killed job by its name, into the same matrix a finished job gives.
  const JobResult matrix = run_shell(folder, kMpimon + " matrix " + shell_quote(name) + " --format mtx");
  ASSERT_EQ(matrix.exit_code, 0) << matrix.output;
  const std::string row = "\n1 2 ";  // rank 0 -> rank 1, 1-based
  const size_t at = matrix.output.find(row);
  ASSERT_NE(at, std::string::npos) << matrix.output;
  EXPECT_GE(std::stoull(matrix.output.substr(at + row.size())), sends_before(folder, 0, signalled)) << matrix.output;
}

}  // namespace

TEST(SlurmSeries, ScancelOfAnSrunStepKeepsEveryMessageSentBeforeIt2Nodes4Ranks) {
  expect_every_message_before_the_cancel(Launch::srun_pmix, 30);
}

TEST(SlurmSeries, ScancelOfAnSrunStepWithAOneSecondKillWaitKeepsEveryMessage2Nodes4Ranks) {
  expect_every_message_before_the_cancel(Launch::srun_pmix, 1);
}

TEST(SlurmSeries, ScancelOfAnSbatchMpirunJobKeepsEveryMessageSentBeforeIt2Nodes4Ranks) {
  expect_every_message_before_the_cancel(Launch::sbatch_mpirun, 30);
}
