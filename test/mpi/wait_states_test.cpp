// RMA wait states end to end (osc_monitoring_wait_states 1): the bundled program
// rma_wait_states injects a delay of known length D at a chosen point, one scenario per
// pattern, on 4 ranks, with osc rdma and osc pt2pt; each expected wait must lie within
// [0.75 D, 1.4 D], with the right waiter and culprit, in the job file, the .prof files
// and the performance variables; a balanced run shows nothing above 0.5 D per rank and
// pattern (below the 0.75 D every injected wait reaches: scheduling noise on 2 shared cores
// adds up to ~0.2 s over the run's fences at load 12, so a tighter bound only measured load).
//
// Timing checks are loose by design (sleeping ranks leave the 2 cores free, and
// mpi_yield_when_idle keeps busy-waiting ranks from starving them), but the machine is
// shared: a scenario whose checks fail is run again, up to 3 times, before it fails.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "analyses/wait_states/wait_totals.h"
#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/wait_annotations_reader.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;
using mpimon::wait_states::Pattern;

namespace {

const std::string kProgram = MPIMON_RMA_WAIT_STATES;
constexpr double D = 0.3;  // seconds (>= 0.2 s)

struct Expected {
  int waiter;
  Pattern pattern;
  int culprit;
};

struct ScenarioRun {
  JobResult job;
  wait_states::WaitAnnotations waits;
  // (waiter, pattern) -> seconds (every culprit), and (waiter, pattern, culprit) -> seconds
  std::map<std::pair<int, Pattern>, double> totals;
  std::map<std::tuple<int, Pattern, int>, double> by_culprit;
  // performance variables printed by each rank: wait_time, wait_count
  std::map<int, std::vector<double>> pvar_seconds;
  std::map<int, std::vector<unsigned long long>> pvar_counts;
};

std::vector<std::string> wait_state_arguments(const std::string& osc, const std::string& wait_states = "1") {
  return concat_arguments(monitoring_arguments(2),
                          {"--mca", "osc", osc + ",mpimon", "--mca", "osc_monitoring_wait_states", wait_states, "--mca",
                           "mpi_yield_when_idle", "1"});
}

ScenarioRun run_scenario(const std::string& osc, const std::string& scenario,
                         const std::vector<std::string>& extra = {}) {
  ScenarioRun run;
  std::vector<std::string> arguments = concat_arguments(wait_state_arguments(osc), extra);
  arguments.insert(arguments.end(), {kProgram, scenario, std::to_string(D)});
  run.job = run_job(4, arguments);
  if (run.job.exit_code != 0 || !fs::exists(run.job.folder / "mpimon-job.txt")) return run;
  const JobFile file = read_job_file((run.job.folder / "mpimon-job.txt").string());
  run.waits = wait_states::read_wait_annotations(file.annotations, "mpimon-job.txt");
  for (const auto& w : run.waits.waits) {
    run.totals[{w.waiter, w.pattern}] += w.seconds;
    run.by_culprit[{w.waiter, w.pattern, w.culprit}] += w.seconds;
  }
  const std::regex line(R"(rank (\d): \w+ wait_time ([-0-9. ]+) wait_count ([0-9 ]+))");
  for (std::sregex_iterator it(run.job.output.begin(), run.job.output.end(), line), end; it != end; ++it) {
    const int rank = std::stoi((*it)[1]);
    std::istringstream seconds((*it)[2].str()), counts((*it)[3].str());
    for (double v; seconds >> v;) run.pvar_seconds[rank].push_back(v);
    for (unsigned long long v; counts >> v;) run.pvar_counts[rank].push_back(v);
  }
  return run;
}

// What failed, or "" when every expected wait is within [0.75 D, 1.4 D] with its culprit.
std::string check_expected(const ScenarioRun& run, const std::vector<Expected>& expected) {
  if (run.job.exit_code != 0) return "job failed:\n" + run.job.output;
  std::string problems;
  for (const Expected& e : expected) {
    const auto it = run.by_culprit.find({e.waiter, e.pattern, e.culprit});
    const double seconds = it == run.by_culprit.end() ? 0 : it->second;
    if (seconds < 0.75 * D || seconds > 1.4 * D)
      problems += "rank " + std::to_string(e.waiter) + " " + wait_states::pattern_name(e.pattern) + " waiting for " +
                  std::to_string(e.culprit) + ": " + std::to_string(seconds) + " s, expected [" +
                  std::to_string(0.75 * D) + ", " + std::to_string(1.4 * D) + "]\n";
  }
  return problems;
}

ScenarioRun run_until_expected(const std::string& osc, const std::string& scenario,
                               const std::vector<Expected>& expected, const std::vector<std::string>& extra = {}) {
  ScenarioRun run;
  for (int attempt = 0; attempt < 3; ++attempt) {
    run = run_scenario(osc, scenario, extra);
    if (check_expected(run, expected).empty()) break;
  }
  return run;
}

// The performance variables each rank read right after its last epoch equal the job
// file's totals of that rank (one window per scenario).
void expect_pvars_match_job_file(const ScenarioRun& run) {
  for (int rank = 0; rank < 4; ++rank) {
    ASSERT_EQ(run.pvar_seconds.count(rank), 1u) << run.job.output;
    ASSERT_EQ(run.pvar_seconds.at(rank).size(), 7u);
    ASSERT_EQ(run.pvar_counts.at(rank).size(), 7u);
    for (int p = 0; p < 7; ++p) {
      double seconds = 0;
      uint64_t count = 0;
      for (const auto& w : run.waits.waits) {
        if (w.waiter != rank || static_cast<int>(w.pattern) != p) continue;
        seconds += w.seconds;
        count += w.count;
      }
      EXPECT_NEAR(run.pvar_seconds.at(rank)[p], seconds, 2e-6) << "rank " << rank << " pattern " << p;
      EXPECT_EQ(run.pvar_counts.at(rank)[p], count) << "rank " << rank << " pattern " << p;
    }
  }
}

void expect_scenario(const std::string& osc, const std::string& scenario, const std::vector<Expected>& expected) {
  const ScenarioRun run = run_until_expected(osc, scenario, expected);
  const std::string problems = check_expected(run, expected);
  EXPECT_TRUE(problems.empty()) << problems << run.job.output;
  expect_pvars_match_job_file(run);
  // The same waits in the .prof files ("# WAIT" lines).
  std::string prof;
  for (int r = 0; r < 4; ++r) prof += read_text(run.job.folder / ("prof." + std::to_string(r) + ".prof"));
  for (const Expected& e : expected) {
    const std::string start = "# WAIT\t" + std::to_string(e.waiter) + "\t" + scenario + "\t" +
                              wait_states::pattern_name(e.pattern) + "\t" + std::to_string(e.culprit) + "\t";
    EXPECT_NE(prof.find(start), std::string::npos) << start << "\n" << prof;
  }
}

std::vector<Expected> from_origins(Pattern pattern) { return {{1, pattern, 0}, {2, pattern, 0}, {3, pattern, 0}}; }

const std::vector<Expected> kEarlyWait = {{0, Pattern::early_wait, 3}};
const std::vector<Expected> kLateComplete = {{0, Pattern::early_wait, 3}, {0, Pattern::late_complete, 3}};
const std::vector<Expected> kWaitAtFence = {
    {0, Pattern::wait_at_fence, 3}, {1, Pattern::wait_at_fence, 3}, {2, Pattern::wait_at_fence, 3}};
const std::vector<Expected> kEarlyFence = {{0, Pattern::early_fence, 3},
                                           {0, Pattern::wait_at_fence, 3},
                                           {1, Pattern::wait_at_fence, 3},
                                           {2, Pattern::wait_at_fence, 3}};
const std::vector<Expected> kLockCompetition = {{2, Pattern::lock_competition, 1}};

}  // namespace

