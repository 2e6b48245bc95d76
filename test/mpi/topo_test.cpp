// topo/monitoring on one host: Open MPI's default without a job file (the component is not
// even selected), a graph communicator placed by a previous run (this machine's two cores
// playing hosts), and every job file that does not fit refused in one line with no
// reordering. Across emulated hosts: test/cluster/placement_test.cpp (ClusterTopo).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;

// "<kind>: world rank <w> is <kind> rank <r>" lines: new rank -> world rank.
std::map<int, int> world_of(const std::string& output, const std::string& kind) {
  std::map<int, int> world;
  const std::regex line(kind + R"(: world rank (\d+) is )" + kind + R"( rank (\d+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    world[std::stoi((*it)[2])] = std::stoi((*it)[1]);
  return world;
}

void expect_identity(const JobResult& job, int ranks) {
  const auto world = world_of(job.output, "cart");
  ASSERT_EQ(world.size(), static_cast<size_t>(ranks)) << job.output;
  for (const auto& [cart, w] : world) EXPECT_EQ(cart, w) << job.output;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The job ran, said `line` and nothing else about the topology component, and no rank moved.
void expect_refused_in_one_line(const JobResult& job, const std::string& line) {
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(count(job.output, "topo_monitoring: "), 1u) << job.output;
  EXPECT_NE(job.output.find(line), std::string::npos) << job.output;
  expect_identity(job, 4);
}

std::vector<std::string> cart_job(const std::vector<std::string>& topo_arguments) {
  return concat_arguments(concat_arguments(monitoring_arguments(), topo_arguments), {kPatterns, "cart", "4096"});
}

}  // namespace

TEST(TopoMonitoring, WithoutAJobFileOpenMpisDefaultIsSelectedAndNoRankMoves4Ranks) {
  const JobResult job = run_job(4, cart_job({"--mca", "topo_base_verbose", "10"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(count(job.output, "select: component basic selected"), 4u) << job.output;
  EXPECT_EQ(count(job.output, "select: component mpimon selected"), 0u) << job.output;
  expect_identity(job, 4);
}

TEST(TopoMonitoring, AGraphIsPlacedByAPreviousRunOnTheCoresItsProcessesAreBoundTo8Ranks) {
  // Processes 0-3 bound to core 0, 4-7 to core 1: graph neighbours i, i+4 are apart.
  const auto folder = new_test_folder();
  std::ofstream rankfile(folder / "rf");
  for (int r = 0; r < 8; ++r) rankfile << "rank " << r << "=localhost slot=" << r / 4 << "\n";
  rankfile.close();
  const std::vector<std::string> layout = concat_arguments(
      rankfile_arguments("rf"), {"--mca", "mpi_yield_when_idle", "1", "--mca", "pml_monitoring_enable", "2"});
  const JobResult first = run_job_in(
      folder, 8,
      concat_arguments(layout, {"--mca", "pml_monitoring_job_file", "first.txt", kPatterns, "graph", "65536"}));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  for (const auto& [g, w] : world_of(first.output, "graph")) EXPECT_EQ(g, w) << first.output;
  const JobResult second = run_job_in(
      folder, 8,
      concat_arguments(layout, {"--mca", "pml_monitoring_job_file", "second.txt", "--mca", "topo_monitoring_job_file",
                                "first.txt", "--mca", "topo_monitoring_verbose", "1", kPatterns, "graph", "65536"}));
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("topo_monitoring: by first.txt: 8 processes on 1 host(s)"), std::string::npos)
      << second.output;
  const auto world = world_of(second.output, "graph");
  ASSERT_EQ(world.size(), 8u) << second.output;
  for (int g = 0; g < 4; ++g)
    EXPECT_EQ(world.at(g) / 4, world.at(g + 4) / 4)
        << "graph neighbours " << g << " and " << g + 4 << " on different cores\n"
        << second.output;
}

TEST(TopoMonitoring, AJobFileOfAnotherSizeIsRefusedInOneLineAndNoRankMoves4Ranks) {
  const JobResult small = run_job(2, concat_arguments(monitoring_arguments(), {"--mca", "pml_monitoring_job_file",
                                                                               "two.txt", kPatterns, "cart", "4096"}));
  ASSERT_EQ(small.exit_code, 0) << small.output;
  const JobResult job = run_job_in(
      small.folder, 4,
      cart_job({"--mca", "topo_monitoring_job_file", "two.txt", "--mca", "pml_monitoring_job_file", "four.txt"}));
  expect_refused_in_one_line(
      job, "topo_monitoring: job file two.txt is a job of 2 processes, this one has 4; nothing reordered\n");
}

TEST(TopoMonitoring, AMissingOrDamagedJobFileOrBadTrafficIsOneLineAndNoRankMoves4Ranks) {
  const auto folder = new_test_folder();
  std::ofstream(folder / "cut.txt") << "# mpimon job file (one record per non-zero source, destination, category)\n"
                                       "format mpimon-job 2\nworld_size 4\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--mca", "topo_monitoring_job_file", "missing.txt"}, "topo_monitoring: missing.txt: cannot open"},
      {{"--mca", "topo_monitoring_job_file", "cut.txt"}, "topo_monitoring: cut.txt"},
      {{"--mca", "topo_monitoring_job_file", "cut.txt", "--mca", "topo_monitoring_traffic", "coll"},
       "topo_monitoring: topo_monitoring_traffic 'coll' is not all, external or internal: no reordering"},
  };
  for (const auto& [arguments, message] : cases) {
    const JobResult job =
        run_job_in(folder, 4, cart_job(concat_arguments(arguments, {"--mca", "pml_monitoring_job_file", ""})));
    expect_refused_in_one_line(job, message);
  }
}

TEST(TopoMonitoring, AJobFileOfAnotherProgramIsRefusedInOneLineAndNoRankMoves4Ranks) {
  // The job file names its program (a `program` annotation, rank 0's block). No .prof
  // files: they would move the next run in this folder to the next run number.
  const JobResult other = run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file",
                                      "example.txt", MPIMON_EXAMPLE, "ring"});
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_NE(read_text(other.folder / "example.txt").find("\nprogram mpimon_example\n"), std::string::npos);
  const JobResult job = run_job_in(
      other.folder, 4,
      cart_job({"--mca", "topo_monitoring_job_file", "example.txt", "--mca", "pml_monitoring_job_file", "cart.txt"}));
  expect_refused_in_one_line(job,
                             "topo_monitoring: job file example.txt is a run of 'mpimon_example', this program is "
                             "'mpi_patterns'; nothing reordered\n");
  // Its own job file names it, and reordering by it is accepted.
  EXPECT_NE(read_text(other.folder / "cart.txt").find("\nprogram mpi_patterns\n"), std::string::npos);
  const JobResult again =
      run_job_in(other.folder, 4,
                 cart_job({"--mca", "topo_monitoring_job_file", "cart.txt", "--mca", "topo_monitoring_verbose", "1",
                           "--mca", "pml_monitoring_job_file", ""}));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("topo_monitoring: by cart.txt: 4 processes on 1 host(s)"), std::string::npos)
      << again.output;
}
