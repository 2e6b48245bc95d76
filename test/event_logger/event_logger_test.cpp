// The event logger on real mpirun jobs: libmpimon_event_logger.so preloaded into every
// rank (mpirun -x LD_PRELOAD=...), our components loaded with monitoring on (they raise
// the events), logs compared with the monitoring's own .prof matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "mpi_job.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kLogger = MPIMON_EVENT_LOGGER;
const std::string kExample = MPIMON_EXAMPLE;
const std::string kPatterns = MPIMON_PATTERNS;
const std::string kOscPatterns = MPIMON_OSC_PATTERNS;

std::vector<std::string> logger_arguments(const std::vector<std::string>& environment) {
  std::vector<std::string> arguments = {"-x", "LD_PRELOAD=" + kLogger};
  for (const std::string& variable : environment) {
    arguments.push_back("-x");
    arguments.push_back(variable);
  }
  return arguments;
}

void expect_success(const JobResult& job) { ASSERT_EQ(job.exit_code, 0) << job.output; }

// peer -> (bytes, messages) from the "statistics: <what> peer=P messages=N bytes=B" lines.
std::map<int, std::pair<uint64_t, uint64_t>> logged_traffic(const std::string& log, const std::string& what) {
  std::map<int, std::pair<uint64_t, uint64_t>> traffic;
  const std::regex line("statistics: " + what + " peer=(-?[0-9]+) messages=([0-9]+) bytes=([0-9]+)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it)
    traffic[std::stoi((*it)[1])] = {std::stoull((*it)[3]), std::stoull((*it)[2])};
  return traffic;
}

// The names of the events in a log ("[ seconds] '<name>' ...").
std::set<std::string> logged_event_names(const std::string& log) {
  std::set<std::string> names;
  const std::regex line("\\[ *-?[0-9.]+\\] '([^']+)'");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string log_of(const JobResult& job, int rank, const std::string& prefix = "mel") {
  const fs::path file = job.folder / (prefix + "." + std::to_string(rank) + ".log");
  EXPECT_TRUE(fs::exists(file)) << file << "\n" << job.output;
  return read_text(file);
}

void expect_no_temporary_files(const fs::path& folder) {
  for (const auto& e : fs::recursive_directory_iterator(folder))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

// (sender, receiver) -> (bytes, messages) of the job's .prof point-to-point matrix (E + I).
std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> prof_point_to_point(const JobResult& job) {
  std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> prof;
  for (const auto& [key, value] : read_edges(job.folder, "EI")) {
    auto& e = prof[{std::get<1>(key), std::get<2>(key)}];
    e.first += value.first;
    e.second += value.second;
  }
  return prof;
}

// The sent messages and bytes per destination of every rank's log (send_posted) equal the
// .prof point-to-point matrix (E + I): every message the monitoring counted, on whatever
// communicator, is an event the logger saw.
void expect_logged_sends_equal_prof_matrix(const JobResult& job, int ranks) {
  const auto prof = prof_point_to_point(job);
  ASSERT_FALSE(prof.empty()) << job.output;
  for (int r = 0; r < ranks; ++r) {
    std::map<int, std::pair<uint64_t, uint64_t>> sent_expected;
    for (const auto& [pair, value] : prof)
      if (pair.first == r) sent_expected[pair.second] = value;
    EXPECT_EQ(logged_traffic(log_of(job, r), "sent"), sent_expected) << "rank " << r;
  }
}

// (Lines in order: non-decreasing seconds.) The number of lines whose time is earlier
// than the line before, over every event line of `log`.
int time_inversions(const std::string& log) {
  const std::regex line("\\[ *([0-9]+\\.[0-9]+)\\] '");
  double last = -1;
  int inversions = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it) {
    const double t = std::stod((*it)[1]);
    if (t < last) ++inversions;
    last = std::max(last, t);
  }
  return inversions;
}

// Per rank, the messages and bytes per destination (send_posted) equal the .prof
// point-to-point matrix (E + I), and those per source (recv_completed) its transpose.
void expect_logged_traffic_equals_prof_matrix(const JobResult& job, int ranks) {
  const auto prof = prof_point_to_point(job);
  ASSERT_FALSE(prof.empty()) << job.output;
  for (int r = 0; r < ranks; ++r) {
    const std::string log = log_of(job, r);
    EXPECT_NE(log.find("'mpimon_pml_send_posted' comm_id="), std::string::npos) << log.substr(0, 2000);
    std::map<int, std::pair<uint64_t, uint64_t>> sent_expected, received_expected;
    for (const auto& [pair, value] : prof) {
      if (pair.first == r) sent_expected[pair.second] = value;
      if (pair.second == r) received_expected[pair.first] = value;
    }
    EXPECT_EQ(logged_traffic(log, "sent"), sent_expected) << "rank " << r;
    EXPECT_EQ(logged_traffic(log, "received"), received_expected) << "rank " << r;
    // Every receive of these programs completes, so each was timed.
    EXPECT_NE(log.find("statistics: receives posted and not completed=0\n"), std::string::npos) << "rank " << r;
  }
}

}  // namespace

// (a) Every message the monitoring counted is an event the logger saw.
TEST(EventLogger, ExampleMessagesPerPeerEqualTheProfMatrix4Ranks) {
  const JobResult job =
      run_job(4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                                  {kExample, "ring", "reduce", "halo", "persistent"}));
  expect_success(job);
  expect_no_temporary_files(job.folder);
  expect_logged_traffic_equals_prof_matrix(job, 4);
}

