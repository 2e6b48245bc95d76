// Which nonblocking collectives are followed (analyses/nbc_schedule.h): the first calls of
// each communicator exactly, then the sampling; a countdown per communicator and kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyses/nbc_schedule.h"

using namespace mpimon;

namespace {

// Runs `calls` calls of one kind on one communicator as the COLL adapter does (a call
// decides when its countdown reaches zero): which were followed, and whether a decision
// said later calls may go unfollowed.
struct Calls {
  std::vector<bool> followed;
  bool unfollowed_after = false;
};
Calls run_calls(const NbcSchedule& schedule, int calls, uint32_t& exact_left, uint64_t& countdown) {
  Calls r;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto draw = [&] {
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
  };
  for (int i = 0; i < calls; ++i) {
    bool follow = false;
    if (--countdown == 0) {
      const NbcDecision d = decide(schedule, exact_left, countdown, draw);
      follow = d.follow;
      r.unfollowed_after = r.unfollowed_after || d.unfollowed_after;
    }
    r.followed.push_back(follow);
  }
  return r;
}

int count(const std::vector<bool>& v, size_t from = 0, size_t to = SIZE_MAX) {
  int n = 0;
  for (size_t i = from; i < v.size() && i < to; ++i) n += v[i];
  return n;
}

}  // namespace

TEST(NbcSchedule, TheFirstExactCallsOfACommunicatorAreAllFollowedThenOneInN) {
  const NbcSchedule schedule{64, 128};
  uint32_t exact_left = schedule.exact_calls;
  uint64_t countdown = 1;
  const Calls r = run_calls(schedule, 64 + 128 * 1000, exact_left, countdown);
  EXPECT_EQ(count(r.followed, 0, 64), 64) << "every one of the first 64";
  EXPECT_TRUE(r.followed[64]) << "the first decision after them follows its call";
  const int sampled = count(r.followed, 64);
  EXPECT_GT(sampled, 900) << "about one in 128 of 128 000";
  EXPECT_LT(sampled, 1100);
  EXPECT_TRUE(r.unfollowed_after);
  EXPECT_EQ(exact_left, 0u);
}

TEST(NbcSchedule, AFewCallsAreAllFollowedAndSaidExact) {
  const NbcSchedule schedule{64, 128};
  uint32_t exact_left = 64;
  uint64_t countdown = 1;
  const Calls r = run_calls(schedule, 2, exact_left, countdown);
  EXPECT_EQ(r.followed, (std::vector<bool>{true, true}));
  EXPECT_FALSE(r.unfollowed_after) << "no call may have been left out";
  EXPECT_EQ(exact_left, 62u);
}

TEST(NbcSchedule, TheExactCallsAreSharedByTheKindsOfACommunicator) {
  const NbcSchedule schedule{3, 0};
  uint32_t exact_left = 3;  // one communicator
  uint64_t iallreduce = 1, ibcast = 1;
  EXPECT_EQ(count(run_calls(schedule, 2, exact_left, iallreduce).followed), 2);
  const Calls second = run_calls(schedule, 3, exact_left, ibcast);
  EXPECT_EQ(second.followed, (std::vector<bool>{true, false, false}));
  EXPECT_TRUE(second.unfollowed_after);
}

TEST(NbcSchedule, ZeroExactCallsAndZeroSamplingFollowNothingAndSaySo) {
  const NbcSchedule schedule{0, 0};
  uint32_t exact_left = 0;
  uint64_t countdown = 1;
  const Calls r = run_calls(schedule, 1000, exact_left, countdown);
  EXPECT_EQ(count(r.followed), 0);
  EXPECT_TRUE(r.unfollowed_after);
  EXPECT_EQ(countdown, UINT64_MAX - 999) << "decided once, never again";
}

TEST(NbcSchedule, SamplingOneFollowsEveryCallAfterTheExactOnes) {
  const NbcSchedule schedule{2, 1};
  uint32_t exact_left = 2;
  uint64_t countdown = 1;
  const Calls r = run_calls(schedule, 500, exact_left, countdown);
  EXPECT_EQ(count(r.followed), 500);
  EXPECT_FALSE(r.unfollowed_after);
}

TEST(NbcSchedule, ZeroExactCallsSampleFromTheFirstCall) {
  const NbcSchedule schedule{0, 4};
  uint32_t exact_left = 0;
  uint64_t countdown = 1;
  const Calls r = run_calls(schedule, 40000, exact_left, countdown);
  EXPECT_TRUE(r.followed[0]) << "a kind's first decision follows its call";
  EXPECT_GT(count(r.followed), 9000);
  EXPECT_LT(count(r.followed), 11000);
  // The gaps are drawn from 1 to 2N - 1 = 7: never more than 6 unfollowed in a row.
  int run_length = 0, longest = 0;
  for (bool f : r.followed) longest = std::max(longest, run_length = f ? 0 : run_length + 1);
  EXPECT_LE(longest, 6);
  EXPECT_GE(longest, 5);
}