TEST(WaitStates, LatePostRdma4Ranks) { expect_scenario("rdma", "late_post", from_origins(Pattern::late_post)); }
TEST(WaitStates, LatePostPt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "late_post", from_origins(Pattern::late_post));
}
TEST(WaitStates, EarlyTransferPt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  // osc pt2pt's long protocol (64 KiB puts) waits inside MPI_Put for the post.
  expect_scenario("pt2pt", "early_transfer", from_origins(Pattern::early_transfer));
}
TEST(WaitStates, EarlyTransferScenarioIsLatePostOnRdma4Ranks) {
  // osc rdma's MPI_Win_start blocks until the post: the paper's heuristic puts the same
  // wait in late_post, and no operation waits.
  expect_scenario("rdma", "early_transfer", from_origins(Pattern::late_post));
}
TEST(WaitStates, EarlyWaitRdma4Ranks) { expect_scenario("rdma", "early_wait", kEarlyWait); }
TEST(WaitStates, EarlyWaitPt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "early_wait", kEarlyWait);
}
TEST(WaitStates, EarlyWaitInMpiWinTestLoopsPt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "early_wait_test", kEarlyWait);
}
TEST(WaitStates, LateCompleteRdma4Ranks) { expect_scenario("rdma", "late_complete", kLateComplete); }
TEST(WaitStates, LateCompletePt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "late_complete", kLateComplete);
}
TEST(WaitStates, WaitAtFenceRdma4Ranks) { expect_scenario("rdma", "wait_at_fence", kWaitAtFence); }
TEST(WaitStates, WaitAtFencePt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "wait_at_fence", kWaitAtFence);
}
TEST(WaitStates, EarlyFenceRdma4Ranks) { expect_scenario("rdma", "early_fence", kEarlyFence); }
TEST(WaitStates, EarlyFencePt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "early_fence", kEarlyFence);
}
TEST(WaitStates, LockCompetitionRdma4Ranks) { expect_scenario("rdma", "lock_competition", kLockCompetition); }
TEST(WaitStates, LockCompetitionPt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  expect_scenario("pt2pt", "lock_competition", kLockCompetition);
}

