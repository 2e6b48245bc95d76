// PML layer, end to end: real mpirun jobs, exact matrices parsed from the dumps.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;
const std::string kPatterns = MPIMON_PATTERNS;
const std::vector<std::string> kBinaryTreeReduce = binary_tree_reduce_arguments();

void expect_success(const JobResult& job) { ASSERT_EQ(job.exit_code, 0) << job.output; }

std::vector<fs::path> files_in(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder)) files.push_back(e.path().filename());
  return files;
}

// The "# POINT TO POINT" section of a dump, verbatim.
std::string point_to_point_section(const fs::path& file) {
  const std::string text = read_text(file);
  return text.substr(0, text.find("# OSC"));
}

}  // namespace

TEST(PmlDump, Ring4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kExample, "ring"}));
  expect_success(job);
  const auto lines = read_lines(job.folder, 4);
  std::vector<ProfLine> external;
  for (const auto& l : lines)
    if (l.kind == 'E') external.push_back(l);
  ASSERT_EQ(external.size(), 4u);
  for (const ProfLine& l : external) {
    EXPECT_EQ(l.peer, (l.me + 1) % 4);
    EXPECT_EQ(l.bytes, 1024u);
    EXPECT_EQ(l.messages, 1u);
    ASSERT_TRUE(l.has_histogram);
    for (int b = 0; b < kHistogramBuckets; ++b) EXPECT_EQ(l.histogram[b], b == 11 ? 1u : 0u) << "bucket " << b;
  }
}

TEST(PmlDump, BinaryTreeReduce8RanksHasExactlyTheTreeEdges) {
  const JobResult job =
      run_job(8, concat_arguments(concat_arguments(monitoring_arguments(), kBinaryTreeReduce), {kExample, "reduce"}));
  expect_success(job);
  const Edges expected = {{{'I', 1, 0}, {64, 1}}, {{'I', 2, 0}, {64, 1}}, {{'I', 3, 1}, {64, 1}},
                          {{'I', 5, 1}, {64, 1}}, {{'I', 4, 2}, {64, 1}}, {{'I', 6, 2}, {64, 1}},
                          {{'I', 7, 3}, {64, 1}}};
  EXPECT_EQ(read_edges(job.folder, "EI"), expected);
}

TEST(PmlDump, Halo8RanksOnAPeriodic4x2Grid) {
  const JobResult job = run_job(8, concat_arguments(monitoring_arguments(), {kExample, "halo"}));
  expect_success(job);
  // MPI_Dims_create(8, 2) = {4, 2}; row-major ranks; in the dimension of size 2 both
  // neighbours are the same rank, which therefore gets two messages.
  Edges expected;
  for (int r = 0; r < 8; ++r) {
    const int row = r / 2, column = r % 2;
    const int neighbours[4] = {((row + 3) % 4) * 2 + column, ((row + 1) % 4) * 2 + column, row * 2 + (1 - column),
                               row * 2 + (1 - column)};
    for (int n : neighbours) {
      auto& e = expected[{'E', r, n}];
      e.first += 512;
      e.second += 1;
    }
  }
  EXPECT_EQ(read_edges(job.folder, "E"), expected);
}

TEST(PmlDump, DupAndSplitCommunicatorsLandAtWorldRanks6Ranks) {
  const JobResult job = run_job(6, concat_arguments(monitoring_arguments(), {kPatterns, "comms"}));
  expect_success(job);
  Edges expected;
  for (int r = 0; r < 6; ++r) expected[{'E', r, (r + 1) % 6}] = {100, 1};
  // Split by parity with key -rank: split rank 0 is the highest world rank of each half.
  for (int r : {0, 2}) expected[{'E', r, 4}] = {200, 1};
  for (int r : {1, 3}) expected[{'E', r, 5}] = {200, 1};
  EXPECT_EQ(read_edges(job.folder, "E"), expected);
}

TEST(PmlDump, SendInitWithThreeStartsIsThreeMessages4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kExample, "persistent"}));
  expect_success(job);
  Edges expected;
  for (int r = 0; r < 4; ++r) expected[{'E', r, (r + 1) % 4}] = {48, 3};
  EXPECT_EQ(read_edges(job.folder, "E"), expected);
}

TEST(PmlDump, FourThreadsUnderThreadMultipleCountExactly4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kPatterns, "threads", "2000"}));
  expect_success(job);
  Edges expected;
  for (int r = 0; r < 4; ++r) expected[{'E', r, (r + 1) % 4}] = {4 * 2000 * 8, 4 * 2000};
  EXPECT_EQ(read_edges(job.folder, "E"), expected);
}

