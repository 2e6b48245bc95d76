// Open MPI main's own lifecycle events (ompi.mpi.initialization/finalization,
// ompi.mpi.communicator_created/_freed, ompi.mpi.win_created/_freed), raised by our
// runtime and our COLL and OSC layers on 4.1/5.0: a program
// that knows only main's names and layouts (lifecycle_patterns) checks every value.
#include <gtest/gtest.h>

#include <regex>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {

const std::string kLifecycle = MPIMON_LIFECYCLE_PATTERNS;

}  // namespace

// 4 ranks: MPI_Init and MPI_Finalize, split into halves, a split only rank 0 joins, a dup, three windows (create,
// allocate, dynamic), all freed. Rank 0 is a member of 3 communicators, the others of 2;
// each window creation may add the one-sided component's own communicators (paired).
TEST(LifecycleEvents, CommunicatorsAndWindowsCreatedAndFreedWithMainsElements4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kLifecycle}));
  expect_every_rank_ok(job, 4, "lifecycle");
  const std::regex counts(
      R"(COUNTS rank (\d) init=1 final=1 comm_created=(\d+) comm_freed=(\d+) win_created=(\d+) win_freed=(\d+))");
  int lines = 0;
  for (std::sregex_iterator it(job.output.begin(), job.output.end(), counts), end; it != end; ++it, ++lines) {
    const int r = std::stoi((*it)[1]);
    EXPECT_EQ((*it)[2], (*it)[3]) << "rank " << r << ": every communicator created is freed";
    EXPECT_GE(std::stoi((*it)[2]), r == 0 ? 3 : 2) << "rank " << r;
    EXPECT_EQ("3", (*it)[4]) << "rank " << r;
    EXPECT_EQ("3", (*it)[5]) << "rank " << r;
  }
  EXPECT_EQ(4, lines) << job.output;
}

// Our layers raise them only while monitoring is on (they are where we see the moments):
// with monitoring off the types exist, nothing is raised.
TEST(LifecycleEvents, MonitoringOffRaisesNone4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "0", kLifecycle});
  EXPECT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("FAILED lifecycle [initialization events 0] [communicators created 0]"), std::string::npos)
      << job.output;
  EXPECT_NE(job.output.find("init=0 final=0 comm_created=0 comm_freed=0 win_created=0 win_freed=0"), std::string::npos)
      << job.output;
}
