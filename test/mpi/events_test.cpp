// MPI_T events from our layers, end to end: real mpirun jobs of event_patterns, whose
// callbacks are registered before MPI_Init; what they receive is compared with the
// monitoring dump of the same run.
#include <gtest/gtest.h>

#include <regex>

#include "mpi_job.h"

using namespace mpimon::test;

namespace {

const std::string kEvents = MPIMON_EVENT_PATTERNS;
const std::vector<std::string> kBinaryTreeReduce = binary_tree_reduce_arguments();

// "EDGE <E|I> <me> <peer> <bytes> <messages>" lines -> the dump's edge map.
Edges edges_printed(const std::string& output) {
  Edges edges;
  const std::regex line(R"(EDGE ([EI]) (\d+) (-?\d+) (\d+) (\d+))");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it)
    edges[{(*it)[1].str()[0], std::stoi((*it)[2]), std::stoi((*it)[3])}] = {std::stoull((*it)[4]),
                                                                            std::stoull((*it)[5])};
  return edges;
}

}  // namespace

// Category E (tags >= 0) and I (negative tags: collectives' internal messages) of the
// point-to-point layer: every send the dump counts was seen as a send-posted event on
// MPI_COMM_WORLD, with the same peer and bytes, and nothing else.
TEST(Events, RingSendEventsEqualTheDumpedMatrix4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "traffic", "ring"}));
  expect_every_rank_ok(job, 4, "traffic");
  const Edges events = edges_printed(job.output);
  EXPECT_FALSE(events.empty());
  EXPECT_EQ(events, read_edges(job.folder, "EI"));
}

TEST(Events, BinaryTreeReduceSendEventsEqualTheDumpedMatrix8Ranks) {
  const JobResult job = run_job(
      8, concat_arguments(concat_arguments(monitoring_arguments(), kBinaryTreeReduce), {kEvents, "traffic", "reduce"}));
  expect_every_rank_ok(job, 8, "traffic");
  const Edges events = edges_printed(job.output);
  // Exactly the tree: 1,2 -> 0; 3,5 -> 1; 4,6 -> 2; 7 -> 3, 8 KiB each.
  Edges tree;
  for (auto [from, to] : {std::pair{1, 0}, {2, 0}, {3, 1}, {5, 1}, {4, 2}, {6, 2}, {7, 3}})
    tree[{'I', from, to}] = {8192, 1};
  Edges dumped = read_edges(job.folder, "EI");
  EXPECT_EQ(events, dumped);
  EXPECT_EQ(events, tree);
}

TEST(Events, CallbacksAtNoSafetyLevelGetPointToPointEventsAtTheNextSafePoint4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "queued"}));
  expect_every_rank_ok(job, 4, "queued");
}

TEST(Events, PersistentAndMatchedReceivesRaiseTheirEvents4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "receives"}));
  expect_every_rank_ok(job, 4, "receives");
}

TEST(Events, HandleBoundToACommunicatorSeesOnlyItsEvents4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "bound"}));
  expect_every_rank_ok(job, 4, "bound");
}

// MPI_COMM_NULL, MPI_WIN_NULL, freed objects, the other kind (a window event bound to a
// communicator): MPI_T_ERR_INVALID_HANDLE for every bound type of the catalogue.
TEST(Events, HandlesOnInvalidObjectsAreRefusedForEveryBoundType2Ranks) {
  const JobResult job = run_job(2, concat_arguments(monitoring_arguments(), {kEvents, "objects"}));
  expect_every_rank_ok(job, 2, "objects");
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(job.output, found, std::regex(R"(rank 1: (\d+) bound event types checked)"));
    return found;
  }();
  ASSERT_FALSE(m.empty()) << job.output;
  EXPECT_GE(std::stoi(m[1].str()), 10) << job.output;  // 4 pml, 2 coll, 4 osc, wait states
}

