// OSC layer, end to end: real mpirun jobs running osc_patterns, dumps checked exactly.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kOsc = MPIMON_OSC_PATTERNS;

JobResult run_osc(int ranks, const std::vector<std::string>& options, const std::vector<std::string>& program) {
  std::vector<std::string> arguments = concat_arguments(monitoring_arguments(), options);
  arguments.push_back(kOsc);
  return run_job(ranks, concat_arguments(arguments, program));
}

// The accounting of osc_patterns' "ops" mode (see expected_op there), summed over its
// 13 operations: {S messages, S bytes, R messages, R bytes} of rank r against target t.
std::array<uint64_t, 4> ops_totals(int r, int t) {
  std::array<uint64_t, 4> total{};
  for (int k = 0; k < 13; ++k) {
    const uint64_t c = (r + 2 * t + k) % 5 + 1, a = t + 1;
    std::array<uint64_t, 4> e{};
    switch (k) {
      case 0:
      case 1:
      case 4:
      case 5:
        e = {1, 4 * c, 0, 0};
        break;  // put, rput, accumulate, raccumulate
      case 2:
      case 3:
        e = {0, 0, 1, 4 * c};
        break;  // get, rget
      case 6:
      case 7:
        e = {1, 4 * c, 1, 4 * c};
        break;  // get_accumulate, rget_accumulate
      case 8:
      case 9:
        e = {a, 4 * a, a, 4 * a};
        break;  // fetch_and_op, compare_and_swap
      case 10:
        e = {0, 0, 1, 4 * c};
        break;  // get_accumulate(MPI_NO_OP)
      case 11:
        e = {0, 0, a, 4 * a};
        break;  // fetch_and_op(MPI_NO_OP)
      case 12:
        e = {1, 8 * c, 0, 0};
        break;  // put of c vectors of 2 ints
    }
    for (int i = 0; i < 4; ++i) total[i] += e[i];
  }
  return total;
}

Edges expected_ops_edges(int ranks) {
  Edges edges;
  for (int r = 0; r < ranks; ++r) {
    for (int t = 0; t < ranks; ++t) {
      auto e = ops_totals(r, t);
      if (t == (r + 1) % ranks) {  // the final check reads back 4 ints from the right neighbour
        e[2] += 1;
        e[3] += 16;
      }
      if (e[0] > 0) edges[{'S', r, t}] = {e[1], e[0]};
      if (e[2] > 0) edges[{'R', r, t}] = {e[3], e[2]};
    }
  }
  return edges;
}

// "# SYNC" lines of all prof.<rank>.prof files: (rank, window, kind) -> calls; seconds
// must parse and be >= 0.
using SyncLines = std::map<std::tuple<int, std::string, std::string>, uint64_t>;

SyncLines read_sync_lines(const fs::path& folder, int ranks) {
  SyncLines out;
  const std::regex line(R"(# SYNC\t(\d+)\t([^\t]+)\t([a-z_]+)\t(\d+) calls\t(\d+\.\d{9}) s)");
  for (int r = 0; r < ranks; ++r) {
    std::istringstream text(read_text(folder / ("prof." + std::to_string(r) + ".prof")));
    for (std::string l; std::getline(text, l);) {
      if (l.rfind("# SYNC", 0) != 0) continue;
      std::smatch m;
      EXPECT_TRUE(std::regex_match(l, m, line)) << l;
      if (m.empty()) continue;
      EXPECT_EQ(std::stoi(m[1]), r) << l;
      EXPECT_GE(std::stod(m[5]), 0.0) << l;
      out[{r, m[2], m[3]}] = std::stoull(m[4]);
    }
  }
  return out;
}

// window_sync annotations of the job file, in the same shape.
SyncLines read_sync_annotations(const fs::path& job_file) {
  SyncLines out;
  for (const JobAnnotation& a : read_job_file(job_file.string()).annotations) {
    if (a.keyword != "window_sync") continue;
    EXPECT_EQ(a.fields.size(), 5u);
    if (a.fields.size() != 5) continue;
    EXPECT_GE(std::stod(a.fields[4]), 0.0);
    out[{std::stoi(a.fields[0]), a.fields[1], a.fields[2]}] = std::stoull(a.fields[3]);
  }
  return out;
}

