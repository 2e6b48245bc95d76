// Performance variables and flush phases, end to end (issue: live data); the job file: job_file_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>

#include "mpi_job.h"
#include "readers/prof_reader.h"
#include "record_tables.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kPvars = MPIMON_PVAR_PATTERNS;
const std::string kExample = MPIMON_EXAMPLE;

JobResult run_pvars(int ranks, const std::string& mode) {
  return run_job(ranks, {"--mca", "pml_monitoring_enable", "2", kPvars, mode});
}

}  // namespace

TEST(Pvars, MonitoringPaperSnippetWorksUnchanged4Ranks) { expect_every_rank_ok(run_pvars(4, "snippet"), 4, "snippet"); }

TEST(Pvars, InternalTrafficPerPeerIsTheBinaryTreeOfOneReduce8Ranks) {
  const JobResult job = run_job(
      8, concat_arguments(concat_arguments({"--mca", "pml_monitoring_enable", "2"}, binary_tree_reduce_arguments()),
                          {kPvars, "internal"}));
  expect_every_rank_ok(job, 8, "internal");
}

TEST(Pvars, WorldAndSplitCommunicatorWithReversedKeys6Ranks) {
  expect_every_rank_ok(run_pvars(6, "split"), 6, "split");
}

TEST(Pvars, IntercommunicatorValuesFollowTheRemoteGroup6Ranks) {
  expect_every_rank_ok(run_pvars(6, "intercomm"), 6, "intercomm");
}

TEST(Pvars, TwoHandlesStartAndStopIndependently4Ranks) {
  expect_every_rank_ok(run_pvars(4, "two_handles"), 4, "two_handles");
}

TEST(Pvars, HandleOnAFreedCommunicatorReturnsAnErrorAndWritesNothing4Ranks) {
  const JobResult job = run_pvars(4, "freed");
  expect_every_rank_ok(job, 4, "freed");
  EXPECT_NE(job.output.find("read after free returned 72"), std::string::npos) << job.output;  // MPI_T_ERR_INVALID
}

TEST(Pvars, MisuseTheCoreDetectsReturnsItsErrorCode4Ranks) {
  const JobResult job = run_pvars(4, "misuse");
  expect_every_rank_ok(job, 4, "misuse");
  EXPECT_NE(job.output.find("write to read-only returned 72"), std::string::npos) << job.output;
  // Open MPI's core does not treat reading a never-started handle as an error: zeros.
  EXPECT_NE(job.output.find("read before start returned 0, value 0"), std::string::npos) << job.output;
}

// MPI_COMM_NULL, freed objects, objects of another kind, anything: MPI_T_ERR_INVALID from
// MPI_T_pvar_handle_alloc (before Open MPI's core reads them), never a crash or an abort.
TEST(Pvars, InvalidObjectsAreRefusedWithAnErrorNotACrash4Ranks) {
  const JobResult job = run_pvars(4, "bad_objects");
  expect_every_rank_ok(job, 4, "bad_objects");
  EXPECT_NE(job.output.find("rank 3: 18 bad objects refused"), std::string::npos) << job.output;
}

// Integers in MPI_T (MPI_INT, no enumeration), as Debian's component registers them.
TEST(Pvars, IntegerControlVariablesAreMpiInt4Ranks) {
  const JobResult job = run_job(
      4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_verbose", "1", "--mca",
          "osc_monitoring_sync_timing", "1", "--mca", "osc_monitoring_wait_states", "1", kPvars, "control_variables"});
  expect_every_rank_ok(job, 4, "control_variables");
  for (const char* line : {"rank 2: cvar pml_monitoring_enable=2\n", "rank 2: cvar pml_monitoring_enable_output=0\n",
                           "rank 2: cvar pml_monitoring_verbose=1\n", "rank 2: cvar osc_monitoring_sync_timing=1\n",
                           "rank 2: cvar osc_monitoring_wait_states=1\n"})
    EXPECT_NE(job.output.find(line), std::string::npos) << line << job.output;
}

// Invalid text still gets our one warning per parameter and job, and reads as the default.
TEST(Pvars, InvalidIntegerTextWarnsOnceAndReadsAsTheDefault4Ranks) {
  const JobResult job = run_job(
      4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "1k", "--mca",
          "pml_monitoring_verbose", "abc", "--mca", "osc_monitoring_wait_states", "-1", kPvars, "control_variables"});
  expect_every_rank_ok(job, 4, "control_variables");
  EXPECT_NE(job.output.find("rank 1: cvar pml_monitoring_enable_output=0\n"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("rank 1: cvar pml_monitoring_verbose=0\n"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("rank 1: cvar osc_monitoring_wait_states=0\n"), std::string::npos) << job.output;
  for (const std::string warning :
       {"mpimon: invalid value '1k' for MCA parameter pml_monitoring_enable_output (valid: 0 none, 1 stdout, 2 "
        "stderr, 3 or more file); using 0: no end-of-job dump\n",
        "mpimon: invalid value 'abc' for MCA parameter pml_monitoring_verbose (valid: 0 off, 1 or more on); using 0\n",
        "mpimon: invalid value '-1' for MCA parameter osc_monitoring_wait_states (valid: 0 or 1); using 0: wait "
        "states off, the job runs on\n"}) {
    const size_t at = job.output.find(warning);
    EXPECT_NE(at, std::string::npos) << warning << job.output;
    EXPECT_EQ(job.output.find(warning, at + 1), std::string::npos) << "once per job\n" << job.output;
  }
  EXPECT_EQ(job.output.find("help-mca-var"), std::string::npos) << "not Open MPI's own message\n" << job.output;
}

TEST(Pvars, ThreeFlushPhasesSumToTheFinalizeTotals4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                    "--mca", "pml_monitoring_filename", "final", kPvars, "phases"});
  expect_every_rank_ok(job, 4, "phases");
  auto total = prof_records(job.folder, "phase_1", 4);
  for (const char* phase : {"phase_2", "phase_3"}) {
    for (const auto& [key, value] : prof_records(job.folder, phase, 4)) {
      total[key].first += value.first;
      total[key].second += value.second;
    }
  }
  EXPECT_EQ(total, prof_records(job.folder, "final", 4));
  // mpimon matrix sums phase files (phase 1 included) to the finalize totals.
  const JobResult phases =
      run_shell(job.folder, MPIMON_BIN " matrix phase_1 phase_2 phase_3 --format csv --category external");
  const JobResult finals = run_shell(job.folder, MPIMON_BIN " matrix final --format csv --category external");
  ASSERT_EQ(phases.exit_code, 0) << phases.output;
  EXPECT_EQ(phases.output, finals.output);
  // Phase n holds exactly n ring messages of 8 bytes per rank.
  for (int phase = 1; phase <= 3; ++phase) {
    const auto records = prof_records(job.folder, "phase_" + std::to_string(phase), 4);
    for (int r = 0; r < 4; ++r) {
      const auto it = records.find({r, (r + 1) % 4, Category::external});
      ASSERT_NE(it, records.end());
      EXPECT_EQ(it->second, std::make_pair(uint64_t(phase), uint64_t(8 * phase)));
    }
  }
}
