// The nonblocking-collective tracker with synthetic timestamps: which sends belong to
// which collective, what "before the wait" and "blocked" mean, the per-kind totals, the
// activity switches and the dump lines.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "analyses/communicator_classes.h"
#include "analyses/nbc_overlap.h"

using namespace mpimon;

namespace {

int comm_a, comm_b, local_of_b;  // stand-ins for communicators (only addresses are used)
int request_1, request_2;

struct Switches {
  static inline std::vector<bool> calls;
  static void record(bool active) { calls.push_back(active); }
};

class NbcTrackerTest : public ::testing::Test {
 protected:
  NbcTrackerTest() : tracker(SyncClock::Source::steady) { Switches::calls.clear(); }
  CommunicatorRegistry registry;
  CommunicatorClasses* entry = registry.open("world", {0, 1});
  NbcTracker tracker;
  const NbcKindTotals& totals(NbcKind kind) { return (*entry->nbc())[kind]; }
};

}  // namespace

TEST(NbcCall, OverlapIsTheByteShareBeforeTheWaitOrOneWithoutWait) {
  NbcCall call;
  call.bytes = 100;
  call.bytes_before_wait = 25;
  call.messages = 4;
  call.messages_before_wait = 1;
  EXPECT_DOUBLE_EQ(call.overlap(), 1.0) << "never waited for";
  call.waited = true;
  EXPECT_DOUBLE_EQ(call.overlap(), 0.25);
  NbcCall zero_bytes;
  zero_bytes.waited = true;
  zero_bytes.messages = 4;
  zero_bytes.messages_before_wait = 3;
  EXPECT_DOUBLE_EQ(zero_bytes.overlap(), 0.75) << "0-byte messages (ibarrier): the share of messages";
  NbcCall nothing;
  EXPECT_TRUE(nothing.measured()) << "completed before any wait: 1";
  nothing.waited = true;
  EXPECT_FALSE(nothing.measured()) << "posted nothing of its own and was waited for: nothing to tell";
  NbcKindTotals totals;
  totals.add(nothing);
  EXPECT_EQ(totals.calls, 1u);
  EXPECT_EQ(totals.measured_calls, 0u);
  EXPECT_EQ(totals.histogram[0], 0u);
}

TEST(NbcCall, HistogramBucketsAreTenthsWithOneInTheLast) {
  EXPECT_EQ(overlap_bucket(0.0), 0u);
  EXPECT_EQ(overlap_bucket(0.0999), 0u);
  EXPECT_EQ(overlap_bucket(0.1), 1u);
  EXPECT_EQ(overlap_bucket(0.95), 9u);
  EXPECT_EQ(overlap_bucket(1.0), 9u);
  EXPECT_EQ(overlap_bucket(-1.0), 0u);
}

TEST_F(NbcTrackerTest, SendsBeforeTheFirstWaitCountAsOverlapped) {
  tracker.add_switch(Switches::record);
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -27, NbcKind::iallreduce, entry, 1000);
  EXPECT_TRUE(tracker.attribute_send(&comm_a, -27, 100)) << "inside the call";
  tracker.started(p, -27, &request_1);
  EXPECT_TRUE(tracker.attribute_send(&comm_a, -27, 200)) << "progress before the wait";
  EXPECT_FALSE(tracker.attribute_send(&comm_a, -28, 50)) << "another tag";
  EXPECT_FALSE(tracker.attribute_send(&comm_b, -27, 50)) << "another communicator";
  NbcTracker::Wait wait;
  const void* requests[] = {&request_2, &request_1};
  tracker.wait_begin(requests, 2, 5000, wait);
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_TRUE(tracker.attribute_send(&comm_a, -27, 700)) << "inside the wait";
  tracker.completed(p, 8000);
  tracker.wait_end(wait, 9000);
  EXPECT_EQ(tracker.pending(), 0u);
  const NbcKindTotals& t = totals(NbcKind::iallreduce);
  EXPECT_EQ(t.calls, 1u);
  EXPECT_EQ(t.waited_calls, 1u);
  EXPECT_EQ(t.duration_ticks, 7000u);
  EXPECT_EQ(t.blocked_ticks, 3000u) << "from the wait's start to the completion, not to the wait's return";
  EXPECT_EQ(t.bytes, 1000u);
  EXPECT_EQ(t.bytes_before_wait, 300u);
  EXPECT_DOUBLE_EQ(t.overlap_sum, 0.3);
  EXPECT_EQ(t.histogram[3], 1u);
  EXPECT_EQ(Switches::calls, (std::vector<bool>{true, false}));
}

