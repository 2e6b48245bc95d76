// The job file, end to end: its records equal the .prof files' content, it never overwrites
// an earlier one, and it fails without a crash or a half-written file.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "mpi_job.h"
#include "readers/job_reader.h"
#include "record_tables.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;

}  // namespace

TEST(JobFile, RecordsEqualThePerRankProfContent8Ranks) {
  const JobResult job =
      run_job(8, concat_arguments(concat_arguments(monitoring_arguments(), binary_tree_reduce_arguments()),
                                  {kExample, "ring", "reduce"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobFile file = read_job_file((job.folder / "mpimon-job.txt").string());
  EXPECT_EQ(file.header.world_size, 8);
  EXPECT_EQ(file.header.enable_level, 2);
  EXPECT_EQ(file.header.open_mpi_version, MPIMON_OMPI_VERSION);
  EXPECT_TRUE(std::regex_match(file.header.start_time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(job_records(file), prof_records(job.folder, "prof", 8));
  // 8 ring edges + 7 tree edges (PML) + 7 reduce contributions to the root (COLL): the
  // private communicator's duplication is not counted.
  EXPECT_EQ(file.records.size(), 22u);
}

TEST(JobFile, LammpsMeltRecordsEqualTheProfContent4Ranks) {
  MPIMON_SKIP_WITHOUT_LAMMPS();
  const JobResult job =
      run_job(4, concat_arguments({"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                   "--mca", "pml_monitoring_filename", "prof"},
                                  {"/usr/bin/lmp", "-in", LAMMPS_MELT, "-log", "none", "-screen", "none"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobFile file = read_job_file((job.folder / "mpimon-job.txt").string());
  EXPECT_GT(file.records.size(), 4u);
  EXPECT_EQ(job_records(file), prof_records(job.folder, "prof", 4));
}

TEST(JobFile, ExistingNameIsNeverOverwritten8Ranks) {
  const std::vector<std::string> arguments = {
      "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file", "job.txt", kExample, "ring"};
  JobResult job = run_job(8, arguments);
  ASSERT_EQ(job.exit_code, 0) << job.output;
  // Same folder again: a second job must keep the first file and say where it wrote.
  const std::string first = read_text(job.folder / "job.txt");
  const std::string command_folder = job.folder.string();
  JobResult second = run_job_in(command_folder, 8, arguments);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(read_text(job.folder / "job.txt"), first);
  EXPECT_TRUE(fs::exists(job.folder / "job.txt.1"));
  EXPECT_NE(second.output.find("mpimon: files of an earlier run are in the way, and nothing is overwritten: this run's "
                               "job file job.txt.1\n"),
            std::string::npos)
      << second.output;
  EXPECT_EQ(read_job_file((job.folder / "job.txt.1").string()).records.size(), 8u);
}

TEST(JobFile, UnwritableLocationWarnsExitsZeroAndLeavesNoFile4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file",
                                    "missing/job.txt", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("mpimon: job file missing/job.txt not written: missing/job.txt: cannot open its folder "
                            "missing: No such file or directory"),
            std::string::npos)
      << job.output;
  EXPECT_TRUE(fs::is_empty(job.folder));
}

TEST(JobFile, EmptyNameMeansNoJobFile4Ranks) {
  const JobResult job =
      run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file", "", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_TRUE(fs::is_empty(job.folder));
}
