// libmpimon_reorder.so as an application uses it: a C and a Fortran program built with
// mpicc / mpif90 and the one documented flag, run under mpirun with monitoring.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {

// Ranks 0-3 bound to core 0, 4-7 to core 1: partners w and w+4 are apart.
const char* kApartRankfile =
    "rank 0=localhost slot=0\nrank 1=localhost slot=0\nrank 2=localhost slot=0\nrank 3=localhost slot=0\n"
    "rank 4=localhost slot=1\nrank 5=localhost slot=1\nrank 6=localhost slot=1\nrank 7=localhost slot=1\n";

// Builds `source` the way docs/placement.md says, runs it on 8 ranks bound apart, and checks that
// the reordered ranks r and r+4 (logical partners) are processes bound to the same core.
void expect_partners_together(const std::string& compiler, const std::string& source, const std::string& language) {
  const auto folder = new_test_folder();
  std::ofstream(folder / "rf") << kApartRankfile;
  const JobResult build = run_shell(folder, "PKG_CONFIG_PATH=" MPIMON_PKG_CONFIG_DIR " " + compiler + " " + source +
                                                " $(PKG_CONFIG_PATH=" MPIMON_PKG_CONFIG_DIR
                                                " pkg-config --cflags --libs mpimon-reorder) -o app");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  const JobResult job = run_job_in(
      folder, 8,
      concat_arguments(rankfile_arguments("rf"), {"--mca", "mpi_yield_when_idle", "1", "--mca", "pml_monitoring_enable",
                                                  "2", "--mca", "pml_monitoring_job_file", "", "./app"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  std::map<int, int> world_of_new;  // reordered rank -> world rank
  const std::regex line(language + R"(: world (\d+) -> (\d+))");
  for (auto it = std::sregex_iterator(job.output.begin(), job.output.end(), line); it != std::sregex_iterator(); ++it)
    world_of_new[std::stoi((*it)[2])] = std::stoi((*it)[1]);
  ASSERT_EQ(world_of_new.size(), 8u) << job.output;
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(world_of_new[r] / 4, world_of_new[r + 4] / 4)
        << "logical partners " << r << " and " << r + 4 << " on different cores\n"
        << job.output;
  // The phase after the mark: neighbours w, w^1 share a core already, so nothing moves
  // (counted since MPI_Init, the partners' exchange would move them again).
  for (int w = 0; w < 8; ++w)
    EXPECT_NE(job.output.find(language + " phase: world " + std::to_string(w) + " -> " + std::to_string(w) + "\n"),
              std::string::npos)
        << job.output;
}

}  // namespace

TEST(ReorderLibrary, CProgramBuiltWithThePkgConfigFlag8Ranks) {
  expect_partners_together(MPICC_EXECUTABLE, MPIMON_TEST_PROGRAMS "/reorder_c.c", "C");
}

TEST(ReorderLibrary, FortranProgramBuiltWithThePkgConfigFlag8Ranks) {
  if (std::string(MPIF90_EXECUTABLE).empty())
    GTEST_SKIP() << "this Open MPI installation has no mpifort (built without Fortran)";
  expect_partners_together(MPIF90_EXECUTABLE, MPIMON_TEST_PROGRAMS "/reorder_fortran.f90", "Fortran");
}
