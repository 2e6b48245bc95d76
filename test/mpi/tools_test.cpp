// mpimon matrix / show / report on real dumps: every input form of one run gives the same
// answers (job file, folder of .prof files, captured standard output), one-sided gets read
// from the target to the origin, and Open MPI's profile2mat agrees with `--format mat`
// on our dumps and on Debian's component's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "mpi_job.h"

namespace fs = std::filesystem;
using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;
const std::string kOsc = MPIMON_OSC_PATTERNS;
const std::string kPvars = MPIMON_PVAR_PATTERNS;

JobResult run_mpimon(const fs::path& folder, const std::string& arguments) {
  return run_shell(folder, std::string(MPIMON_BIN) + " " + arguments);
}

// stdout only (the reader's note about skipped lines goes to stderr).
std::string mpimon_stdout(const fs::path& folder, const std::string& arguments) {
  const JobResult r = run_shell(folder, "(" + std::string(MPIMON_BIN) + " " + arguments + " 2>/dev/null)");
  EXPECT_EQ(r.exit_code, 0) << arguments << "\n" << r.output;
  return r.output;
}

// A report without its first paragraph (what was read: job file header, skipped lines).
std::string report_sections(const fs::path& file) {
  const std::string page = read_text(file);
  const size_t first = page.find("<h2>");
  return first == std::string::npos ? page : page.substr(first);
}

// Every command's output for one input, keyed by the command. Message sizes (histograms,
// the report's section) are left out with `sizes` false: .prof files have none for
// one-sided traffic, the job file has them.
std::map<std::string, std::string> every_answer(const fs::path& folder, const std::string& input, bool sizes = true) {
  std::map<std::string, std::string> out;
  for (const char* command :
       {"matrix", "matrix --metric bytes --category all", "matrix --category osc --metric bytes",
        "matrix --format mtx --metric bytes", "matrix --format sparse --category coll",
        "matrix --format mat --symmetric --metric average", "show", "show --category internal --metric messages"})
    out[command] = mpimon_stdout(folder, std::string(command) + " " + input);
  if (sizes)
    for (const char* command : {"show --histograms 0", "show --histograms 1 --category all"})
      out[command] = mpimon_stdout(folder, std::string(command) + " " + input);
  const JobResult report = run_mpimon(folder, "report " + input + " -o report.html");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  std::string sections = report_sections(folder / "report.html");
  auto erase_section = [&sections](const std::string& heading) {
    const size_t begin = sections.find("<h2>" + heading + "</h2>");
    if (begin == std::string::npos) return;
    const size_t end = std::min(sections.find("<h2>", begin + 4), sections.find("<p style=", begin));
    sections.erase(begin, end - begin);
  };
  if (!sizes) erase_section("Message sizes");
  // Only a job file has a time series (its `series` line): .prof files and captures have no time.
  erase_section("Over time");
  out["report"] = sections;
  return out;
}

void expect_same_answers(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  for (const auto& [command, text] : a) EXPECT_EQ(text, b.at(command)) << "mpimon " << command;
}

// A profile2mat-style .mat file as numbers (rows of values).
using Mat = std::vector<std::vector<double>>;
Mat read_mat(const fs::path& file) {
  Mat m;
  std::istringstream in(read_text(file));
  for (std::string line; std::getline(in, line);) {
    std::istringstream values(line);
    m.emplace_back();
    for (double v; values >> v;) m.back().push_back(v);
  }
  return m;
}

double at(const Mat& m, size_t i, size_t j) { return i < m.size() && j < m[i].size() ? m[i][j] : 0.0; }

// Equal cell by cell (a missing row or column is zeros: profile2mat sizes each matrix by
// the highest rank in its lines, we by the job), within `tolerance`.
void expect_same_mat(const Mat& a, const Mat& b, double tolerance, const std::string& what) {
  const size_t n = std::max(a.size(), b.size());
  size_t differences = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (std::abs(at(a, i, j) - at(b, i, j)) > tolerance && differences++ < 5)
        ADD_FAILURE() << what << " [" << i << "][" << j << "]: " << at(a, i, j) << " vs " << at(b, i, j);
  EXPECT_EQ(differences, 0u) << what;
}