// Communicators made by MPI_Comm_dup and MPI_Comm_split get handles too.
TEST(EventLogger, DupAndSplitCommunicatorsAreFollowed6Ranks) {
  const JobResult job =
      run_job(6, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                                  {kPatterns, "comms"}));
  expect_success(job);
  expect_logged_traffic_equals_prof_matrix(job, 6);
}

namespace {

// osc_patterns flavors on 4 ranks, monitored, the logger following only `events`.
JobResult flavors_job_logging(const std::string& events) {
  return run_job(4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel", "MEL_EVENTS=" + events}),
                                                      monitoring_arguments(2)),
                                     {kOscPatterns, "flavors"}));
}

}  // namespace

// Windows of the four flavors (create, allocate, allocate_shared, dynamic) get handles:
// each rank's put to its right neighbour under fences, once per flavor.
TEST(EventLogger, WindowsOfEveryFlavorAreFollowed4Ranks) {
  const JobResult job = flavors_job_logging("mpimon_osc_op_issued mpimon_osc_sync_end");
  expect_every_rank_ok(job, 4, "flavors");
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    const std::regex put("'mpimon_osc_op_issued' win_id=[0-9]+ kind=put target=" + std::to_string((r + 1) % 4) +
                         " target_rank=[0-9]+ bytes_sent=8 bytes_recv=0\n");
    EXPECT_EQ(std::distance(std::sregex_iterator(log.begin(), log.end(), put), std::sregex_iterator()), 4)
        << "rank " << r << "\n"
        << log;
    EXPECT_GE(count_of(log, "'mpimon_osc_sync_end' win_id="), 8u) << log;
    EXPECT_NE(log.find(" kind=fence target=-1 result=0\n"), std::string::npos) << log;
  }
}

// Open MPI main's lifecycle events (docs/open-mpi-5.md, "Open MPI 6.0 / main") are logged by
// name with their elements: MPI_Init's, and a window of each of the four flavors created and
// freed (MPI_WIN_FLAVOR_CREATE 1, ALLOCATE 2, DYNAMIC 3, SHARED 4).
TEST(EventLogger, OpenMpiMainsLifecycleEventsAreLogged4Ranks) {
  const JobResult job = flavors_job_logging("ompi.mpi.initialization ompi.mpi.win_created ompi.mpi.win_freed");
  expect_every_rank_ok(job, 4, "flavors");
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    EXPECT_TRUE(std::regex_search(log, std::regex("'ompi.mpi.initialization' model=0 thread_level=[0-3] world_rank=" +
                                                  std::to_string(r) + " world_size=4 instance_id=[1-9][0-9]*\n")))
        << "rank " << r << "\n"
        << log;
    EXPECT_EQ(count_of(log, "'ompi.mpi.win_created' size="), 4u) << log;
    EXPECT_EQ(count_of(log, "'ompi.mpi.win_freed' flavor="), 4u) << log;
    for (int flavor = 1; flavor <= 4; ++flavor)
      EXPECT_TRUE(std::regex_search(log, std::regex("'ompi.mpi.win_created' size=[0-9]+ disp_unit=[0-9]+ flavor=" +
                                                    std::to_string(flavor) + " handle=[0-9]+\n")))
          << "flavor " << flavor << "\n"
          << log;
  }
}

