// Everything our components, the event logger and the tools write (docs/reliability.md):
// full disks (a real tmpfs in a private mount namespace), killed ranks, planted links,
// umask 000, long paths, failed flushes, re-runs in the same folder, and communicator
// identities in the job file.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

namespace mpimon::test {
namespace {

namespace fs = std::filesystem;

const std::string kExample = MPIMON_EXAMPLE;

// mpirun's notice of a rank killed by SIGKILL (4.1's ORTE writes it on one line, 5.0's
// PRRTE wraps it: "... exited on\nsignal 9 (Killed).").
bool says_killed_by_signal_9(std::string output) {
  std::replace(output.begin(), output.end(), '\n', ' ');
  return output.find("exited on signal 9") != std::string::npos;
}
const std::string kPvars = MPIMON_PVAR_PATTERNS;
const std::string kColl = MPIMON_COLL_PATTERNS;
const std::string kLogger = std::string(MPIMON_PLUGIN_DIR) + "/libmpimon_event_logger.so";
const std::string kDieShim = MPIMON_DIE_IN_WRITE_SHIM;

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

std::set<std::string> temporaries_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const std::string& name : names_in(folder))
    if (name.rfind(".mpimon-", 0) == 0 || name.find(".tmp") != std::string::npos) names.insert(name);
  return names;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> logger_arguments(const std::string& output) {
  return {"-x", "LD_PRELOAD=" + kLogger, "-x", "MEL_OUTPUT=" + output};
}

// Messages from each rank r to (r + 1) % ranks, category E, in <prefix>.<r>.prof.
std::map<int, uint64_t> ring_messages(const fs::path& folder, const std::string& prefix, int ranks) {
  std::map<int, uint64_t> messages;
  for (int r = 0; r < ranks; ++r)
    for (const ProfLine& l : read_prof_file((folder / (prefix + "." + std::to_string(r) + ".prof")).string()).lines)
      if (l.kind == 'E' && l.peer == (r + 1) % ranks) messages[r] += l.messages;
  return messages;
}

// These tests list every file a run leaves, or cut its job file at a given line: the
// time series (on by default; its own folder, its own tests in series_test.cpp) is off
// in them, through the environment their mpirun inherits.
struct SeriesOff {
  SeriesOff() { ::setenv("OMPI_MCA_pml_monitoring_snapshot_interval", "0", 1); }
  ~SeriesOff() { ::unsetenv("OMPI_MCA_pml_monitoring_snapshot_interval"); }
};

TEST(DiskFull, JobFileAndProfFilesOnAFullDiskAreNotWrittenAndSaySo4Ranks) {
  const SeriesOff series_off;
  const auto job = run_on_full_disk(mpirun_command(
      4,
      {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", "--mca",
       "pml_monitoring_filename", "full/prof", "--mca", "pml_monitoring_job_file", "full/job.txt", kExample, "ring"}));
  SKIP_WITHOUT_MOUNT_NAMESPACE(job);
  EXPECT_NE(job->output.find("exit code: 0"), std::string::npos) << job->output;
  EXPECT_NE(job->output.find("No space left on device"), std::string::npos) << job->output;
  EXPECT_NE(job->output.find("mpimon: no .prof file written: 4 rank(s) could not write theirs"), std::string::npos)
      << job->output;
  EXPECT_NE(job->output.find("job file full/job.txt not written: "), std::string::npos) << job->output;
  EXPECT_TRUE(names_in(job->folder / "after").empty()) << "no file, empty or cut, no temporary";
}

TEST(DiskFull, OnePageLeftGivesNoPartialSetOfProfFiles4Ranks) {
  const SeriesOff series_off;
  // One rank's .prof fits, the others' do not: none is published (a missing rank would
  // read as a rank that sent nothing).
  const auto job = run_on_full_disk(
      mpirun_command(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", "--mca",
                         "pml_monitoring_filename", "full/prof", "--mca", "pml_monitoring_job_file", "full/job.txt",
                         kExample, "ring", "halo"}),
      1);
  SKIP_WITHOUT_MOUNT_NAMESPACE(job);
  EXPECT_NE(job->output.find("exit code: 0"), std::string::npos) << job->output;
  EXPECT_NE(job->output.find("mpimon: no .prof file written: "), std::string::npos) << job->output;
  for (const std::string& name : names_in(job->folder / "after")) {
    EXPECT_EQ(name, "job.txt") << job->output;  // the job file may fit in the page the .prof files freed
    EXPECT_NO_THROW(read_job_file((job->folder / "after" / name).string()));
  }
}