// Runs /usr/bin/profile2mat on <folder>/<prof> and `mpimon matrix <prof> --format mat
// --symmetric --output ours`, then compares every category both write. profile2mat's `all`
// also adds C (the collectives' logical pattern, whose messages are in I): it must equal
// our `all` plus our `coll`.
// Returns the categories profile2mat wrote (besides all), each compared in three metrics.
std::set<std::string> expect_profile2mat_agrees(const fs::path& folder, const std::string& prof) {
  std::set<std::string> categories;
  const JobResult theirs = run_shell(folder, "/usr/bin/profile2mat " + prof);
  EXPECT_EQ(theirs.exit_code, 0) << theirs.output;
  const JobResult ours = run_mpimon(folder, "matrix " + prof + " --format mat --symmetric --output ours");
  EXPECT_EQ(ours.exit_code, 0) << ours.output;
  const std::string stem = prof.substr(0, prof.size() - 5);
  for (const char* metric : {"size", "msg", "avg"}) {
    for (const char* category : {"external", "internal", "osc", "coll"}) {
      const fs::path their_file = folder / (stem + "_" + metric + "_" + category + ".mat");
      if (!fs::exists(their_file)) continue;
      const fs::path our_file = folder / (std::string("ours_") + metric + "_" + category + ".mat");
      EXPECT_TRUE(fs::exists(our_file)) << our_file << "\n" << ours.output;
      expect_same_mat(read_mat(their_file), read_mat(our_file), 0, their_file.filename().string());
      categories.insert(category);
    }
    if (std::string(metric) == "avg") continue;  // averages do not add up
    const Mat their_all = read_mat(folder / (stem + "_" + metric + "_all.mat"));
    const Mat our_all = read_mat(folder / (std::string("ours_") + metric + "_all.mat"));
    Mat our_all_and_coll = our_all;
    if (fs::exists(folder / (std::string("ours_") + metric + "_coll.mat"))) {
      const Mat coll = read_mat(folder / (std::string("ours_") + metric + "_coll.mat"));
      const size_t n = std::max(our_all.size(), coll.size());
      our_all_and_coll.assign(n, std::vector<double>(n, 0));
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) our_all_and_coll[i][j] = at(our_all, i, j) + at(coll, i, j);
    }
    // Each side rounds its halves ("%.0f"): 1 apart at most.
    EXPECT_FALSE(their_all.empty()) << theirs.output;
    expect_same_mat(their_all, our_all_and_coll, 1, std::string(metric) + " all = our all + our coll");
  }
  return categories;
}

const std::set<std::string> kPointToPointAndCollectives{"external", "internal", "coll"};

}  // namespace