TEST(Events, RegistrationBeforeMpiInitSeesTheFirstCommDup4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "before_init"}));
  expect_every_rank_ok(job, 4, "before_init");
}

TEST(Events, CollectiveBeginAndEndWithKindRootBytes4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "coll"}));
  expect_every_rank_ok(job, 4, "coll");
}

TEST(Events, OneSidedOperationsAndSynchronisation4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "osc"}));
  expect_every_rank_ok(job, 4, "osc");
}

// MPI_Isend's event path is chosen when send events gain or lose listeners: tools that
// come and go between sends get exactly the events of the types they listen to.
TEST(Events, SendListenersComingAndGoingGetExactlyTheirEvents4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "send_midrun"}));
  expect_every_rank_ok(job, 4, "send_midrun");
  Edges expected;
  for (int r = 0; r < 4; ++r) expected[{'E', r, (r + 1) % 4}] = {12 * 8, 12};
  EXPECT_EQ(read_edges(job.folder, "E"), expected) << job.output;
}

TEST(Events, SendListenersComingAndGoingUnderThreadMultiple4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "send_midrun", "threads"}));
  expect_every_rank_ok(job, 4, "send_midrun");
  Edges expected;
  for (int r = 0; r < 4; ++r) expected[{'E', r, (r + 1) % 4}] = {12 * 8, 12};
  EXPECT_EQ(read_edges(job.folder, "E"), expected) << job.output;
}

// The OSC data wrappers' fast path does not test for listeners (the peer caches are
// emptied when a tool starts listening): a tool arriving mid-run still gets every
// operation, and the traffic stays counted exactly whoever listens.
TEST(Events, OneSidedListenerArrivingMidRunGetsEveryOperation4Ranks) {
  const JobResult job = run_job(4, concat_arguments(monitoring_arguments(), {kEvents, "osc_midrun"}));
  expect_every_rank_ok(job, 4, "osc_midrun");
  Edges expected;
  for (int r = 0; r < 4; ++r) {
    expected[{'S', r, (r + 1) % 4}] = {10 * 8, 10};
    expected[{'R', r, (r + 1) % 4}] = {7 * 16, 7};
  }
  EXPECT_EQ(read_edges(job.folder, "SR"), expected) << job.output;
}

TEST(Events, MonitoringOffRaisesNothingAndTheProgramRuns4Ranks) {
  // Without monitoring our layers are not there: the catalogue exists, nothing is raised.
  const JobResult job = run_job(4, {"--mca", "pml_monitoring_enable", "0", kEvents, "traffic", "ring"});
  EXPECT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("FAILED traffic [send posted 0]"), std::string::npos) << job.output;
  EXPECT_TRUE(edges_printed(job.output).empty());
}

// The PML raises its events inline, reading the events library's structures: with a
// library from another build (its layout signature differs) it warns once and raises
// nothing; the job and its monitoring run on.
TEST(Events, EventsLibraryFromAnotherBuildTurnsPointToPointEventsOffWithAWarning4Ranks) {
  const JobResult job =
      run_job(4, concat_arguments({"-x", std::string("LD_PRELOAD=") + MPIMON_LAYOUT_MISMATCH_SHIM},
                                  concat_arguments(monitoring_arguments(), {kEvents, "traffic", "ring"})));
  EXPECT_EQ(job.exit_code, 0) << job.output;
  const std::string warning = "mpimon: MPI_T events are off for point-to-point: the MPI_T events library";
  const auto first = job.output.find(warning);
  ASSERT_NE(first, std::string::npos) << job.output;
  EXPECT_EQ(job.output.find(warning, first + 1), std::string::npos) << "warned more than once:\n" << job.output;
  EXPECT_NE(job.output.find("FAILED traffic [send posted 0]"), std::string::npos) << job.output;
  EXPECT_TRUE(edges_printed(job.output).empty());
  EXPECT_FALSE(read_edges(job.folder, "EI").empty());  // monitoring still counted the ring
}
