// COLL layer, end to end: every collective's per-peer and per-communicator records
// (checked inside coll_patterns against the rules), the dumps, and stacking hygiene.
#include <gtest/gtest.h>

#include <filesystem>

#include "analyses/communicator_classes.h"
#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/job_reader.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kColl = MPIMON_COLL_PATTERNS;

JobResult run_coll(int ranks, const std::vector<std::string>& mode) {
  return run_job(ranks, concat_arguments({"--mca", "pml_monitoring_enable", "2", kColl}, mode));
}

}  // namespace

TEST(Coll, EveryCollectiveBlockingAndNonblocking4Ranks) { expect_every_rank_ok(run_coll(4, {"all"}), 4, "all"); }
TEST(Coll, EveryCollectiveBlockingAndNonblocking8Ranks) { expect_every_rank_ok(run_coll(8, {"all"}), 8, "all"); }
TEST(Coll, NeighborhoodOnCartGraphAndDistGraph4Ranks) {
  expect_every_rank_ok(run_coll(4, {"neighbors"}), 4, "neighbors");
}
TEST(Coll, NeighborhoodOnCartGraphAndDistGraph6Ranks) {
  expect_every_rank_ok(run_coll(6, {"neighbors"}), 6, "neighbors");
}
TEST(Coll, IntercommunicatorCollectives5Ranks) { expect_every_rank_ok(run_coll(5, {"intercomm"}), 5, "intercomm"); }
TEST(Coll, FailingCollectiveForwardsItsErrorAndRecordsNothing4Ranks) {
  expect_every_rank_ok(run_coll(4, {"errors"}), 4, "errors");
}

TEST(Coll, TenThousandDupFreeCyclesKeepMemoryFlatAndNoStaleEntry2Ranks) {
  const JobResult job = run_job(2, concat_arguments(monitoring_arguments(), {kColl, "dupfree", "10000"}));
  expect_every_rank_ok(job, 2, "dupfree");
  const std::string dump = read_text(job.folder / "prof.0.prof");
  size_t communicators = 0;
  for (size_t at = dump.find("\nD\t"); at != std::string::npos; at = dump.find("\nD\t", at + 1)) ++communicators;
  EXPECT_EQ(communicators, 3u) << dump;  // MPI_COMM_WORLD, MPI_COMM_SELF, the freed duplicates merged into one
}

TEST(Coll, CollectivesSectionOfTheDumps4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kColl, "dump"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  Edges expected;
  for (int r = 0; r < 4; ++r)
    for (int p = 0; p < 4; ++p)
      if (p != r) expected[{'C', r, p}] = {r == 0 ? 64u : 40u, r == 0 ? 2u : 1u};
  EXPECT_EQ(read_edges(job.folder, "C"), expected);
  const std::string rank0 = read_text(job.folder / "prof.0.prof");
  EXPECT_NE(
      rank0.find("D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\nO2A\t0\t72 bytes\t1 msgs sent\nA2O\t0\t0 bytes\t0 msgs sent\n"
                 "A2A\t0\t120 bytes\t1 msgs sent\n"),
      std::string::npos)
      << rank0;
  const std::string rank2 = read_text(job.folder / "prof.2.prof");
  EXPECT_NE(rank2.find("D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\nO2A\t2\t0 bytes\t0 msgs sent\nA2O\t2\t0 bytes\t0 msgs sent\n"
                       "A2A\t2\t120 bytes\t1 msgs sent\n"),
            std::string::npos)
      << rank2;
  EXPECT_NE(rank2.find("D\tMPI_COMM_SELF\tprocs: 2\n"), std::string::npos) << rank2;

  const JobFile file = read_job_file((job.folder / "mpimon-job.txt").string());
  std::vector<std::string> collectives, communicators;
  for (const JobAnnotation& a : file.annotations) {
    if (a.keyword == "series" || a.keyword == "program") continue;  // the time series' folder, the executable
    std::string line = a.keyword;
    for (const std::string& f : a.fields) line += " " + f;
    (a.keyword == "collectives" ? collectives : communicators).push_back(line);
  }
  // MPI_COMM_WORLD has context id 0 on every rank; its identity ties the lines together.
  const std::string world = CommunicatorClasses("MPI_COMM_WORLD", {0, 1, 2, 3}, 0).identity();
  EXPECT_EQ(communicators, std::vector<std::string>{"communicator " + world + " MPI_COMM_WORLD 0,1,2,3"});
  EXPECT_EQ(collectives,
            (std::vector<std::string>{
                "collectives 0 " + world + " 1 72 0 0 1 120", "collectives 1 " + world + " 0 0 0 0 1 120",
                "collectives 2 " + world + " 0 0 0 0 1 120", "collectives 3 " + world + " 0 0 0 0 1 120"}));
  int coll_records = 0;
  for (const JobRecord& r : file.records) coll_records += r.category == Category::coll;
  EXPECT_EQ(coll_records, 12);
}

TEST(Coll, OnlyThePmlLayerWhenCollMonitoringIsExcluded4Ranks) {
  const JobResult job = run_job(4, concat_arguments({"--mca", "coll", "^mpimon,monitoring"},
                                                    concat_arguments(monitoring_arguments(), {kColl, "dump"})));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_TRUE(read_edges(job.folder, "C").empty());
  EXPECT_FALSE(read_edges(job.folder, "I").empty()) << "the collectives' point-to-point decomposition is still seen";
  EXPECT_EQ(read_text(job.folder / "prof.0.prof").find("\nD\t"), std::string::npos);
}

// Smoke: LAMMPS' traffic depends on its domain decomposition, so only lower bounds are
// asserted here; the exact collective accounting is asserted on coll_patterns above.
TEST(Coll, LammpsMeltHasPointToPointAndCollectiveMatricesSmoke4Ranks) {
  MPIMON_SKIP_WITHOUT_LAMMPS();
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {"/usr/bin/lmp", "-in", LAMMPS_MELT, "-log",
                                                                             "none", "-screen", "none"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_GE(read_edges(job.folder, "E").size(), 4u);
  EXPECT_GE(read_edges(job.folder, "C").size(), 12u) << "every rank takes part in LAMMPS' allreduces";
}