// Communicators the logger's MPI_* wrappers never see are logged too: those Open MPI makes
// for itself (a window's, which osc/pt2pt sends its traffic on; rdma on 5.0, which has no pt2pt) ...
TEST(EventLogger, OpenMpisOwnCommunicatorsAreLoggedToo4Ranks) {
  const JobResult job = run_job(
      4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                          {"--mca", "osc", osc_pt2pt_exists() ? "pt2pt,mpimon" : "rdma,mpimon", kOscPatterns, "ops"}));
  expect_every_rank_ok(job, 4, "ops");
  expect_logged_sends_equal_prof_matrix(job, 4);
}

// ... and a Fortran coarray program's (OpenCoarrays: windows and communicators made
// through the Fortran bindings and inside libcaf_mpi).
TEST(EventLogger, CoarrayProgramsCommunicatorsAreLogged4Ranks) {
  MPIMON_SKIP_DEBIAN_APPLICATION("OpenCoarrays");
  if (std::string(MPIMON_COARRAY_RING).empty()) GTEST_SKIP() << "OpenCoarrays (caf) not installed";
  const JobResult job =
      run_job(4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                                  {MPIMON_COARRAY_RING}));
  expect_success(job);
  EXPECT_NE(job.output.find("image 1: OK"), std::string::npos) << job.output;
  expect_logged_sends_equal_prof_matrix(job, 4);
}

// One timeline for every source: a collective's end is never printed with a time before
// the sends inside it (each source used to have its own origin).
TEST(EventLogger, EventsOfAllSourcesAreOnOneTimeline4Ranks) {
  const JobResult job = run_job(
      4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                          {kExample, "ring", "reduce", "halo", "reduce", "reduce", "reduce", "reduce", "reduce"}));
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    EXPECT_GT(count_of(log, "'mpimon_coll_end'"), 5u) << log;
    EXPECT_EQ(time_inversions(log), 0) << "rank " << r << "\n" << log;
  }
}

// (a') The log's lines: seconds from MPI_Init, elements by name, enum values by name.
TEST(EventLogger, LinesNameElementsAndCollectiveKinds4Ranks) {
  const JobResult job =
      run_job(4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                                  {kExample, "ring", "reduce"}));
  expect_success(job);
  const std::string log = log_of(job, 1);
  EXPECT_TRUE(std::regex_search(log, std::regex("\\[ *[0-9]+\\.[0-9]{9}\\] 'mpimon_pml_send_posted' comm_id=[0-9]+ "
                                                "peer=2 peer_comm_rank=2 tag=1 bytes=1024 request=[0-9]+\n")))
      << log.substr(0, 3000);
  EXPECT_TRUE(std::regex_search(log, std::regex("'mpimon_coll_begin' comm_id=[0-9]+ kind=reduce root=0 ")))
      << log.substr(0, 3000);
}

