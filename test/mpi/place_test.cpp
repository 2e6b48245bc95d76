// mpimon place end to end: from a real job's dump to a rankfile mpirun accepts.
#include <gtest/gtest.h>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {
const std::string kExample = MPIMON_EXAMPLE;
}

TEST(Place, RankfileForThisMachineIsAcceptedByMpirun2Ranks) {
  const JobResult job = run_job(2, {"--mca", "pml_monitoring_enable", "2", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobResult place = run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --topology machine --rankfile rf --keys keys");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("| mpimon TreeMatch |"), std::string::npos) << place.output;
  const JobResult placed = run_shell(job.folder, MPIRUN_EXECUTABLE " -np 2 --rankfile rf " + kExample + " ring");
  EXPECT_EQ(placed.exit_code, 0) << read_text(job.folder / "rf") << placed.output;
  EXPECT_EQ(read_text(job.folder / "keys").substr(0, 6), "# rank");
}

TEST(Place, BinaryTreeReduceOnTwoPackagesCrossesOnce8Ranks) {
  const JobResult job = run_job(
      8, concat_arguments({"--mca", "pml_monitoring_enable", "2"}, concat_arguments(binary_tree_reduce_arguments(), {kExample, "reduce"})));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobResult place =
      run_shell(job.folder, MPIMON_BIN " place mpimon-job.txt --category internal --topology 'pack:2 core:4 pu:1'");
  ASSERT_EQ(place.exit_code, 0) << place.output;
  EXPECT_NE(place.output.find("| identity (rank i on core i) | 1408 | 256 |"), std::string::npos) << place.output;
  EXPECT_NE(place.output.find("| mpimon TreeMatch | 1024 | 64 |"), std::string::npos) << place.output;
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

TEST(ReorderApi, ReorderedCommunicatorKeepsHeavyPartnersInOnePackage8Ranks) {
  const JobResult job = run_job(8, {"-x", "MPIMON_REORDER_TOPOLOGY=pack:2 core:4 pu:1", "--mca", "pml_monitoring_enable",
                                    "2", kExample, "reorder"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  // Partners w and w+4 exchange 64 KiB both ways: 8 x 64 KiB cross the package boundary
  // with rank i on core i, none once reordered.
  EXPECT_NE(job.output.find("reorder: bytes across the halves 524288 before, 0 after"), std::string::npos)
      << job.output;
}

TEST(ReorderApi, WithoutMonitoringSaysSoAndKeepsTheOrder4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "0", kExample, "reorder"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("reorder: not available"), std::string::npos) << job.output;
}

TEST(ToolsCli, MalformedDumpGivesFileLineAndExpectation) {
  const auto folder = new_test_folder();
  run_shell(folder, "printf '# POINT TO POINT\\nE\\t0\\t1\\tmany bytes\\t1 msgs sent\\n' > bad.0.prof");
  for (const char* command : {" matrix bad.0.prof", " show bad.0.prof", " place bad.0.prof --topology 'pack:1 core:2'",
                              " report bad.0.prof"}) {
    const JobResult r = run_shell(folder, MPIMON_BIN + std::string(command));
    EXPECT_EQ(r.exit_code, 2) << command << r.output;
    EXPECT_NE(r.output.find("bad.0.prof:2: expected a byte count"), std::string::npos) << command << r.output;
  }
  const JobResult help = run_shell(folder, MPIMON_BIN " place --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--topology"), std::string::npos);
}
