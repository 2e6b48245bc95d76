// Monitoring across hosts: the dumps of a job spread over emulated hosts (TCP between
// them) equal those of the same job on one host (shared memory only).
#include <gtest/gtest.h>

#include <sstream>

#include "cluster.h"

using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;

// The "# POINT TO POINT" section of a .prof file, byte for byte.
std::string point_to_point_section(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  const size_t begin = text.find("# POINT TO POINT\n");
  if (begin == std::string::npos) return "(no point-to-point section in " + file.string() + ")";
  const size_t end = text.find("\n# ", begin + 1);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

// Everything after the job file's `records` line (records and annotations), without the
// per-rank `checksum` lines (rank 0's covers the header, whose times differ between runs).
std::string job_records(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  const size_t at = text.find("\nrecords\n");
  if (at == std::string::npos) return "(no records in " + file.string() + ")";
  std::string kept;
  std::istringstream lines(text.substr(at));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("checksum ", 0) != 0) kept += line + "\n";
  return kept;
}

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