TEST(WaitStates, EarlyWaitWithoutLateCompleteWhenTheOriginStartsLate4Ranks) {
  const ScenarioRun run = run_until_expected("rdma", "early_wait", kEarlyWait);
  const auto late_complete = run.totals.find({0, Pattern::late_complete});
  EXPECT_LT(late_complete == run.totals.end() ? 0.0 : late_complete->second, 0.2 * D) << run.job.output;
}

TEST(WaitStates, BalancedRunShowsNothingAboveHalfOfD4Ranks) {
  for (const std::string& osc : osc_components_to_test()) {
    std::string problems;
    for (int attempt = 0; attempt < 3; ++attempt) {
      const ScenarioRun run = run_scenario(osc, "balanced");
      ASSERT_EQ(run.job.exit_code, 0) << run.job.output;
      ASSERT_FALSE(run.waits.process_seconds.empty()) << "no wait-state lines";
      problems.clear();
      for (const auto& [key, seconds] : run.totals)
        if (seconds > 0.5 * D)
          problems += osc + ": rank " + std::to_string(key.first) + " " + wait_states::pattern_name(key.second) + " " +
                      std::to_string(seconds) + " s\n";
      if (problems.empty()) {
        expect_pvars_match_job_file(run);
        for (const auto& w : run.waits.windows) EXPECT_EQ(w.unmatched, 0u) << osc << " rank " << w.rank;
        break;
      }
    }
    EXPECT_TRUE(problems.empty()) << problems;
  }
}

TEST(WaitStates, AnInjectedClockOffsetIsMeasuredAndCancelled4Ranks) {
  // Ranks 2 and 3 read a clock 5 s ahead, as if on another host: the offsets measured at
  // window creation cancel it, the waits stay right, and the job file shows the offset.
  const std::vector<std::string> shift = {"--mca", "osc_monitoring_wait_states_testing_clock_offset", "5:2,3"};
  for (const std::string& osc : osc_components_to_test()) {
    const ScenarioRun run = run_until_expected(osc, "late_post", from_origins(Pattern::late_post), shift);
    EXPECT_EQ(check_expected(run, from_origins(Pattern::late_post)), "") << run.job.output;
    ASSERT_EQ(run.waits.windows.size(), 4u);
    for (const auto& w : run.waits.windows) {
      const double expected = w.rank >= 2 ? -5.0 : 0.0;
      EXPECT_NEAR(w.clock_offset, expected, 0.01) << osc << " rank " << w.rank;
      ASSERT_TRUE(w.clock_drift) << "drift measured at MPI_Win_free";
      EXPECT_LT(std::fabs(*w.clock_drift), 0.01) << osc << " rank " << w.rank;
    }
    // Without correction, ranks 2-3 would see the post 5 s in the past (no wait) and
    // rank 1's partner clocks would disagree by 5 s: nothing near D would come out.
  }
}