TEST(PmlDump, EnableLevel1PutsInternalTrafficWithTheApplications8Ranks) {
  const auto program = std::vector<std::string>{kExample, "ring", "reduce"};
  const JobResult level1 =
      run_job(8, concat_arguments(concat_arguments(monitoring_arguments(1), kBinaryTreeReduce), program));
  const JobResult level2 =
      run_job(8, concat_arguments(concat_arguments(monitoring_arguments(2), kBinaryTreeReduce), program));
  expect_success(level1);
  expect_success(level2);
  const Edges split = read_edges(level2.folder, "EI");
  Edges merged;
  for (const auto& [key, value] : split) {
    auto& e = merged[{'E', std::get<1>(key), std::get<2>(key)}];
    e.first += value.first;
    e.second += value.second;
  }
  EXPECT_EQ(read_edges(level1.folder, "EI"), merged);  // no I line at level 1
  EXPECT_EQ(split.count({'I', 7, 3}), 1u);
  EXPECT_EQ(split.count({'E', 7, 0}), 1u);
}

TEST(PmlDump, PointToPointSectionIsByteIdenticalToOpenMpisComponent8Ranks) {
  // Same program under Debian's own component and ours (no persistent sends, which the
  // distro does not count).
  const auto program = concat_arguments(concat_arguments(monitoring_arguments(), kBinaryTreeReduce),
                                        {kExample, "ring", "reduce", "halo"});
  const JobResult distro = run_job(8, program, Components::distro);
  const JobResult ours = run_job(8, program, Components::ours);
  expect_success(distro);
  expect_success(ours);
  for (int r = 0; r < 8; ++r) {
    const std::string name = "prof." + std::to_string(r) + ".prof";
    EXPECT_EQ(point_to_point_section(ours.folder / name), point_to_point_section(distro.folder / name)) << name;
    // Our file carries no collective section yet beyond its header.
    EXPECT_NE(read_text(ours.folder / name).find("# OSC\n# COLLECTIVES\n"), std::string::npos);
  }
}

TEST(PmlDump, StandardOutputDump4Ranks) {
  const JobResult job = run_job(
      4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "1", kExample, "ring"});
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string line =
        "E\t" + std::to_string(r) + "\t" + std::to_string((r + 1) % 4) + "\t1024 bytes\t1 msgs sent\t";
    EXPECT_NE(job.output.find(line), std::string::npos) << job.output;
  }
}

// Smoke: a real application runs monitored; its edges depend on LAMMPS' domain
// decomposition, so only a lower bound is asserted (exact values: the patterns above).
TEST(PmlDump, LammpsMeltRunsMonitoredSmoke4Ranks) {
  MPIMON_SKIP_WITHOUT_LAMMPS();
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {"/usr/bin/lmp", "-in", LAMMPS_MELT, "-log",
                                                                             "none", "-screen", "none"}));
  expect_success(job);
  const Edges edges = read_edges(job.folder, "EI");
  int external = 0;
  for (const auto& [key, value] : edges) {
    if (std::get<0>(key) == 'E') ++external;
    EXPECT_GT(value.second, 0u);
  }
  EXPECT_GE(external, 4) << "every rank exchanges atoms with neighbours";
}

// A real application under Open MPI's own component and ours (on 4.1 Debian's plugin, on 5.0
// the component built into libmpi): LAMMPS' melt example sends no persistent message and no
// collective through the PML's start, where Open MPI's component is wrong, so every rank's
// point-to-point section must be the same, byte for byte.
TEST(PmlDump, LammpsMeltPointToPointEqualsOpenMpisComponent4Ranks) {
  MPIMON_SKIP_WITHOUT_LAMMPS();
  const auto program =
      concat_arguments(monitoring_arguments(), {"/usr/bin/lmp", "-in", LAMMPS_MELT, "-log", "none", "-screen", "none"});
  const JobResult distro = run_job(4, program, Components::distro);
  const JobResult ours = run_job(4, program, Components::ours);
  expect_success(distro);
  expect_success(ours);
  for (int r = 0; r < 4; ++r) {
    const std::string name = "prof." + std::to_string(r) + ".prof";
    const std::string section = point_to_point_section(ours.folder / name);
    EXPECT_NE(section.find("E\t"), std::string::npos) << name << ": no point-to-point line";
    EXPECT_EQ(section, point_to_point_section(distro.folder / name)) << name;
  }
}

// ---------------------------------------------------------------------------------------
// Bad input: a clear one-line warning, the job runs on, nothing half-written.

TEST(PmlBadInput, NonNumericEnableWarnsAndRunsUnmonitored4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "abc", "--mca", "pml_monitoring_enable_output",
                                    "3", "--mca", "pml_monitoring_filename", "prof", kExample, "ring"});
  expect_success(job);
  EXPECT_NE(job.output.find("mpimon: invalid value 'abc' for MCA parameter pml_monitoring_enable (valid: 0 off"),
            std::string::npos)
      << job.output;
  EXPECT_TRUE(files_in(job.folder).empty());
}

TEST(PmlBadInput, NegativeEnableWarnsAndRunsUnmonitored4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "-1", kExample, "ring"});
  expect_success(job);
  EXPECT_NE(job.output.find("invalid value '-1' for MCA parameter pml_monitoring_enable"), std::string::npos)
      << job.output;
  // Said once per job (by world rank 0), not once per rank.
  EXPECT_EQ(job.output.find("pml_monitoring_enable", job.output.find("pml_monitoring_enable") + 1), std::string::npos);
}