TEST(DiskFull, FlushOnAFullDiskReturnsAnErrorAndLosesNothing4Ranks) {
  const auto job = run_on_full_disk(
      mpirun_command(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", "--mca",
                         "pml_monitoring_filename", "final", kPvars, "failing_flushes", "full/phase"}));
  SKIP_WITHOUT_MOUNT_NAMESPACE(job);
  EXPECT_NE(job->output.find("exit code: 0"), std::string::npos) << job->output;
  for (int r = 0; r < 4; ++r)
    EXPECT_NE(job->output.find("rank " + std::to_string(r) + ": OK failing_flushes"), std::string::npos) << job->output;
  EXPECT_NE(job->output.find("No space left on device (nothing is lost: the next flush or the finalize dump includes "
                             "this phase)"),
            std::string::npos)
      << job->output;
  EXPECT_TRUE(names_in(job->folder / "after").empty());
  // Every failed phase's traffic is in the one successful flush: 1+2+4+8+16+32 messages.
  EXPECT_EQ(ring_messages(job->folder, "phase_ok", 4), (std::map<int, uint64_t>{{0, 63}, {1, 63}, {2, 63}, {3, 63}}));
  EXPECT_EQ(ring_messages(job->folder, "final", 4), ring_messages(job->folder, "phase_ok", 4));
}

TEST(DiskFull, EventLogsOnAFullDiskAreNotWrittenAndSaySo4Ranks) {
  const auto job = run_on_full_disk(mpirun_command(
      4, concat_arguments(logger_arguments("full/mel"), {"--mca", "pml_monitoring_enable", "2", kExample, "ring"})));
  SKIP_WITHOUT_MOUNT_NAMESPACE(job);
  EXPECT_NE(job->output.find("exit code: 0"), std::string::npos) << job->output;
  for (int r = 0; r < 4; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_NE(job->output.find("mel: rank " + rank + ": event log not written: full/mel." + rank + ".log: "),
              std::string::npos)
        << job->output;
  }
  EXPECT_NE(job->output.find("No space left on device"), std::string::npos) << job->output;
  EXPECT_TRUE(names_in(job->folder / "after").empty());
}

// ---------------------------------------------------------------------------------------
// Failed flushes without a full disk: missing folder, 5 000-character prefix, and an
// empty prefix or a pointer to NULL (Open MPI's "no file").

TEST(Flush, FailedFlushesReturnAnErrorAndLoseNothing4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                    "--mca", "pml_monitoring_filename", "final", kPvars, "failing_flushes"});
  expect_every_rank_ok(job, 4, "failing_flushes");
  EXPECT_NE(job.output.find("rank 1: flush not written: missing/phase.1.prof: cannot open its folder missing: No such "
                            "file or directory (nothing is lost"),
            std::string::npos)
      << job.output;
  EXPECT_NE(job.output.find("File name too long"), std::string::npos) << job.output;
  // 1 + 2 + 4 + 8 messages failed or had no file; phase_ok adds 16.
  EXPECT_EQ(ring_messages(job.folder, "phase_ok", 4), (std::map<int, uint64_t>{{0, 31}, {1, 31}, {2, 31}, {3, 31}}));
  EXPECT_EQ(ring_messages(job.folder, "final", 4), ring_messages(job.folder, "phase_ok", 4));
  EXPECT_TRUE(temporaries_in(job.folder).empty());
}