// (b) A real application: LAMMPS' melt example completes under the logger and logs.
TEST(EventLogger, LammpsMelt4RanksCompletesAndLogs) {
  if (!fs::exists("/usr/bin/lmp") || !fs::exists(LAMMPS_MELT)) GTEST_SKIP() << "lammps not installed";
  // With the ASan runtime preloaded, LAMMPS hangs at exit on glibc's locale lock, corrupted at
  // start-up by ASan's initialisation inside libp11-kit's newlocale; the logger's
  // MPI_T_init_thread before MPI_Init makes Open MPI 4.1 load every component, UCX's too, whose
  // dlerror calls then leave the lock blocking the next writer. Also without any component of
  // ours; not in our code (docs/development.md, "LAMMPS in the sanitizer pass").
  if (!sanitizer_environment().empty())
    GTEST_SKIP() << "with the ASan runtime preloaded, LAMMPS under an MPI_T tool hangs at exit in glibc's "
                    "locale lock (docs/development.md, \"LAMMPS in the sanitizer pass\")";
  const JobResult job =
      run_job(4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), monitoring_arguments(2)),
                                  {"/usr/bin/lmp", "-in", LAMMPS_MELT, "-log", "none", "-screen", "none"}));
  expect_success(job);
  expect_no_temporary_files(job.folder);
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    const std::set<std::string> names = logged_event_names(log);
    EXPECT_TRUE(names.count("mpimon_pml_send_posted")) << "rank " << r;
    EXPECT_TRUE(names.count("mpimon_pml_recv_completed")) << "rank " << r;
    EXPECT_TRUE(names.count("mpimon_coll_begin")) << "rank " << r;
    EXPECT_FALSE(logged_traffic(log, "sent").empty()) << "rank " << r << ": atoms go to neighbours";
    EXPECT_TRUE(std::regex_search(log, std::regex("statistics: receive posted-to-completed seconds count=[1-9]")))
        << "rank " << r;
  }
}

// (c) MEL_EVENTS: only the named events appear.
TEST(EventLogger, MelEventsKeepsOnlyTheNamedEvents4Ranks) {
  const JobResult job = run_job(
      4, concat_arguments(
             concat_arguments(logger_arguments({"MEL_OUTPUT=mel", "MEL_EVENTS=mpimon_pml_send_posted;mpimon_coll_end"}),
                              monitoring_arguments(2)),
             {kExample, "ring", "reduce", "halo"}));
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    EXPECT_EQ(logged_event_names(log), (std::set<std::string>{"mpimon_pml_send_posted", "mpimon_coll_end"}))
        << "rank " << r;
  }
  EXPECT_EQ(job.output.find("MEL_EVENTS"), std::string::npos) << job.output;  // no warning
}

// MPI-IO events (bound to files): one access per rank of the 4 x 4096 B write_at_all, its
// offset and bytes; one file-system operation, at the aggregator, of the whole file.
TEST(EventLogger, FileAccessesAndFileSystemOperationsAreLogged4Ranks) {
  const JobResult job = run_job(
      4,
      concat_arguments(
          concat_arguments(logger_arguments({"MEL_OUTPUT=mel", "MEL_EVENTS=mpimon_io_access,mpimon_io_fs_operation"}),
                           monitoring_arguments(2)),
          {MPIMON_IO_PATTERNS, "write_at_all", "4096"}));
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    EXPECT_EQ(count_of(log, "] 'mpimon_io_access' "), 1u) << log;
    EXPECT_TRUE(std::regex_search(log, std::regex("'mpimon_io_access' file_id=[0-9]+ kind=write_at_all call=blocking "
                                                  "result=0 offset=" +
                                                  std::to_string(r * 4096) + " bytes=4096 seconds=[0-9.e-]+\n")))
        << log;
    EXPECT_EQ(count_of(log, "] 'mpimon_io_fs_operation' "), r == 0 ? 1u : 0u) << log;
    if (r == 0) {
      EXPECT_TRUE(std::regex_search(
          log, std::regex("'mpimon_io_fs_operation' file_id=[0-9]+ direction=1 offset=0 bytes=16384 entries=1\n")))
          << log;
    }
  }
}

