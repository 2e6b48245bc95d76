// Monitoring across hosts: the dumps of a job spread over emulated hosts (TCP between
// them) equal those of the same job on one host (shared memory only).
#include <gtest/gtest.h>

#include "cluster.h"
#include "dump_sections.h"

using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;

void expect_same_dumps_as_one_host(int hosts, int slots) {
  const int ranks = hosts * slots;
  const auto arguments = concat_arguments(concat_arguments(monitoring_arguments(), binary_tree_reduce_arguments()),
                                          {kExample, "ring", "reduce", "halo"});
  const JobResult one_host = run_job(ranks, arguments);
  ASSERT_EQ(one_host.exit_code, 0) << one_host.output;
  EmulatedCluster cluster(hosts, slots);
  const JobResult spread = cluster.run_job(ranks, arguments);
  ASSERT_EQ(spread.exit_code, 0) << spread.output;
  for (int r = 0; r < ranks; ++r) {
    const std::string name = "prof." + std::to_string(r) + ".prof";
    const std::string expected = point_to_point_section(one_host.folder / name);
    EXPECT_NE(expected.find("\nE\t"), std::string::npos) << expected;
    EXPECT_EQ(point_to_point_section(spread.folder / name), expected) << "rank " << r;
  }
  const std::string records = job_records(one_host.folder / "mpimon-job.txt");
  EXPECT_NE(records.find(" internal "), std::string::npos) << records;
  EXPECT_EQ(job_records(spread.folder / "mpimon-job.txt"), records);
}

}  // namespace

TEST(ClusterDumps, EqualTheOneHostRunOnTwoHosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  expect_same_dumps_as_one_host(2, 4);
}

TEST(ClusterDumps, EqualTheOneHostRunOnFourHosts8Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  expect_same_dumps_as_one_host(4, 2);
}