TEST_F(NbcTrackerTest, CompletedBeforeAnyWaitOverlapsFully) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -30, NbcKind::ibcast, entry, 0);
  tracker.started(p, -30, &request_1);
  tracker.attribute_send(&comm_a, -30, 64);
  tracker.completed(p, 10);
  NbcTracker::Wait wait;  // the application waits on the completed request afterwards
  const void* requests[] = {&request_1};
  tracker.wait_begin(requests, 1, 20, wait);
  EXPECT_EQ(wait.size(), 0u);
  tracker.wait_end(wait, 30);
  const NbcKindTotals& t = totals(NbcKind::ibcast);
  EXPECT_EQ(t.calls, 1u);
  EXPECT_EQ(t.waited_calls, 0u);
  EXPECT_EQ(t.blocked_ticks, 0u);
  EXPECT_DOUBLE_EQ(t.overlap_sum, 1.0);
  EXPECT_EQ(t.histogram[9], 1u);
}

TEST_F(NbcTrackerTest, AWaitThatReturnsWithoutItStillBlockedOnIt) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -40, NbcKind::ibarrier, entry, 0);
  tracker.started(p, -40, &request_1);
  tracker.attribute_send(&comm_a, -40, 0);
  NbcTracker::Wait any;  // MPI_Waitany: another request completed first
  const void* requests[] = {&request_1, &request_2};
  tracker.wait_begin(requests, 2, 100, any);
  tracker.wait_end(any, 150);
  tracker.attribute_send(&comm_a, -40, 0);  // progressed later, after the first wait
  NbcTracker::Wait wait;
  tracker.wait_begin(requests, 1, 300, wait);
  tracker.completed(p, 320);
  tracker.wait_end(wait, 330);
  const NbcKindTotals& t = totals(NbcKind::ibarrier);
  EXPECT_EQ(t.blocked_ticks, 70u);
  EXPECT_EQ(t.bytes, 0u);
  EXPECT_DOUBLE_EQ(t.overlap_sum, 0.5) << "0-byte messages: one of two before the first wait";
}

TEST_F(NbcTrackerTest, ReservedTagRangeAndLocalCommunicatorAreFollowed) {
  NbcTracker::Pending* p = tracker.begin(&comm_b, &local_of_b, -50, NbcKind::ibcast, entry, 0);
  tracker.started(p, -53, &request_1);  // a module that reserved four tags
  EXPECT_TRUE(tracker.attribute_send(&comm_b, -53, 1));
  EXPECT_TRUE(tracker.attribute_send(&local_of_b, -51, 1)) << "intercommunicator: its local communicator";
  EXPECT_FALSE(tracker.attribute_send(&comm_b, -54, 1));
  tracker.completed(p, 1);
  EXPECT_EQ(totals(NbcKind::ibcast).bytes, 2u);
}

TEST_F(NbcTrackerTest, SendsInsideTheCallBelongToItWhateverTheirTag) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -60, NbcKind::igather, entry, 0);
  EXPECT_TRUE(tracker.attribute_send(&comm_a, -12, 8));
  tracker.started(p, -59, nullptr);  // reserved no tag: only its in-call sends are known
  EXPECT_FALSE(tracker.attribute_send(&comm_a, -60, 8));
  tracker.completed(p, 5);
  EXPECT_EQ(totals(NbcKind::igather).bytes, 8u);
}

TEST_F(NbcTrackerTest, ASendOfAnotherThreadDuringTheCallUsesTheFirstTag) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -70, NbcKind::ibcast, entry, 0);
  bool found = false;
  std::thread([&] { found = tracker.attribute_send(&comm_a, -70, 3); }).join();  // a progress thread
  EXPECT_TRUE(found);
  tracker.started(p, -70, &request_1);
  tracker.completed(p, 1);
  EXPECT_EQ(totals(NbcKind::ibcast).bytes, 3u);
}

