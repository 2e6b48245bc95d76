// The RMA wait-state rules on synthetic epochs (times in milliseconds for legibility).
#include <gtest/gtest.h>

#include <vector>

#include "analyses/wait_states/wait_patterns.h"

namespace mpimon::wait_states {
namespace {

constexpr Nanos ms(double v) { return static_cast<Nanos>(v * 1e6); }
Interval call(double enter, double exit) { return {ms(enter), ms(exit)}; }

// The waits of one pattern, summed; -1 culprit if none.
struct Found {
  Nanos duration = 0;
  int32_t culprit = -1;
  int count = 0;
};
Found find(const std::vector<Wait>& waits, Pattern p) {
  Found f;
  for (const Wait& w : waits) {
    if (w.pattern != p) continue;
    f.duration += w.duration;
    f.culprit = w.culprit;
    ++f.count;
  }
  return f;
}

AccessTarget target(int32_t rank, double post, bool known = true) {
  AccessTarget t;
  t.rank = rank;
  t.post_known = known;
  t.post_enter = ms(post);
  return t;
}

TEST(WaitPatterns, NamesRoundTripInPerformanceVariableOrder) {
  const char* expected[] = {"late_post",     "early_transfer", "early_wait",      "late_complete",
                            "wait_at_fence", "early_fence",    "lock_competition"};
  for (int i = 0; i < kPatternCount; ++i) {
    EXPECT_STREQ(pattern_name(static_cast<Pattern>(i)), expected[i]);
    EXPECT_EQ(pattern_of(expected[i]), static_cast<Pattern>(i));
  }
  EXPECT_FALSE(pattern_of("late"));
}

TEST(WaitPatterns, LatePostInsideStartIsWaitedFromStartEntryToTheLatestPost) {
  // Origin starts at 0, blocks until 300 (the target 2 posts at 290); target 1 posted early.
  std::vector<AccessTarget> targets{target(1, -5), target(2, 290)};
  std::vector<Wait> out;
  detect_access_waits(AccessEpoch{call(0, 300), call(310, 311), targets}, out);
  const Found lp = find(out, Pattern::late_post);
  EXPECT_EQ(lp.duration, ms(290));
  EXPECT_EQ(lp.culprit, 2);
  EXPECT_EQ(find(out, Pattern::early_transfer).count, 0);
}

TEST(WaitPatterns, LatePostInsideCompleteWhenStartDidNotBlock) {
  // osc pt2pt: start returns at once, complete waits for the post (at 400).
  std::vector<AccessTarget> targets{target(3, 400)};
  std::vector<Wait> out;
  detect_access_waits(AccessEpoch{call(0, 0.01), call(100, 401), targets}, out);
  EXPECT_EQ(find(out, Pattern::late_post).duration, ms(300));
  EXPECT_EQ(find(out, Pattern::late_post).culprit, 3);
}

TEST(WaitPatterns, NoLatePostWhenThePostCameBeforeTheCalls) {
  std::vector<AccessTarget> targets{target(1, -10)};
  std::vector<Wait> out;
  detect_access_waits(AccessEpoch{call(0, 0.1), call(5, 5.1), targets}, out);
  EXPECT_TRUE(out.empty());
}

TEST(WaitPatterns, UnknownPostTimesAreIgnored) {
  std::vector<AccessTarget> targets{target(1, 100, false)};
  std::vector<Wait> out;
  detect_access_waits(AccessEpoch{call(0, 200), call(210, 211), targets}, out);
  EXPECT_TRUE(out.empty());
}

TEST(WaitPatterns, EarlyTransferInsideTheFirstOperationToTheLateTarget) {
  AccessTarget t = target(1, 250);
  t.has_op = true;
  t.first_op = t.longest_op = call(10, 251);  // a long put that waited for the post
  std::vector<AccessTarget> targets{t};
  std::vector<Wait> out;
  detect_access_waits(AccessEpoch{call(0, 1), call(260, 261), targets}, out);
  EXPECT_EQ(find(out, Pattern::early_transfer).duration, ms(240));
  EXPECT_EQ(find(out, Pattern::early_transfer).culprit, 1);
  EXPECT_EQ(find(out, Pattern::late_post).count, 0);  // the post fell in neither start nor complete
}

TEST(WaitPatterns, EarlyTransferInTheLongestOperationWhenTheFirstDidNotBlock) {
  AccessTarget t = target(1, 150);
  t.has_op = true;
  t.first_op = call(10, 10.1);
  t.longest_op = call(20, 151);
  std::vector<AccessTarget> targets{t};
  std::vector<Wait> out;
  detect_access_waits(AccessEpoch{call(0, 1), call(200, 201), targets}, out);
  EXPECT_EQ(find(out, Pattern::early_transfer).duration, ms(130));
}

ExposureOrigin origin(int32_t rank, double complete, double last_op) {
  ExposureOrigin o;
  o.rank = rank;
  o.known = true;
  o.complete_enter = ms(complete);
  o.last_op_exit = ms(last_op);
  return o;
}

TEST(WaitPatterns, EarlyWaitUntilTheLatestCompleteWithoutLateComplete) {
  // The target waits from 0; origin 2 started late, put at 299, completed at 300.
  const Interval wait = call(0, 301);
  std::vector<ExposureOrigin> origins{origin(1, 2, 1), origin(2, 300, 299.9)};
  std::vector<Wait> out;
  detect_exposure_waits(ExposureEpoch{ClosingCalls{std::span(&wait, 1), 0}, origins}, out);
  EXPECT_EQ(find(out, Pattern::early_wait).duration, ms(300));
  EXPECT_EQ(find(out, Pattern::early_wait).culprit, 2);
  EXPECT_EQ(find(out, Pattern::late_complete).duration, ms(0.1));
}

TEST(WaitPatterns, LateCompleteIsThePartAfterTheLastOperation) {
  // Origin 3 put at 5, then computed until its complete at 400.
  const Interval wait = call(10, 401);
  std::vector<ExposureOrigin> origins{origin(3, 400, 5)};
  std::vector<Wait> out;
  detect_exposure_waits(ExposureEpoch{ClosingCalls{std::span(&wait, 1), 0}, origins}, out);
  EXPECT_EQ(find(out, Pattern::early_wait).duration, ms(390));
  EXPECT_EQ(find(out, Pattern::late_complete).duration, ms(390));  // all of it lies after the put
  EXPECT_EQ(find(out, Pattern::late_complete).culprit, 3);
}

TEST(WaitPatterns, NoEarlyWaitWhenTheOriginsCompletedBeforeTheWait) {
  const Interval wait = call(100, 100.2);
  std::vector<ExposureOrigin> origins{origin(1, 50, 40)};
  std::vector<Wait> out;
  detect_exposure_waits(ExposureEpoch{ClosingCalls{std::span(&wait, 1), 0}, origins}, out);
  EXPECT_TRUE(out.empty());
}

TEST(WaitPatterns, TestLoopsCountOnlyTheTimeInsideTheCallsBeforeTheLatestComplete) {
  // Ten 1-ms MPI_Win_test calls every 10 ms from 0; the origin completed at 55. Older
  // calls: 3 ms more, known to precede it.
  std::vector<Interval> calls;
  for (int i = 0; i < 10; ++i) calls.push_back(call(10 * i, 10 * i + 1));
  std::vector<ExposureOrigin> origins{origin(1, 55, 50.5)};  // its last put ended at 50.5
  std::vector<Wait> out;
  detect_exposure_waits(ExposureEpoch{ClosingCalls{calls, ms(3)}, origins}, out);
  EXPECT_EQ(find(out, Pattern::early_wait).duration, ms(3 + 6));   // the older calls, then those at 0..50
  EXPECT_EQ(find(out, Pattern::late_complete).duration, ms(0.5));  // the second half of the call at 50..51
}

TEST(WaitPatterns, WaitAtFenceFromOurEntryToTheLastEntry) {
  FenceEpoch e;
  e.mine = call(0, 401);
  e.latest_enter = ms(400);
  e.latest_rank = 3;
  e.earliest_exit = ms(400.5);
  std::vector<Wait> out;
  detect_fence_waits(e, out);
  EXPECT_EQ(find(out, Pattern::wait_at_fence).duration, ms(400));
  EXPECT_EQ(find(out, Pattern::wait_at_fence).culprit, 3);
  EXPECT_EQ(find(out, Pattern::early_fence).count, 0);
}

TEST(WaitPatterns, NoWaitAtFenceWhenTheFenceDidNotSynchronise) {
  FenceEpoch e;
  e.mine = call(0, 0.1);
  e.latest_enter = ms(400);  // someone entered after we (and others) had left
  e.latest_rank = 2;
  e.earliest_exit = ms(0.1);
  std::vector<Wait> out;
  detect_fence_waits(e, out);
  EXPECT_TRUE(out.empty());
}

TEST(WaitPatterns, EarlyFenceIsPartOfWaitAtFenceEvenWhenTheFenceDidNotSynchronise) {
  FenceEpoch e;
  e.mine = call(0, 300);
  e.latest_enter = ms(350);  // not synchronising
  e.latest_rank = 1;
  e.earliest_exit = ms(300);
  e.remote_ops = true;
  e.last_remote_op_exit = ms(250);
  e.last_op_origin = 2;
  std::vector<Wait> out;
  detect_fence_waits(e, out);
  EXPECT_EQ(find(out, Pattern::early_fence).duration, ms(250));
  EXPECT_EQ(find(out, Pattern::early_fence).culprit, 2);
  EXPECT_EQ(find(out, Pattern::wait_at_fence).duration, ms(250));
  EXPECT_EQ(find(out, Pattern::wait_at_fence).culprit, 2);
}

TEST(WaitPatterns, TheLastToEnterAFenceDoesNotWait) {
  FenceEpoch e;
  e.mine = call(400, 401);
  e.latest_enter = ms(400);
  e.latest_rank = 0;
  e.earliest_exit = ms(400.5);
  std::vector<Wait> out;
  detect_fence_waits(e, out);
  EXPECT_TRUE(out.empty());
}

TEST(WaitPatterns, LockCompetitionInTheCallThatBlocked) {
  // Eager lock (osc rdma): our MPI_Win_lock from 0 to 301; rank 1 released at 300.
  const std::vector<Interval> candidates{call(0, 301), call(302, 302.1)};
  const std::vector<LockRelease> releases{{1, ms(300)}, {3, ms(-50)}, {0, ms(350)}};
  std::vector<Wait> out;
  detect_lock_waits(LockEpoch{0, candidates, releases}, out);
  EXPECT_EQ(find(out, Pattern::lock_competition).duration, ms(300));
  EXPECT_EQ(find(out, Pattern::lock_competition).culprit, 1);
}

TEST(WaitPatterns, LockCompetitionInUnlockForLazyLocks) {
  // osc pt2pt: lock returns at once, the lock is granted while we wait in unlock.
  const std::vector<Interval> candidates{call(0, 0.01), call(0.02, 0.03), call(1, 251)};
  const std::vector<LockRelease> releases{{2, ms(250)}};
  std::vector<Wait> out;
  detect_lock_waits(LockEpoch{0, candidates, releases}, out);
  EXPECT_EQ(find(out, Pattern::lock_competition).duration, ms(249));
  EXPECT_EQ(find(out, Pattern::lock_competition).culprit, 2);
}

TEST(WaitPatterns, OwnReleasesAndReleasesOutsideTheCallsAreNoCompetition) {
  const std::vector<Interval> candidates{call(10, 11), call(20, 21)};
  const std::vector<LockRelease> releases{{0, ms(10.5)}, {1, ms(15)}, {1, ms(30)}};
  std::vector<Wait> out;
  detect_lock_waits(LockEpoch{0, candidates, releases}, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace mpimon::wait_states