TEST(Flush, AnExistingPhaseFileIsNeverOverwrittenAndItsTrafficMovesOn4Ranks) {
  const fs::path folder = new_test_folder();
  std::ofstream(folder / "victim") << "precious\n";
  fs::create_symlink("victim", folder / "phase_1.2.prof");  // rank 2's first phase
  const JobResult job = run_job_in(folder, 4,
                                   {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                    "--mca", "pml_monitoring_filename", "final", kPvars, "phases"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("rank 2: FAILED phases [flush write] [flush stop]"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("rank 2: flush not written: phase_1.2.prof: exists: a flush never overwrites"),
            std::string::npos)
      << job.output;
  EXPECT_EQ(read_text(folder / "victim"), "precious\n");
  EXPECT_TRUE(fs::is_symlink(folder / "phase_1.2.prof"));
  // Rank 2's phase 1 (1 message) went into its phase 2 (2 messages): nothing lost.
  EXPECT_EQ(ring_messages(folder, "phase_2", 4), (std::map<int, uint64_t>{{0, 2}, {1, 2}, {2, 3}, {3, 2}}));
}

// ---------------------------------------------------------------------------------------
// A rank dying while the job file is written (a real SIGKILL in the middle of it).

TEST(KilledRank, ARankDyingInTheJobFileLeavesNoTemporary8Ranks) {
  const SeriesOff series_off;
  const JobResult job =
      run_job(8, {"-x", "LD_PRELOAD=" + kDieShim, "-x", "MPIMON_TEST_DIE_RANK=3", "--mca", "pml_monitoring_enable", "2",
                  "--mca", "pml_monitoring_job_file", "job.txt", kExample, "ring"});
  EXPECT_NE(job.exit_code, 0) << "rank 3 was killed: " << job.output;
  EXPECT_TRUE(says_killed_by_signal_9(job.output)) << job.output;
  EXPECT_TRUE(names_in(job.folder).empty()) << "no temporary, no job file: " << job.output;
}

TEST(KilledRank, RankZeroKilledInTheJobFileLeavesNothingAndTheNextRunWrites4Ranks) {
  const SeriesOff series_off;
  // mpirun may follow SIGCONT with SIGKILL without a SIGTERM: nothing can run then. The
  // temporary is unnamed (ranks of rank 0's host open it through /proc), so nothing is
  // left; a named one (another host, no O_TMPFILE) would be removed by the next run
  // (AtomicFile.StaleTemporariesOfDeadProcessesAreRemovedOthersKept).
  const std::vector<std::string> arguments = {
      "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_job_file", "job.txt", kExample, "ring"};
  const JobResult killed =
      run_job(4, concat_arguments({"-x", "LD_PRELOAD=" + kDieShim, "-x", "MPIMON_TEST_DIE_RANK=0"}, arguments));
  EXPECT_NE(killed.exit_code, 0) << killed.output;
  EXPECT_TRUE(says_killed_by_signal_9(killed.output)) << killed.output;
  EXPECT_TRUE(names_in(killed.folder).empty()) << killed.output;
  const JobResult next = run_job_in(killed.folder, 4, arguments);
  ASSERT_EQ(next.exit_code, 0) << next.output;
  EXPECT_EQ(names_in(killed.folder), std::set<std::string>{"job.txt"});
  EXPECT_EQ(read_job_file((killed.folder / "job.txt").string()).records.size(), 4u);
}

TEST(SharedTemporary, RanksOfRankZerosHostOpenItUnnamedOthersByAHiddenName4Ranks) {
  const SeriesOff series_off;
  // TCP between the ranks (each rank in its own pid namespace below: no shared memory),
  // over the loopback interface: Open MPI 5.0.7 pairs no process over this machine's eth0
  // (MPI_Init: "all MPI processes be able to reach each other"), 4.1.4 does; lo works on both.
  const std::vector<std::string> arguments = {"--mca",
                                              "btl",
                                              "tcp,self",
                                              "--mca",
                                              "btl_tcp_if_include",
                                              "lo",
                                              "--mca",
                                              "pml_monitoring_enable",
                                              "2",
                                              "--mca",
                                              "pml_monitoring_verbose",
                                              "1",
                                              "--mca",
                                              "pml_monitoring_job_file",
                                              "job.txt"};
  const JobResult here = run_job(4, concat_arguments(arguments, {kExample, "ring"}));
  ASSERT_EQ(here.exit_code, 0) << here.output;
  EXPECT_NE(here.output.find("(an unnamed temporary)"), std::string::npos) << here.output;
  // Each rank in its own pid namespace: /proc/<rank 0's pid> means nothing to the others,
  // as on another host. Rank 0 then names the temporary for them.
  if (run_shell(new_test_folder(), "unshare -pf --mount-proc true").exit_code != 0)
    GTEST_SKIP() << "needs root for pid namespaces (unshare -pf): the named path is then untested here";
  const JobResult apart = run_job(4, concat_arguments(arguments, {"unshare", "-pf", "--mount-proc", kExample, "ring"}));
  ASSERT_EQ(apart.exit_code, 0) << apart.output;
  EXPECT_NE(apart.output.find("(a named temporary: some ranks could not open rank 0's unnamed one)"), std::string::npos)
      << apart.output;
  EXPECT_EQ(names_in(apart.folder), std::set<std::string>{"job.txt"}) << "the hidden name is gone";
  EXPECT_EQ(read_job_file((apart.folder / "job.txt").string()).records.size(), 4u);
}

// ---------------------------------------------------------------------------------------
// Planted links and umask 000, for every kind of output.

void expect_mode_0644(const fs::path& file) {
  struct stat st {};
  ASSERT_EQ(::lstat(file.c_str(), &st), 0) << file;
  EXPECT_TRUE(S_ISREG(st.st_mode)) << file;
  EXPECT_EQ(st.st_mode & 07777, 0644u) << file;
}

TEST(PlantedLinks, NoOutputOfARunIsWrittenThroughALinkAndUmask000Gives0644_4Ranks) {
  const fs::path folder = new_test_folder();
  std::ofstream(folder / "victim") << "precious\n";
  for (const char* name : {"prof.0.prof", "prof.3.prof", "mpimon-job.txt", "mel.1.log"})
    fs::create_symlink("victim", folder / name);
  const JobResult job = run_shell(
      folder, "umask 000 && " +
                  mpirun_command(4, concat_arguments(logger_arguments("mel"),
                                                     concat_arguments(monitoring_arguments(2), {kExample, "ring"}))));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(read_text(folder / "victim"), "precious\n");
  for (const char* name : {"prof.0.prof", "prof.3.prof", "mpimon-job.txt", "mel.1.log"})
    EXPECT_TRUE(fs::is_symlink(folder / name)) << name;
  // The whole run moved to run number 1: the .prof files and the job file together, the
  // logs (another library, its own decision) too.
  EXPECT_NE(job.output.find("this run's job file mpimon-job.txt.1 and .prof files prof.1.<rank>.prof"),
            std::string::npos)
      << job.output;
  EXPECT_NE(job.output.find("mel: event logs of an earlier run are in the way, and nothing is overwritten: this run's "
                            "logs are mel.1.<rank>.log"),
            std::string::npos)
      << job.output;
  expect_mode_0644(folder / "mpimon-job.txt.1");
  for (int r = 0; r < 4; ++r) {
    expect_mode_0644(folder / ("prof.1." + std::to_string(r) + ".prof"));
    expect_mode_0644(folder / ("mel.1." + std::to_string(r) + ".log"));
  }
  EXPECT_EQ(read_job_file((folder / "mpimon-job.txt.1").string()).records.size(), 4u);
  EXPECT_TRUE(temporaries_in(folder).empty());

  // Flush phases, under umask 000 too.
  const JobResult phases =
      run_shell(folder, "umask 000 && " + mpirun_command(4, {"--mca", "pml_monitoring_enable", "2", kPvars, "phases"}));
  expect_every_rank_ok(phases, 4, "phases");
  expect_mode_0644(folder / "phase_2.1.prof");

  // The tools' outputs replace a link the user named, never write through it.
  for (const char* name : {"out_msg_all.mat", "report.html", "heat.svg", "rf", "keys"})
    fs::create_symlink("victim", folder / name);
  const JobResult tools = run_shell(
      folder, std::string("umask 000 && ") + MPIMON_BIN " matrix mpimon-job.txt.1 --format mat --output out && " +
                  MPIMON_BIN " report mpimon-job.txt.1 -o report.html && " +
                  MPIMON_BIN " show mpimon-job.txt.1 --svg heat.svg && " +
                  MPIMON_BIN " place mpimon-job.txt.1 --topology 'pack:2 core:2 pu:1' --rankfile rf --keys keys");
  ASSERT_EQ(tools.exit_code, 0) << tools.output;
  EXPECT_EQ(read_text(folder / "victim"), "precious\n");
  for (const char* name : {"out_msg_all.mat", "report.html", "heat.svg", "rf", "keys"}) expect_mode_0644(folder / name);
  EXPECT_TRUE(temporaries_in(folder).empty());
}

// ---------------------------------------------------------------------------------------
// Long paths: Open MPI 4.1.4's MPI-IO aborted at ~225 characters and crashed at 10 000.

TEST(LongPaths, AJobFileAndProfFilesUnderA400CharacterPathAreWritten4Ranks) {
  const fs::path folder = new_test_folder();
  const std::string deep = std::string(200, 'a') + "/" + std::string(200, 'b');
  fs::create_directories(folder / deep);
  const JobResult job = run_job_in(folder, 4,
                                   {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                                    "--mca", "pml_monitoring_filename", deep + "/prof", "--mca",
                                    "pml_monitoring_job_file", deep + "/job.txt", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.output.find("mpimon:"), std::string::npos) << job.output;
  EXPECT_EQ(read_job_file((folder / deep / "job.txt").string()).records.size(), 4u);
  EXPECT_EQ(ring_messages(folder / deep, "prof", 4).size(), 4u);
}

TEST(LongPaths, ATenThousandCharacterNameIsRefusedCleanly4Ranks) {
  const std::string name(10000, 'j');
  const JobResult job =
      run_job(4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", "--mca",
                  "pml_monitoring_filename", name, "--mca", "pml_monitoring_job_file", name, kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output.substr(0, 2000);
  EXPECT_EQ(count_of(job.output, "File name too long (its file name has 10000 bytes; at most 255)"), 1u)
      << "the job file: " << job.output.substr(0, 2000);
  EXPECT_EQ(count_of(job.output, "File name too long (its file name has 10007 bytes; at most 255)"), 4u)
      << "each rank's .prof (<name>.<rank>.prof): " << job.output.substr(0, 2000);
  EXPECT_TRUE(fs::is_empty(job.folder));
}

// ---------------------------------------------------------------------------------------
// Re-running in the same folder (issue 12 item 4): one rule for .prof files and the job
// file, one run number for the whole run, the tools' prefix matching intact.

TEST(ReRun, EachRunGetsItsOwnNumberAndNothingIsOverwritten) {
  const SeriesOff series_off;
  const fs::path folder = new_test_folder();
  const std::vector<std::string> arguments = concat_arguments(monitoring_arguments(2), {kExample, "ring"});
  ASSERT_EQ(run_job_in(folder, 4, arguments).exit_code, 0);
  const std::string first_job = read_text(folder / "mpimon-job.txt"), first_prof = read_text(folder / "prof.3.prof");
  const JobResult second = run_job_in(folder, 6, arguments);  // more ranks than before
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(count_of(second.output, "files of an earlier run are in the way"), 1u) << second.output;
  const JobResult third = run_job_in(folder, 2, arguments);
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_EQ(read_text(folder / "mpimon-job.txt"), first_job);
  EXPECT_EQ(read_text(folder / "prof.3.prof"), first_prof);
  std::set<std::string> expected = {"mpimon-job.txt", "mpimon-job.txt.1", "mpimon-job.txt.2"};
  for (int r = 0; r < 4; ++r) expected.insert("prof." + std::to_string(r) + ".prof");
  for (int r = 0; r < 6; ++r) expected.insert("prof.1." + std::to_string(r) + ".prof");
  for (int r = 0; r < 2; ++r) expected.insert("prof.2." + std::to_string(r) + ".prof");
  EXPECT_EQ(names_in(folder), expected);
  EXPECT_EQ(read_job_file((folder / "mpimon-job.txt.1").string()).header.world_size, 6);
  // A prefix selects exactly one run.
  for (const auto& [prefix, ranks] : std::map<std::string, int>{{"prof", 4}, {"prof.1", 6}, {"prof.2", 2}}) {
    const JobResult matrix = run_shell(folder, MPIMON_BIN " matrix " + prefix + " --format csv --category external");
    ASSERT_EQ(matrix.exit_code, 0) << matrix.output;
    EXPECT_EQ(count_of(matrix.output, "\n"), static_cast<size_t>(ranks) + 1) << prefix << ":\n" << matrix.output;
  }
}

TEST(EmptyFilename, FileOutputWithoutAFilenameWarnsOncePerJob4Ranks) {
  const SeriesOff series_off;
  const JobResult job = run_job(
      4, {"--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", kExample, "ring"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(count_of(job.output, "pml_monitoring_enable_output asks for a file but pml_monitoring_filename is empty"),
            1u)
      << job.output;
  // No .prof file, nothing left behind, and the job file is still written.
  EXPECT_EQ(names_in(job.folder), std::set<std::string>{"mpimon-job.txt"});
  EXPECT_EQ(read_job_file((job.folder / "mpimon-job.txt").string()).header.world_size, 4);
}

// ---------------------------------------------------------------------------------------
// Communicator identities (issue 12 item 2): Open MPI reuses context ids and names.

TEST(CommunicatorIdentity, AReusedContextIdGivesTwoIdentitiesEachTiedToItsMembers6Ranks) {
  const JobResult job = run_job(6, concat_arguments(monitoring_arguments(2), {kColl, "reused_cid"}));
  expect_every_rank_ok(job, 6, "reused_cid");
  const JobFile file = read_job_file((job.folder / "mpimon-job.txt").string());
  std::map<std::string, std::pair<std::string, std::set<int>>> communicators;  // identity -> (name, members)
  for (const JobAnnotation& a : file.annotations) {
    if (a.keyword != "communicator") continue;
    ASSERT_EQ(a.fields.size(), 3u);
    std::set<int> members;
    std::stringstream list(a.fields[2]);
    for (std::string rank; std::getline(list, rank, ',');) members.insert(std::stoi(rank));
    EXPECT_TRUE(communicators.emplace(a.fields[0], std::make_pair(a.fields[1], members)).second)
        << "one communicator line per identity: " << a.fields[0];
  }
  std::map<std::string, std::set<int>> senders;  // identity -> ranks with a collectives line
  for (const JobAnnotation& a : file.annotations) {
    if (a.keyword != "collectives") continue;
    const auto it = communicators.find(a.fields[1]);
    ASSERT_NE(it, communicators.end()) << "collectives line without its communicator: " << a.fields[1];
    EXPECT_TRUE(it->second.second.count(std::stoi(a.fields[0]))) << "rank " << a.fields[0] << " is a member";
    senders[a.fields[1]].insert(std::stoi(a.fields[0]));
  }
  // Four splits with a bcast each (even, odd, lower half, upper half): four identities
  // (the roots sent), though Open MPI gives them fewer names.
  std::set<std::set<int>> member_sets;
  std::set<std::string> names;
  for (const auto& [id, sent] : senders) {
    if (communicators[id].second.size() == 6) continue;  // MPI_COMM_WORLD (the splits' own agreement)
    member_sets.insert(communicators[id].second);
    names.insert(communicators[id].first);
  }
  EXPECT_EQ(member_sets, (std::set<std::set<int>>{{0, 2, 4}, {1, 3, 5}, {0, 1, 2}, {3, 4, 5}})) << job.output;
  EXPECT_LT(names.size(), 4u) << "names repeat (the case identities are for)";
}

// ---------------------------------------------------------------------------------------
// The tools never read an incomplete file as less traffic.

TEST(DamagedJobFile, EmptyCutOrZeroFilledFilesAreErrorsWithExitStatus2) {
  const SeriesOff series_off;
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(2), {kExample, "ring"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::string whole = read_text(job.folder / "mpimon-job.txt");
  std::ofstream(job.folder / "empty.txt");
  // Cut at a line boundary near the middle: a cut inside a line is reported as that line's
  // error instead ("<file>:<line>: expected a byte count, found end of line"), also exit 2.
  std::ofstream(job.folder / "cut.txt") << whole.substr(0, whole.rfind('\n', whole.size() / 2) + 1);
  std::ofstream(job.folder / "zeros.txt") << std::string(4096, '\0') << whole;
  const std::map<std::string, std::string> expected = {
      {"empty.txt", "empty.txt: expected a monitoring dump (a job file or .prof lines), found an empty file"},
      {"cut.txt", "incomplete or corrupted job file"},
      {"zeros.txt", "zeros.txt: expected text, found a NUL byte at offset 0 (incomplete or corrupted file"}};
  for (const auto& [name, message] : expected) {
    for (const char* command :
         {" matrix ", " show ", " report -o r.html ", " place --topology 'pack:2 core:2 pu:1' "}) {
      const JobResult tool = run_shell(job.folder, std::string(MPIMON_BIN) + command + name);
      EXPECT_EQ(tool.exit_code, 2) << command << name << ": " << tool.output;
      EXPECT_NE(tool.output.find(message), std::string::npos) << command << name << ": " << tool.output;
    }
  }
}

}  // namespace
}  // namespace mpimon::test