bool has_osc_lines(const fs::path& folder, int ranks) {
  for (const ProfLine& l : read_lines(folder, ranks))
    if (l.kind == 'S' || l.kind == 'R') return true;
  return false;
}

bool has_sync_lines(const fs::path& folder, int ranks) {
  for (int r = 0; r < ranks; ++r)
    if (read_text(folder / ("prof." + std::to_string(r) + ".prof")).find("# SYNC") != std::string::npos) return true;
  return false;
}

// Job-file records of the osc categories, as edges.
Edges job_osc_edges(const fs::path& job_file) {
  Edges edges;
  for (const JobRecord& r : read_job_file(job_file.string()).records) {
    if (r.category == Category::osc_sent)
      edges[{'S', r.source, r.destination}] = {r.counters.bytes, r.counters.messages};
    if (r.category == Category::osc_recv)
      edges[{'R', r.source, r.destination}] = {r.counters.bytes, r.counters.messages};
  }
  return edges;
}

Edges ring_edges(int ranks, uint64_t bytes, uint64_t messages) {
  Edges edges;
  for (int r = 0; r < ranks; ++r) edges[{'S', r, (r + 1) % ranks}] = {bytes, messages};
  return edges;
}

}  // namespace

TEST(Osc, EveryOperationCountedExactlyAtTheOrigin4Ranks) {
  const JobResult job = run_osc(4, {}, {"ops"});
  expect_every_rank_ok(job, 4, "ops");  // includes the per-operation pvar deltas, checked by each rank
  const Edges expected = expected_ops_edges(4);
  EXPECT_EQ(read_edges(job.folder, "SR"), expected);
  EXPECT_EQ(job_osc_edges(job.folder / "mpimon-job.txt"), expected);
}

TEST(Osc, EveryOperationCountedUnderThreadMultiple4Ranks) {
  const JobResult job = run_osc(4, {}, {"ops", "threads"});
  expect_every_rank_ok(job, 4, "ops");
  EXPECT_EQ(read_edges(job.folder, "SR"), expected_ops_edges(4));
}

TEST(Osc, AllWindowFlavorsWorkAndSharedQuerySucceeds4Ranks) {
  const JobResult job = run_osc(4, {}, {"flavors"});
  expect_every_rank_ok(job, 4, "flavors");  // data moved, MPI_Win_shared_query returned the neighbour's segment
  // One 8-byte put to the right neighbour per flavor: create, allocate, allocate_shared, dynamic.
  EXPECT_EQ(read_edges(job.folder, "SR"), ring_edges(4, 32, 4));
}

TEST(Osc, OtherComponentsChosenAtRunTimePt2pt4Ranks) {
  MPIMON_SKIP_WITHOUT_OSC_PT2PT();
  const JobResult job =
      run_osc(4, {"--mca", "osc", "pt2pt,mpimon", "--mca", "pml_monitoring_verbose", "1"}, {"flavors", "no_shared"});
  expect_every_rank_ok(job, 4, "flavors");
  EXPECT_NE(job.output.find("window created by osc component pt2pt"), std::string::npos) << job.output;
  EXPECT_EQ(job.output.find("window created by osc component rdma"), std::string::npos) << job.output;
  EXPECT_EQ(read_edges(job.folder, "SR"), ring_edges(4, 24, 3));
}

TEST(Osc, OtherComponentsChosenAtRunTimeSmAndUcx4Ranks) {
  // A command-line selection replaces the environment's: it excludes Open MPI's own
  // monitoring itself, as `mpimon run` would have merged it (component_selection.h).
  // On 4.1, pt2pt takes the windows sm cannot. Open MPI 5.0 has no pt2pt, and its osc ucx
  // fails the job in its query where UCX has no transport (the Debian 13 root): without rdma,
  // no component there creates an MPI_Win_create window.
  if (!osc_pt2pt_exists())
    GTEST_SKIP() << "Open MPI " MPIMON_OMPI_VERSION
                    " without osc rdma has no component for MPI_Win_create here "
                    "(no pt2pt in 5.0; osc ucx fails without a UCX transport)";
  const std::string selection = "^rdma,monitoring";
  const JobResult job = run_osc(4, {"--mca", "osc", selection, "--mca", "pml_monitoring_verbose", "1"}, {"ops"});
  expect_every_rank_ok(job, 4, "ops");
  EXPECT_EQ(job.output.find("window created by osc component rdma"), std::string::npos) << job.output;
  EXPECT_EQ(read_edges(job.folder, "SR"), expected_ops_edges(4));
  const JobResult shared = run_osc(4, {"--mca", "osc", selection, "--mca", "pml_monitoring_verbose", "1"}, {"flavors"});
  expect_every_rank_ok(shared, 4, "flavors");
  EXPECT_NE(shared.output.find("window created by osc component sm"), std::string::npos) << shared.output;
  EXPECT_EQ(read_edges(shared.folder, "SR"), ring_edges(4, 32, 4));
}