TEST(ToolsInputs, JobFileFolderAndPrefixGiveTheSameAnswers8Ranks) {
  const fs::path folder = new_test_folder();
  fs::create_directory(folder / "dumps");
  const JobResult job = run_job_in(
      folder, 8,
      concat_arguments(concat_arguments({"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output",
                                         "3", "--mca", "pml_monitoring_filename", "dumps/prof"},
                                        binary_tree_reduce_arguments()),
                       {kExample, "ring", "reduce", "halo"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const auto from_job = every_answer(folder, "mpimon-job.txt");
  const auto from_folder = every_answer(folder, "dumps");  // was "no *.prof files"
  expect_same_answers(from_job, from_folder);
  expect_same_answers(from_job, every_answer(folder, "dumps/prof"));
  // Sanity: the answers are not empty ones. The ring's 1 KiB in all, the tree's 64-byte
  // messages in internal, the collectives' table from the .prof D lines too.
  EXPECT_NE(from_job.at("matrix --metric bytes --category all").find("1024"), std::string::npos);
  EXPECT_EQ(from_job.at("matrix --metric bytes --category all").find("no traffic"), std::string::npos);
  EXPECT_NE(from_folder.at("report").find("MPI_COMM_WORLD"), std::string::npos);
  EXPECT_NE(from_folder.at("show --histograms 0").find("<2K"), std::string::npos);
}

TEST(ToolsInputs, CapturedStandardOutputOfLammpsIsReadLikeTheJobFile4Ranks) {
  MPIMON_SKIP_WITHOUT_LAMMPS();
  const fs::path folder = new_test_folder();
  // LAMMPS prints its progress on stdout, between and around the ranks' dumps.
  const JobResult job = run_job_in(folder, 4,
                                   {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "1",
                                    "/usr/bin/lmp", "-in", LAMMPS_MELT, "-log", "none"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  std::ofstream(folder / "capture.txt") << job.output;
  ASSERT_NE(job.output.find("Loop time"), std::string::npos) << "LAMMPS' own output is in the capture";
  const JobResult matrix = run_mpimon(folder, "matrix capture.txt --format mtx --metric bytes");
  ASSERT_EQ(matrix.exit_code, 0) << matrix.output;  // was: rejected at the first LAMMPS line
  EXPECT_NE(matrix.output.find("mpimon: skipped "), std::string::npos) << matrix.output;
  EXPECT_NE(matrix.output.find(" lines that are not monitoring output (mpirun's or the application's) in 1 file, "
                               "the first at capture.txt:"),
            std::string::npos)
      << matrix.output;
  expect_same_answers(every_answer(folder, "mpimon-job.txt"), every_answer(folder, "capture.txt"));
}

TEST(ToolsInputs, OneSidedGetsReadFromTheTargetToTheOrigin4Ranks) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_job_in(folder, 4, concat_arguments(monitoring_arguments(), {kOsc, "ops"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  // Rank r reads from its right neighbour t = r + 1 among others: the R record (r, t) is
  // the cell t -> r of the osc_recv matrix, and of the combined osc matrix with S.
  std::map<std::pair<int, int>, uint64_t> recorded;  // (origin, target) -> bytes of R lines
  for (const auto& [key, value] : read_edges(folder, "R")) recorded[{std::get<1>(key), std::get<2>(key)}] = value.first;
  ASSERT_FALSE(recorded.empty());
  const std::string sparse =
      mpimon_stdout(folder, "matrix mpimon-job.txt --category osc_recv --format sparse --metric bytes");
  for (const auto& [pair, bytes] : recorded) {
    const std::string cell =
        std::to_string(pair.second) + "," + std::to_string(pair.first) + "," + std::to_string(bytes);
    EXPECT_NE(sparse.find("\n" + cell + "\n"), std::string::npos) << cell << " in\n" << sparse;
  }
  EXPECT_EQ(sparse, mpimon_stdout(folder, "matrix prof --category osc_recv --format sparse --metric bytes"));
  const std::string svg_run = mpimon_stdout(folder, "show mpimon-job.txt --category osc_recv --svg r.svg");
  const std::string svg = read_text(folder / "r.svg");
  EXPECT_NE(svg.find(">target (read from)<"), std::string::npos);
  EXPECT_NE(svg.find(">origin (reader)<"), std::string::npos);
  const auto& [first_pair, first_bytes] = *recorded.begin();
  EXPECT_NE(svg.find("<title>rank " + std::to_string(first_pair.second) + " -> rank " +
                     std::to_string(first_pair.first) + ": "),
            std::string::npos);
  // The combined one-sided category, in matrix, show and the .mat files.
  EXPECT_NE(mpimon_stdout(folder, "matrix prof --category osc").find("one-sided, both directions (S + R)"),
            std::string::npos);
  expect_same_answers(every_answer(folder, "mpimon-job.txt", false), every_answer(folder, "prof", false));
  // Sizes of one-sided traffic: in the job file, and said to be missing from .prof files.
  const std::string target = std::to_string(first_pair.second);
  EXPECT_NE(mpimon_stdout(folder, "show mpimon-job.txt --histograms " + target + " --category osc_recv")
                .find("message sizes sent by rank " + target + " (osc_recv)"),
            std::string::npos);
  EXPECT_NE(mpimon_stdout(folder, "show prof --histograms " + target + " --category osc_recv")
                .find("(S, R, C lines) has no size histogram in .prof files"),
            std::string::npos);
}

TEST(ToolsInputs, AggregateProfilesArgumentFormSumsThePhases4Ranks) {
  MPIMON_SKIP_WITHOUT("/usr/bin/aggregate_profile");
  const fs::path folder = new_test_folder();
  fs::create_directory(folder / "prof");
  const JobResult job = run_job_in(folder, 4,
                                   {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                    "--mca", "pml_monitoring_filename", "final", kPvars, "phases"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  run_shell(folder, "mv phase_* prof/");
  // aggregate_profile prof/phase: the phases' files; mpimon takes the same argument.
  const std::string phases = mpimon_stdout(folder, "matrix prof/phase --format csv --category external");
  EXPECT_EQ(phases, mpimon_stdout(folder, "matrix final --format csv --category external"));
  EXPECT_EQ(mpimon_stdout(folder, "matrix prof --format csv --category external"), phases);  // the folder
  // Each phase agrees with profile2mat on aggregate_profile's concatenation of it.
  const JobResult aggregated = run_shell(folder, "cd prof && /usr/bin/aggregate_profile phase");
  ASSERT_EQ(aggregated.exit_code, 0) << aggregated.output;
  ASSERT_TRUE(fs::exists(folder / "prof/phase_2.prof")) << aggregated.output;
  EXPECT_TRUE(expect_profile2mat_agrees(folder / "prof", "phase_2.prof").count("external"));
}

TEST(Profile2mat, AgreesWithFormatMatOnOurDumps8Ranks) {
  MPIMON_SKIP_WITHOUT("/usr/bin/profile2mat");
  const fs::path folder = new_test_folder();
  const JobResult job =
      run_job_in(folder, 8,
                 concat_arguments(concat_arguments(monitoring_arguments(), binary_tree_reduce_arguments()),
                                  {kExample, "ring", "reduce", "halo"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  run_shell(folder, "cat prof.*.prof > all.prof");
  EXPECT_EQ(expect_profile2mat_agrees(folder, "all.prof"), kPointToPointAndCollectives);
}

TEST(Profile2mat, AgreesWithFormatMatOnOurOneSidedDumps4Ranks) {
  MPIMON_SKIP_WITHOUT("/usr/bin/profile2mat");
  const fs::path folder = new_test_folder();
  const JobResult osc = run_job_in(folder, 4, concat_arguments(monitoring_arguments(), {kOsc, "ops"}));
  ASSERT_EQ(osc.exit_code, 0) << osc.output;
  run_shell(folder, "cat prof.*.prof > osc.prof && rm prof.*.prof mpimon-job.txt");
  // profile2mat writes its per-category files only when it finds E lines: the dumps of a
  // ring in the same file (two runs summed, as concatenated dumps are).
  const JobResult ring = run_job_in(folder, 4, concat_arguments(monitoring_arguments(), {kExample, "ring"}));
  ASSERT_EQ(ring.exit_code, 0) << ring.output;
  run_shell(folder, "cat osc.prof prof.*.prof > all.prof");
  EXPECT_TRUE(expect_profile2mat_agrees(folder, "all.prof").count("osc"));
}

TEST(Profile2mat, AgreesWithFormatMatOnDebiansComponentDumps8Ranks) {
  MPIMON_SKIP_WITHOUT("/usr/bin/profile2mat");
  const fs::path folder = new_test_folder();
  const JobResult job =
      run_job_in(folder, 8,
                 concat_arguments(concat_arguments(monitoring_arguments(), binary_tree_reduce_arguments()),
                                  {kExample, "ring", "reduce", "halo"}),
                 Components::distro);
  ASSERT_EQ(job.exit_code, 0) << job.output;
  ASSERT_TRUE(fs::exists(folder / "prof.0.prof")) << job.output;
  ASSERT_FALSE(fs::exists(folder / "mpimon-job.txt")) << "Debian's component, not ours";
  run_shell(folder, "cat prof.*.prof > all.prof");
  EXPECT_EQ(expect_profile2mat_agrees(folder, "all.prof"), kPointToPointAndCollectives);
  // The per-rank files and their concatenation are one input.
  EXPECT_EQ(mpimon_stdout(folder, "matrix prof --format sparse --category all"),
            mpimon_stdout(folder, "matrix all.prof --format sparse --category all"));
}

TEST(ToolsCli, CategoryAllInTheTerminalIsOneTable4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", kExample, "ring", "reduce"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::string text = mpimon_stdout(job.folder, "matrix mpimon-job.txt --category all --metric bytes");
  EXPECT_EQ(text.find("no traffic recorded"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("# all traffic (E + I + S + R + F; C is left out, its messages are in I), bytes", 0), 0u)
      << text;
  EXPECT_NE(text.find("1024"), std::string::npos) << text;
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