TEST(WaitStates, OurOwnTrafficIsNeverCounted4Ranks) {
  // The same records with and without wait states (shadow windows, private
  // communicators, the fence allreduces and clock ping-pongs are all ours).
  for (const std::string& osc : osc_components_to_test()) {
    std::vector<std::string> records[2];
    for (int on = 0; on < 2; ++on) {
      std::vector<std::string> arguments = wait_state_arguments(osc, std::to_string(on));
      arguments.insert(arguments.end(), {kProgram, "balanced", std::to_string(D)});
      const JobResult job = run_job(4, arguments);
      ASSERT_EQ(job.exit_code, 0) << job.output;
      for (const JobRecord& r : read_job_file((job.folder / "mpimon-job.txt").string()).records)
        records[on].push_back(std::to_string(r.source) + " " + std::to_string(r.destination) + " " +
                              category_name(r.category) + " " + std::to_string(r.counters.messages) + " " +
                              std::to_string(r.counters.bytes));
    }
    EXPECT_FALSE(records[0].empty());
    EXPECT_EQ(records[0], records[1]) << osc;
  }
}

TEST(WaitStates, InvalidValuesWarnOnceAndLeaveWaitStatesOff4Ranks) {
  for (const std::string value : {"abc", "2", "-1"}) {
    std::vector<std::string> arguments = wait_state_arguments("rdma", value);
    arguments.insert(arguments.end(), {kProgram, "late_post", "0.05"});
    const JobResult job = run_job(4, arguments);
    ASSERT_EQ(job.exit_code, 0) << job.output;
    const std::string warning = "mpimon: invalid value '" + value +
                                "' for MCA parameter osc_monitoring_wait_states (valid: 0 or 1); using 0: wait "
                                "states off, the job runs on";
    const size_t first = job.output.find(warning);
    EXPECT_NE(first, std::string::npos) << job.output;
    EXPECT_EQ(job.output.find(warning, first + 1), std::string::npos) << "once per job";
    EXPECT_EQ(read_text(job.folder / "mpimon-job.txt").find("\nwait_state"), std::string::npos);  // no such line
  }
  std::vector<std::string> arguments = wait_state_arguments("rdma");
  arguments.insert(arguments.end(), {"--mca", "osc_monitoring_wait_states_testing_clock_offset", "5:x"});
  arguments.insert(arguments.end(), {kProgram, "late_post", "0.05"});
  const JobResult job = run_job(4, arguments);
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("for MCA parameter osc_monitoring_wait_states_testing_clock_offset (expected"),
            std::string::npos)
      << job.output;
}

TEST(WaitStates, OffWithThreadMultipleSaidOnce4Ranks) {
  const JobResult job =
      run_job(4, concat_arguments(wait_state_arguments("rdma"), {MPIMON_OSC_PATTERNS, "ops", "threads"}));
  expect_every_rank_ok(job, 4, "ops");
  const std::string warning = "osc_monitoring_wait_states 1 is not supported with MPI_THREAD_MULTIPLE";
  const size_t first = job.output.find(warning);
  EXPECT_NE(first, std::string::npos) << job.output;
  EXPECT_EQ(job.output.find(warning, first + 1), std::string::npos);
}