TEST(Osc, SyncCallsCountedAndTimedPerWindowInProfAndJobFile4Ranks) {
  const JobResult job = run_osc(4, {"--mca", "osc_monitoring_sync_timing", "1"}, {"sync"});
  expect_every_rank_ok(job, 4, "sync");  // includes the sync_count / sync_time pvars on the window
  const SyncLines lines = read_sync_lines(job.folder, 4);
  // Per rank: "sync window" (named): 2 fences + 2 read by the count pvar + 1 by the time
  // pvar, two PSCW rounds (the second ends with MPI_Win_test: at least one call), 3
  // lock/unlock, lock_all with flush_all, flush_local_all, sync, and 2 flushes, 1
  // flush_local. Then the unnamed windows: "window 1" (1 fence) and "window 2" (3 fences).
  const std::map<std::string, uint64_t> named = {
      {"fence", 5}, {"start", 2},     {"complete", 2},    {"post", 2},           {"wait", 1},
      {"lock", 3},  {"unlock", 3},    {"lock_all", 1},    {"unlock_all", 1},     {"sync", 1},
      {"flush", 2}, {"flush_all", 1}, {"flush_local", 1}, {"flush_local_all", 1}};
  for (int r = 0; r < 4; ++r) {
    for (const auto& [kind, calls] : named) {
      const auto it = lines.find({r, "sync window", kind});
      ASSERT_NE(it, lines.end()) << "rank " << r << " " << kind;
      EXPECT_EQ(it->second, calls) << "rank " << r << " " << kind;
    }
    const auto test = lines.find({r, "sync window", "test"});
    ASSERT_NE(test, lines.end());
    EXPECT_GE(test->second, 1u);
    EXPECT_EQ(lines.at({r, "window 1", "fence"}), 1u);
    EXPECT_EQ(lines.at({r, "window 2", "fence"}), 3u);
  }
  EXPECT_EQ(lines.size(), 4u * (named.size() + 3));
  // The job file holds the same, names percent-encoded (no spaces).
  SyncLines annotations = read_sync_annotations(job.folder / "mpimon-job.txt");
  SyncLines decoded;
  for (const auto& [key, calls] : annotations) {
    auto [rank, name, kind] = key;
    decoded[{rank, std::regex_replace(name, std::regex("%20"), " "), kind}] = calls;
  }
  EXPECT_EQ(decoded, lines);
  EXPECT_TRUE(annotations.count({0, "sync%20window", "fence"}));
}

TEST(Osc, FreedWindowsOfTheSameNameAreMerged4Ranks) {
  const JobResult job = run_osc(4, {"--mca", "osc_monitoring_sync_timing", "1"}, {"many_windows"});
  expect_every_rank_ok(job, 4, "many_windows");
  const SyncLines lines = read_sync_lines(job.folder, 4);
  // 250 windows created and freed one after the other: all "window 1", one entry.
  SyncLines expected;
  for (int r = 0; r < 4; ++r) expected[{r, "window 1", "fence"}] = 250;
  EXPECT_EQ(lines, expected);
}

TEST(Osc, PvarsOnWorldAndSplitCommunicator4Ranks) {
  const JobResult job = run_osc(4, {}, {"pvars"});
  expect_every_rank_ok(job, 4, "pvars");
}

