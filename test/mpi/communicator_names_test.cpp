// Communicator names in the dumps (D lines) are the names Open MPI gives the
// application's communicators, as with Debian's component: nothing of ours takes a
// communicator number during MPI_Init.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {

// The D lines of one rank's .prof file, sorted (Debian's component prints them in hash order).
std::vector<std::string> communicator_lines(const std::filesystem::path& file) {
  std::vector<std::string> lines;
  std::istringstream in(read_text(file));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("D\t", 0) == 0) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// What Open MPI calls split and dup communicators: "MPI COMMUNICATOR 3 SPLIT FROM 0" in
// 4.1, "MPI COMM 3 SPLIT FROM 0" in 5.0 (ompi/communicator/comm.c of each).
const std::string kNamePrefix =
    std::string(MPIMON_OMPI_VERSION).rfind("4.1.", 0) == 0 ? "MPI COMMUNICATOR" : "MPI COMM";

}  // namespace

TEST(CommunicatorNames, EqualDebiansComponentAndOpenMpisMonitoringTest4Ranks) {
  const auto arguments = concat_arguments(monitoring_arguments(), {MPIMON_PATTERNS, "names"});
  const JobResult ours = run_job(4, arguments);
  ASSERT_EQ(ours.exit_code, 0) << ours.output;
  const JobResult distro = run_job(4, arguments, Components::distro);
  ASSERT_EQ(distro.exit_code, 0) << distro.output;
  for (int r = 0; r < 4; ++r) {
    const std::string name = "prof." + std::to_string(r) + ".prof";
    const auto lines = communicator_lines(ours.folder / name);
    EXPECT_EQ(lines, communicator_lines(distro.folder / name)) << "rank " << r;
    // Open MPI's test/monitoring/monitoring_test.c: its first communicator, an even/odd
    // split of MPI_COMM_WORLD, is "MPI COMMUNICATOR 3 SPLIT FROM 0" (4.1).
    const std::string split = "D\t" + kNamePrefix + " 3 SPLIT FROM 0\tprocs: " + std::string(r % 2 ? "1,3" : "0,2");
    EXPECT_NE(std::find(lines.begin(), lines.end(), split), lines.end()) << read_text(ours.folder / name);
    EXPECT_NE(std::find(lines.begin(), lines.end(), "D\t" + kNamePrefix + " 4 DUP FROM 0\tprocs: 0,1,2,3"),
              lines.end());
  }
  // The job file names them the same way, and still gets written (its communicator is
  // made at MPI_Finalize now).
  const std::string job = read_text(ours.folder / "mpimon-job.txt");
  std::string encoded = kNamePrefix;
  for (size_t at; (at = encoded.find(' ')) != std::string::npos;) encoded.replace(at, 1, "%20");
  EXPECT_NE(job.find(" " + encoded + "%203%20SPLIT%20FROM%200 1,3\n"), std::string::npos) << job;
  EXPECT_EQ(job.find("mpimon%20private"), std::string::npos) << job;
}