TEST_F(NbcTrackerTest, CompletionInsideTheCallIsCountedWhenTheCallReturns) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -80, NbcKind::iscan, entry, 0);
  tracker.completed(p, 4);
  EXPECT_EQ(totals(NbcKind::iscan).calls, 0u) << "counted when the call returns";
  tracker.started(p, -80, &request_1);
  EXPECT_EQ(totals(NbcKind::iscan).calls, 1u);
  EXPECT_EQ(totals(NbcKind::iscan).duration_ticks, 4u);
}

TEST_F(NbcTrackerTest, AFailedCallIsForgotten) {
  tracker.add_switch(Switches::record);
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -90, NbcKind::iscan, entry, 0);
  tracker.abandon(p);
  EXPECT_EQ(tracker.pending(), 0u);
  EXPECT_FALSE(tracker.attribute_send(&comm_a, -90, 1));
  EXPECT_EQ(totals(NbcKind::iscan).calls, 0u);
  EXPECT_EQ(totals(NbcKind::iscan).followed, 0u) << "the call did not take place";
  EXPECT_FALSE(entry->has_traffic());
  EXPECT_EQ(Switches::calls, (std::vector<bool>{true, false}));
}

TEST_F(NbcTrackerTest, SwitchesFireOnlyOnTheFirstAndLastPendingCollective) {
  tracker.add_switch(Switches::record);
  NbcTracker::Pending* a = tracker.begin(&comm_a, nullptr, -1000, NbcKind::ibarrier, entry, 0);
  tracker.started(a, -1000, &request_1);
  NbcTracker::Pending* b = tracker.begin(&comm_a, nullptr, -1001, NbcKind::ibarrier, entry, 0);
  tracker.started(b, -1001, &request_2);
  EXPECT_EQ(tracker.pending(), 2u);
  tracker.completed(a, 1);
  tracker.completed(b, 2);
  EXPECT_EQ(Switches::calls, (std::vector<bool>{true, false}));
  EXPECT_EQ(totals(NbcKind::ibarrier).calls, 2u);
}

TEST_F(NbcTrackerTest, ACollectivePendingWhenItsCommunicatorIsFreedRecordsNowhere) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -110, NbcKind::ialltoall, entry, 0);
  tracker.started(p, -110, &request_1);
  tracker.detach(entry);
  registry.close(entry, "world");
  tracker.completed(p, 9);
  EXPECT_EQ(registry.size(), 0u) << "no traffic: the entry was dropped, nothing wrote to it afterwards";
}

TEST_F(NbcTrackerTest, FreedCommunicatorsMergeTheirNonblockingTotals) {
  for (int i = 0; i < 2; ++i) {
    CommunicatorClasses* dup = registry.open("dup", {0, 1});
    NbcTracker::Pending* p = tracker.begin(&comm_b, nullptr, -120 - i, NbcKind::iallgather, dup, 0);
    tracker.started(p, -120 - i, &request_1);
    tracker.completed(p, 10);
    tracker.detach(dup);
    registry.close(dup, "dup");
  }
  EXPECT_EQ(registry.size(), 2u) << "world and one merged 'dup'";
  int merged_calls = 0;
  registry.for_each([&](const CommunicatorClasses& e) {
    if (e.name() == "dup") merged_calls = static_cast<int>((*e.nbc())[NbcKind::iallgather].calls);
  });
  EXPECT_EQ(merged_calls, 2);
}