// Statistics from events MEL_EVENTS leaves out are "not logged", not zero.
TEST(EventLogger, StatisticsOfEventsLeftOutSayNotLogged4Ranks) {
  const JobResult job = run_job(
      4, concat_arguments(concat_arguments(logger_arguments({"MEL_OUTPUT=mel", "MEL_EVENTS=mpimon_pml_send_posted"}),
                                           monitoring_arguments(2)),
                          {kExample, "ring"}));
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string log = log_of(job, r);
    EXPECT_NE(log.find("statistics: sent peer=" + std::to_string((r + 1) % 4) + " messages=1 bytes=1024\n"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("statistics: received not logged (MEL_EVENTS leaves out mpimon_pml_recv_completed)\n"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("statistics: receive posted-to-completed not logged (MEL_EVENTS leaves out "
                       "mpimon_pml_recv_posted, mpimon_pml_recv_completed)\n"),
              std::string::npos)
        << log;
    EXPECT_EQ(log.find("seconds count=0"), std::string::npos) << log;
    EXPECT_EQ(log.find("not completed="), std::string::npos) << log;
  }
}

// (c') Unknown names: one warning line for the job, the known names still logged.
TEST(EventLogger, UnknownEventNamesWarnOnceAndTheRestIsLogged4Ranks) {
  const JobResult job = run_job(
      4, concat_arguments(
             concat_arguments(logger_arguments({"MEL_OUTPUT=mel", "MEL_EVENTS=no_such_event,mpimon_pml_send_posted"}),
                              monitoring_arguments(2)),
             {kExample, "ring"}));
  expect_success(job);
  EXPECT_EQ(count_of(job.output,
                     "mel: warning: MEL_EVENTS names an event that does not exist: 'no_such_event' "
                     "(ignored)\n"),
            1u)
      << job.output;
  for (int r = 0; r < 4; ++r) {
    const std::set<std::string> names = logged_event_names(log_of(job, r));
    EXPECT_TRUE(names.empty() || names == std::set<std::string>{"mpimon_pml_send_posted"}) << "rank " << r;
  }
}

// (d) An unwritable MEL_OUTPUT: one clear line per rank, no file, the application exits 0.
TEST(EventLogger, UnwritableOutputSaysSoAndTheApplicationRunsOn4Ranks) {
  const JobResult job = run_job(4, concat_arguments(logger_arguments({"MEL_OUTPUT=missing/folder/mel"}),
                                                    concat_arguments(monitoring_arguments(2), {kExample, "ring"})));
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_EQ(count_of(job.output, "mel: rank " + rank + ": event log not written: missing/folder/mel." + rank +
                                       ".log: cannot open its folder missing/folder: No such file or directory; "
                                       "logging disabled"),
              1u)
        << job.output;
  }
  EXPECT_NE(job.output.find("No such file or directory; logging disabled"), std::string::npos) << job.output;
  EXPECT_FALSE(fs::exists(job.folder / "missing"));
  // The monitoring itself was not disturbed.
  EXPECT_EQ(read_edges(job.folder, "E").size(), 4u);
}

// Without MEL_OUTPUT the events go to stderr, each line prefixed with the world rank.
TEST(EventLogger, WithoutMelOutputLinesGoToStderrWithTheRank4Ranks) {
  const JobResult job = run_job(4, concat_arguments(logger_arguments({"MEL_EVENTS=mpimon_pml_send_posted"}),
                                                    {"--mca", "pml_monitoring_enable", "1", kExample, "ring"}));
  expect_success(job);
  for (int r = 0; r < 4; ++r) {
    const std::string rank = std::to_string(r);
    const std::string next = std::to_string((r + 1) % 4);
    EXPECT_TRUE(std::regex_search(job.output, std::regex("rank " + rank +
                                                         ": \\[ *[0-9.]+\\] 'mpimon_pml_send_posted' "
                                                         "comm_id=[0-9]+ peer=" +
                                                         next + " ")))
        << job.output;
    EXPECT_NE(job.output.find("rank " + rank + ": statistics: sent peer=" + next + " messages=1 bytes=1024\n"),
              std::string::npos)
        << job.output;
  }
}

// Events need our components; with Debian's, the logger has nothing to log and the
// application still runs.
TEST(EventLogger, WithoutOurComponentsTheApplicationRunsUnlogged4Ranks) {
  const JobResult job =
      run_job(4, concat_arguments(logger_arguments({"MEL_OUTPUT=mel"}), {kExample, "ring"}), Components::distro);
  expect_success(job);
  expect_no_temporary_files(job.folder);
}