TEST(PmlBadInput, UnwritableDumpFolderWarnsAndExitsZero4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                    "--mca", "pml_monitoring_filename", "missing/folder/prof", kExample, "ring"});
  expect_success(job);
  EXPECT_NE(job.output.find("rank 2: monitoring dump not written: missing/folder/prof.2.prof: cannot open its folder "
                            "missing/folder: No such file or directory"),
            std::string::npos)
      << job.output;
  EXPECT_NE(job.output.find("No such file or directory"), std::string::npos);
  std::vector<fs::path> files = files_in(job.folder);
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<fs::path>{"mpimon-job.txt", "mpimon-job.txt.series"}))
      << "no .prof file, no temporary: the job file and its time series only";
}

// Plain mpirun (our components loaded through the environment): a pml list without ours
// leaves our PML out; the job runs, unmonitored, and says so in one line.
TEST(PmlBadInput, PmlOb1WithoutOursSaysSoInOneLineAndOb1CommaMpimonWorks4Ranks) {
  const auto plain_mpirun = [](const std::string& pml) {
    std::string command = component_environment(Components::ours) + " " MPIRUN_EXECUTABLE " -np 4 --mca pml " + pml;
    for (const std::string& a : monitoring_arguments()) command += " " + shell_quote(a);
    return run_shell(new_test_folder(), command + " " + kExample + " ring");
  };
  const JobResult alone = plain_mpirun("ob1");
  expect_success(alone);
  EXPECT_TRUE(files_in(alone.folder).empty());
  const std::string line =
      "mpimon: pml_monitoring_enable is 2 but the pml selection left mpimon's PML out (selected: 'ob1'): nothing is "
      "monitored. Start the job with `mpimon run`, or add mpimon to your pml list (e.g. --mca pml ob1,mpimon)\n";
  const size_t at = alone.output.find(line);
  EXPECT_NE(at, std::string::npos) << alone.output;
  EXPECT_EQ(alone.output.find("mpimon", at + line.size()), std::string::npos) << "one line per job\n" << alone.output;
  const JobResult listed = plain_mpirun("ob1,mpimon");
  expect_success(listed);
  EXPECT_EQ(read_edges(listed.folder, "E").size(), 4u);
}

// mpimon run merges the user's own pml selection, on the command line or in the
// environment, with ours (component_selection.h); Open MPI's name for monitoring in a
// list means ours.
TEST(PmlComponent, MpimonRunMergesTheUsersPmlSelection4Ranks) {
  for (const char* selection : {"--mca pml ob1", "--mca pml ob1,monitoring", "-mca pml ^cm"}) {
    const JobResult job = run_shell(new_test_folder(), MPIMON_BIN " run -- -np 4 " + std::string(selection) +
                                                           " --mca pml_monitoring_enable 2 " + kExample + " ring");
    ASSERT_EQ(job.exit_code, 0) << selection << "\n" << job.output;
    EXPECT_EQ(read_job_file((job.folder / "mpimon-job.txt").string()).records.size(), 4u) << selection;
  }
  const JobResult job =
      run_shell(new_test_folder(),
                "OMPI_MCA_pml=ob1 " MPIMON_BIN " run -- -np 4 --mca pml_monitoring_enable 2 " + kExample + " ring");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(read_job_file((job.folder / "mpimon-job.txt").string()).records.size(), 4u);
}

TEST(PmlComponent, OmpiInfoShowsOurComponentThroughTheEnvironmentScript) {
  // Our component is listed under its own name; its variables under Open MPI's names.
  const JobResult info =
      run_shell(new_test_folder(), ". " MPIMON_ENV_SCRIPT " && " + sanitizer_environment() + OMPI_INFO " && " +
                                       sanitizer_environment() + OMPI_INFO " --param pml monitoring --level 9");
  EXPECT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("MCA pml: mpimon (MCA v2.1.0"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("Component v" MPIMON_VERSION ")"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("(mpimon)"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("pml_monitoring_enable_output"), std::string::npos) << info.output;
}

TEST(PmlComponent, MpimonRunLauncherPutsOurComponentsFirst4Ranks) {
  // Without the launcher Open MPI finds Debian's component (which writes no job file).
  const JobResult job = run_shell(new_test_folder(), "env -u OMPI_MCA_mca_base_component_path " MPIMON_BIN
                                                     " run -- -np 4 --mca pml_monitoring_enable 2 " +
                                                         kExample + " ring");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(read_job_file((job.folder / "mpimon-job.txt").string()).records.size(), 4u);
}

TEST(PmlComponent, MpimonRunWithoutPluginsSaysWhere) {
  const JobResult job = run_shell(new_test_folder(), "MPIMON_PLUGIN_DIR=/nonexistent " MPIMON_BIN " run -- -np 1 true");
  EXPECT_EQ(job.exit_code, 127);
  EXPECT_NE(job.output.find("mpimon run: /nonexistent: no mca_pml_mpimon.so there"), std::string::npos) << job.output;
}