TEST(WaitStates, ToolsShowTheWaitStates4Ranks) {
  const ScenarioRun run = run_until_expected("rdma", "late_complete", kLateComplete);
  ASSERT_EQ(check_expected(run, kLateComplete), "") << run.job.output;
  // mpimon matrix --pattern: row 0 (the target) waited for column 3.
  const JobResult matrix =
      run_shell(run.job.folder, MPIMON_BIN " matrix mpimon-job.txt --pattern late_complete --format csv");
  ASSERT_EQ(matrix.exit_code, 0) << matrix.output;
  std::istringstream lines(matrix.output);
  std::string header, row0;
  std::getline(lines, header);
  std::getline(lines, row0);
  EXPECT_EQ(header, "waiter,0,1,2,3");
  const std::regex cell(R"(0,0,0,0,(0\.\d+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(row0, m, cell)) << matrix.output;
  EXPECT_NEAR(std::stod(m[1]), run.by_culprit.at({0, Pattern::late_complete, 3}), 1e-6);
  const JobResult counts =
      run_shell(run.job.folder, MPIMON_BIN " matrix mpimon-job.txt --pattern all --metric messages --format mtx");
  ASSERT_EQ(counts.exit_code, 0) << counts.output;
  EXPECT_NE(counts.output.find("\n1 4 2\n"), std::string::npos) << counts.output;  // early_wait + late_complete
  // mpimon waits: the paper's Table 2 rows with their share of the job's time.
  const JobResult table = run_shell(run.job.folder, MPIMON_BIN " waits mpimon-job.txt --labels late");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  for (const char* row : {"Total time", "RMA synchronisation", "  Early Wait", "    Late Complete", "late [s]"})
    EXPECT_NE(table.output.find(row), std::string::npos) << row << "\n" << table.output;
  // mpimon report: its section and one heatmap per pattern found.
  const JobResult report = run_shell(run.job.folder, MPIMON_BIN " report mpimon-job.txt -o report.html");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string page = read_text(run.job.folder / "report.html");
  for (const char* part : {"<h2>RMA wait states</h2>", "Who made whom wait: early_wait",
                           "Who made whom wait: late_complete", "late_complete</td>"})
    EXPECT_NE(page.find(part), std::string::npos) << part;
  // Traffic matrices refuse --metric seconds; job files without wait states are said so.
  EXPECT_EQ(run_shell(run.job.folder, MPIMON_BIN " matrix mpimon-job.txt --metric seconds").exit_code, 2);
  const JobResult plain = run_job(4, {"--mca", "pml_monitoring_enable", "2", kProgram, "late_post", "0.01"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const JobResult none = run_shell(plain.folder, MPIMON_BIN " waits mpimon-job.txt");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("no wait states (run the job with --mca osc_monitoring_wait_states 1)"), std::string::npos)
      << none.output;
}

#ifdef MPIMON_EVENT_LOGGER
TEST(WaitStates, EachWaitStateRaisesAnEvent4Ranks) {
  std::vector<std::string> arguments = wait_state_arguments("rdma");
  arguments.insert(arguments.end(), {"-x", "LD_PRELOAD=" MPIMON_EVENT_LOGGER, "-x", "MEL_OUTPUT=mel", "-x",
                                     "MEL_EVENTS=mpimon_osc_wait_state", kProgram, "late_post", std::to_string(D)});
  const JobResult job = run_job(4, arguments);
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::regex event(
      R"('mpimon_osc_wait_state' win_id=\d+ pattern=late_post waiter=(\d) culprit=0 seconds=([0-9.]+))");
  for (int r = 1; r < 4; ++r) {
    const std::string log = read_text(job.folder / ("mel." + std::to_string(r) + ".log"));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(log, m, event)) << log;
    EXPECT_EQ(std::stoi(m[1]), r);
    EXPECT_GT(std::stod(m[2]), 0.0);
  }
}
#endif

TEST(WaitStates, BtRmaKernelSameResultInEveryVariantAndPatternsFollowTheSynchronisation4Ranks) {
  std::string checksum;
  for (const std::string variant : {"fence", "gats_fence", "gats", "gats_opt"}) {
    std::vector<std::string> arguments = wait_state_arguments("rdma");
    arguments.insert(arguments.end(), {MPIMON_BT_RMA, variant, "10", "24"});
    const JobResult job = run_job(4, arguments);
    ASSERT_EQ(job.exit_code, 0) << job.output;
    const std::smatch m = [&] {
      std::smatch found;
      std::regex_search(job.output, found, std::regex("checksum (\\S+)"));
      return found;
    }();
    ASSERT_FALSE(m.empty()) << job.output;
    if (checksum.empty()) checksum = m[1];
    EXPECT_EQ(m[1], checksum) << variant;
    const JobFile file = read_job_file((job.folder / "mpimon-job.txt").string());
    const auto waits = wait_states::read_wait_annotations(file.annotations, "mpimon-job.txt");
    uint64_t fence_waits = 0, active_target_waits = 0;
    for (const auto& w : waits.waits) {
      if (w.pattern == Pattern::wait_at_fence) fence_waits += w.count;
      if (w.pattern == Pattern::late_post || w.pattern == Pattern::early_wait) active_target_waits += w.count;
    }
    // Fences in every exchange: someone is last at each (10 iterations x 4 fences).
    if (variant == "fence") {
      EXPECT_GT(fence_waits, 0u);
      EXPECT_EQ(active_target_waits, 0u);
    } else {
      EXPECT_GT(active_target_waits, 0u) << variant;
    }
    if (variant == "gats" || variant == "gats_opt") {
      EXPECT_EQ(fence_waits, 0u) << variant;
    }
    EXPECT_EQ(waits.windows.size(), variant == "fence" ? 4u : variant == "gats_fence" ? 8u : 28u) << variant;
  }
}