TEST(Osc, FailingCallsReturnTheirErrorUnchangedAndRecordNothing4Ranks) {
  const JobResult job = run_osc(4, {}, {"errors"});
  expect_every_rank_ok(job, 4, "errors");  // includes: osc pvars unchanged by the failed calls
  EXPECT_FALSE(has_osc_lines(job.folder, 4));
  // The same return codes as without our component.
  const JobResult plain = run_osc(4, {"--mca", "osc", "^mpimon,monitoring"}, {"errors"});
  expect_every_rank_ok(plain, 4, "errors");
  const std::regex codes(
      R"(rank (\d): put to invalid rank returned (\d+), put outside an epoch (\d+), get outside an epoch (\d+), unlock without lock (\d+))");
  auto collect = [&](const std::string& output) {
    std::map<int, std::string> out;
    for (std::sregex_iterator it(output.begin(), output.end(), codes), end; it != end; ++it)
      out[std::stoi((*it)[1])] = (*it)[0].str();
    return out;
  };
  const auto monitored = collect(job.output), unmonitored = collect(plain.output);
  EXPECT_EQ(monitored.size(), 4u) << job.output;
  EXPECT_EQ(monitored, unmonitored);
}

// The put and get wrappers' fast path (the target's counters cached) counts after the
// component's call returned success: a failure there records nothing either.
TEST(Osc, FailingCallsAfterSuccessfulOnesToTheSameTargetRecordNothing4Ranks) {
  const JobResult job = run_osc(4, {}, {"warm_errors"});
  expect_every_rank_ok(job, 4, "warm_errors");  // the osc pvars' deltas are exactly the successful calls
}

TEST(Osc, ExcludedComponentLeavesOscUnmonitoredAndTheRestWorking4Ranks) {
  const JobResult job = run_osc(4, {"--mca", "osc", "^mpimon,monitoring"}, {"unmonitored"});
  expect_every_rank_ok(job, 4, "unmonitored");
  EXPECT_NE(job.output.find("osc pvars absent"), std::string::npos) << job.output;
  EXPECT_FALSE(has_osc_lines(job.folder, 4));
  EXPECT_FALSE(has_sync_lines(job.folder, 4));
  EXPECT_TRUE(fs::exists(job.folder / "mpimon-job.txt"));  // the PML layer still dumps
  // A --mca osc list without monitoring: the named component alone, unmonitored.
  const JobResult rdma = run_osc(4, {"--mca", "osc", "rdma"}, {"unmonitored", "no_shared"});
  expect_every_rank_ok(rdma, 4, "unmonitored");
  EXPECT_FALSE(has_osc_lines(rdma.folder, 4));
}

TEST(Osc, PmlMonitoringOffLeavesOscUnmonitored4Ranks) {
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "0", kOsc, "unmonitored"});
  expect_every_rank_ok(job, 4, "unmonitored");  // osc pvars, if present, stay 0
  EXPECT_TRUE(fs::is_empty(job.folder));
}

TEST(Osc, SyncTimingOffByDefaultKeepsTrafficAndDropsSyncLines4Ranks) {
  const JobResult job = run_osc(4, {}, {"ops"});
  expect_every_rank_ok(job, 4, "ops");
  EXPECT_EQ(read_edges(job.folder, "SR"), expected_ops_edges(4));
  EXPECT_FALSE(has_sync_lines(job.folder, 4));
}

// Invalid text (negative, too large, not a number) used to turn timing on silently.
TEST(Osc, InvalidSyncTimingValuesWarnOnceAndLeaveTimingOff4Ranks) {
  for (const char* value : {"-1", "2", "99999999999", "yes"}) {
    const JobResult job = run_osc(4, {"--mca", "osc_monitoring_sync_timing", value}, {"ops"});
    expect_every_rank_ok(job, 4, "ops");
    EXPECT_EQ(read_edges(job.folder, "SR"), expected_ops_edges(4)) << value;
    EXPECT_FALSE(has_sync_lines(job.folder, 4)) << value;
    const std::string warning = std::string("mpimon: invalid value '") + value +
                                "' for MCA parameter osc_monitoring_sync_timing (valid: 0 off, 1 on); using 0: "
                                "synchronisation calls not timed\n";
    const size_t at = job.output.find(warning);
    EXPECT_NE(at, std::string::npos) << job.output;
    EXPECT_EQ(job.output.find(warning, at + 1), std::string::npos) << "once per job\n" << job.output;
  }
}

TEST(Osc, PluginExportsOnlyItsComponentSymbol) {
  const JobResult nm = run_shell(new_test_folder(), "nm -D --defined-only " + std::string(MPIMON_PLUGIN_DIR) +
                                                        "/mca_osc_mpimon.so | awk '{print $3}'");
  ASSERT_EQ(nm.exit_code, 0) << nm.output;
  EXPECT_EQ(nm.output, "mca_osc_mpimon_component\n");
}