TEST(NbcTotals, TheJobFileSumsEntriesOfOneIdentityAndNamesItTheProfFileNamesEach) {
  CommunicatorRegistry registry;
  CommunicatorClasses* first = registry.open("a name", {0, 1}, 5);
  CommunicatorClasses* second = registry.open("other", {0, 1}, 5);  // same context id and members
  NbcCall call;
  call.bytes = call.bytes_before_wait = 8;
  call.messages = call.messages_before_wait = 1;
  first->nbc_totals()[NbcKind::ibcast].add(call);
  second->nbc_totals()[NbcKind::ibcast].add(call);
  EXPECT_EQ(format_job_nbc(0, registry, 1e-9, {}), "nbc_overlap 0 " + first->identity() +
                                                       " ibcast 2 0 0.000000000 0.000000000 16 16 1.000000 "
                                                       "0,0,0,0,0,0,0,0,0,2\n");
  const std::string prof = format_prof_nbc(0, registry, 1e-9, {});
  EXPECT_NE(prof.find("# NBC\t0\ta name\tibcast\t1 calls"), std::string::npos) << prof;
  EXPECT_NE(prof.find("# NBC\t0\tother\tibcast\t1 calls"), std::string::npos) << prof;
}

TEST_F(NbcTrackerTest, ByteWeightedOverlapAndDumpLines) {
  for (uint64_t before : {100u, 300u}) {  // 100 of 400 bytes, then 300 of 400
    NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -130, NbcKind::iallreduce, entry, 0);
    tracker.started(p, -130, &request_1);
    tracker.attribute_send(&comm_a, -130, before);
    NbcTracker::Wait wait;
    const void* requests[] = {&request_1};
    tracker.wait_begin(requests, 1, 1'000'000'000, wait);
    tracker.attribute_send(&comm_a, -130, 400 - before);
    tracker.completed(p, 1'500'000'000);
    tracker.wait_end(wait, 1'500'000'000);
  }
  EXPECT_DOUBLE_EQ(entry->nbc()->byte_weighted_overlap(), 0.5);
  EXPECT_EQ(format_job_nbc(3, registry, 1e-9, {}),
            "nbc_overlap 3 " + entry->identity() +
                " iallreduce 2 2 3.000000000 1.000000000 800 400 0.500000 0,0,1,0,0,0,0,1,0,0\n");
  EXPECT_EQ(format_prof_nbc(3, registry, 1e-9, {}),
            "# NBC\t3\tworld\tiallreduce\t2 calls\t2 waited\t3.000000000 s\t1.000000000 s blocked\t800 bytes\t"
            "400 bytes before wait\t0.500000\t0,0,1,0,0,0,0,1,0,0\n");
}

TEST(NbcTotals, AReceiveOnlyCallHasNoMeanInTheDumpLines) {
  CommunicatorRegistry registry;
  CommunicatorClasses* leaf = registry.open("w", {0, 1});
  NbcCall receive_only;
  receive_only.waited = true;
  leaf->nbc_totals()[NbcKind::ibcast].add(receive_only);
  EXPECT_EQ(format_job_nbc(1, registry, 1e-9, {}),
            "nbc_overlap 1 " + leaf->identity() + " ibcast 1 1 0.000000000 0.000000000 0 0 - 0,0,0,0,0,0,0,0,0,0\n");
}

TEST(NbcTotals, NoBytesFallsBackToTheMeanAndNothingMeasuredIsNotANumber) {
  NbcTotals totals;
  EXPECT_TRUE(std::isnan(totals.byte_weighted_overlap())) << "not measured is never a number";
  NbcCall receive_only;
  receive_only.waited = true;
  totals[NbcKind::ibcast].add(receive_only);
  EXPECT_TRUE(std::isnan(totals.byte_weighted_overlap())) << "followed, but no message of its own";
  NbcCall barrier;
  barrier.waited = true;
  barrier.messages = 2;
  barrier.messages_before_wait = 2;
  totals[NbcKind::ibarrier].add(barrier);
  EXPECT_DOUBLE_EQ(totals.byte_weighted_overlap(), 1.0);
}

TEST_F(NbcTrackerTest, AWaitThatReturnedCompletesACollectiveWhoseCallbackNeverRan) {
  tracker.add_switch(Switches::record);
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -140, NbcKind::ibcast, entry, 0);
  tracker.started(p, -140, &request_1);
  NbcTracker::Wait wait;
  const void* requests[] = {&request_1};
  tracker.wait_begin(requests, 1, 10, wait);
  tracker.wait_end(wait, 30, true);  // MPI_Wait returned: the request completed
  EXPECT_EQ(tracker.pending(), 0u);
  EXPECT_EQ(totals(NbcKind::ibcast).calls, 1u);
  EXPECT_EQ(totals(NbcKind::ibcast).blocked_ticks, 20u);
  EXPECT_EQ(Switches::calls, (std::vector<bool>{true, false}));
}

TEST_F(NbcTrackerTest, FollowedCallsAreCountedWhenTheyBeginAndUnfollowedOnesAreNoted) {
  NbcTracker::Pending* p = tracker.begin(&comm_a, nullptr, -150, NbcKind::iallreduce, entry, 0);
  EXPECT_EQ(totals(NbcKind::iallreduce).followed, 1u) << "followed from its call on";
  EXPECT_EQ(totals(NbcKind::iallreduce).calls, 0u) << "completed: not yet";
  tracker.started(p, -150, &request_1);
  tracker.completed(p, 10);
  EXPECT_EQ(totals(NbcKind::iallreduce).calls, 1u);
  EXPECT_FALSE(totals(NbcKind::iallreduce).not_followed());
  tracker.note_unfollowed(entry, NbcKind::ibcast);
  EXPECT_TRUE(totals(NbcKind::ibcast).not_followed());
  EXPECT_EQ(entry->nbc()->sum().followed, 1u);
}

TEST(NbcTotals, AKindWithOnlyUnfollowedCallsSaysNotFollowedInBothDumpsWithTheSchedule) {
  CommunicatorRegistry registry;
  CommunicatorClasses* comm = registry.open("second", {0, 1}, 7);
  comm->nbc_totals()[NbcKind::iallreduce].unfollowed = true;  // its calls' turn came, none followed
  const NbcSchedule schedule{0, 0};
  EXPECT_EQ(format_job_nbc(2, registry, 1e-9, schedule),
            "nbc_overlap 2 " + comm->identity() + " iallreduce not followed\nnbc_sampling 2 0 0\n");
  EXPECT_EQ(format_prof_nbc(2, registry, 1e-9, schedule),
            "# NBC\t2\tsecond\tiallreduce\tnot followed\n# NBC sampling\t2\t0\t0\n");
  EXPECT_TRUE(std::isnan(comm->nbc()->byte_weighted_overlap()));
}

TEST(NbcTotals, SampledKindsKeepTheirFiguresAndTheScheduleFollowsTheLines) {
  CommunicatorRegistry registry;
  CommunicatorClasses* comm = registry.open("w", {0, 1});
  NbcCall call;
  call.bytes = call.bytes_before_wait = 8;
  call.messages = call.messages_before_wait = 1;
  NbcKindTotals& ibcast = comm->nbc_totals()[NbcKind::ibcast];
  ibcast.followed = 1;
  ibcast.add(call);
  EXPECT_EQ(
      format_job_nbc(0, registry, 1e-9, NbcSchedule{64, 128}),
      "nbc_overlap 0 " + comm->identity() + " ibcast 1 0 0.000000000 0.000000000 8 8 1.000000 0,0,0,0,0,0,0,0,0,1\n")
      << "every call followed: no schedule line";
  ibcast.unfollowed = true;  // later calls sampled
  EXPECT_EQ(format_job_nbc(0, registry, 1e-9, NbcSchedule{64, 128}),
            "nbc_overlap 0 " + comm->identity() +
                " ibcast 1 0 0.000000000 0.000000000 8 8 1.000000 0,0,0,0,0,0,0,0,0,1\nnbc_sampling 0 128 64\n");
}

TEST(NbcTotals, MergedEntriesAddFollowedCallsAndKeepTheUnfollowedMark) {
  NbcTotals a, b;
  a[NbcKind::ibarrier].followed = 2;
  b[NbcKind::ibarrier].followed = 3;
  b[NbcKind::ibarrier].unfollowed = true;
  a.merge(b);
  EXPECT_EQ(a[NbcKind::ibarrier].followed, 5u);
  EXPECT_TRUE(a[NbcKind::ibarrier].unfollowed);
  EXPECT_FALSE(a[NbcKind::ibarrier].not_followed());
}
