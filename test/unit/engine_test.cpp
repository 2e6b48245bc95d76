// Engine: per (peer, category) counters, memory bound, threaded recording, snapshots and
// phase differences, other-job totals.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <latch>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace mpimon {
namespace {

using PairKey = std::pair<int32_t, Category>;
using Expected = std::map<PairKey, Counters>;  // ordered by (peer, category) like a Snapshot

void add(Expected& expected, int32_t peer, Category category, uint64_t bytes) {
  Counters& c = expected[{peer, category}];
  ++c.messages;
  c.bytes += bytes;
  ++c.histogram[histogram_bucket(bytes)];
}

std::string describe(const Counters& c) {
  std::ostringstream out;
  out << c.messages << " msgs, " << c.bytes << " bytes, histogram";
  for (int b = 0; b < kHistogramBuckets; ++b) out << (b ? ',' : ' ') << c.histogram[b];
  return out.str();
}

::testing::AssertionResult same_counters(const Counters& actual, const Counters& expected) {
  bool same = actual.messages == expected.messages && actual.bytes == expected.bytes;
  for (int b = 0; b < kHistogramBuckets; ++b) same = same && actual.histogram[b] == expected.histogram[b];
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "actual   " << describe(actual) << "\nexpected " << describe(expected);
}

// The snapshot holds exactly the expected pairs, in (peer, category) order, with exactly
// the expected counters.
::testing::AssertionResult snapshot_is(const Snapshot& snapshot, const Expected& expected) {
  if (snapshot.size() != expected.size())
    return ::testing::AssertionFailure() << snapshot.size() << " records, expected " << expected.size();
  size_t i = 0;
  for (const auto& [pair, counters] : expected) {
    const Record& r = snapshot[i++];
    if (r.peer != pair.first || r.category != pair.second)
      return ::testing::AssertionFailure()
             << "record " << i - 1 << " is (" << r.peer << ", " << category_name(r.category) << "), expected ("
             << pair.first << ", " << category_name(pair.second) << ")";
    if (auto same = same_counters(r.counters, counters); !same)
      return same << "\nfor (" << r.peer << ", " << category_name(r.category) << ")";
  }
  return ::testing::AssertionSuccess();
}

constexpr Category kAllCategories[] = {Category::external, Category::internal, Category::coll,
                                       Category::osc_sent, Category::osc_recv, Category::io_shuffle};

// ---------------------------------------------------------------------------------------
// Engine: recording and reading

TEST(Engine, ReadOfNeverUsedPairIsAllZeros) {
  Engine engine;
  engine.record(2, Category::external, 64);  // another pair exists
  EXPECT_TRUE(same_counters(engine.read(2, Category::internal), Counters{}));
  EXPECT_TRUE(same_counters(engine.read(3, Category::external), Counters{}));
  EXPECT_TRUE(same_counters(Engine{}.read(0, Category::external), Counters{}));
}

TEST(Engine, MessagesAndBytesOfNeverUsedPairAreZero) {
  Engine engine;
  engine.record(2, Category::coll, 64);
  EXPECT_EQ(engine.messages(2, Category::external), 0u);
  EXPECT_EQ(engine.bytes(2, Category::external), 0u);
  EXPECT_EQ(engine.messages(4095, Category::coll), 0u);
  EXPECT_EQ(engine.bytes(4095, Category::coll), 0u);
}

TEST(Engine, RecordAccumulatesMessagesAndBytes) {
  Engine engine;
  engine.record(5, Category::external, 10);
  engine.record(5, Category::external, 0);
  engine.record(5, Category::external, 1000);
  EXPECT_EQ(engine.messages(5, Category::external), 3u);
  EXPECT_EQ(engine.bytes(5, Category::external), 1010u);
  const Counters c = engine.read(5, Category::external);
  EXPECT_EQ(c.messages, 3u);
  EXPECT_EQ(c.bytes, 1010u);
}

TEST(Engine, EachCategoryOfAPeerIsCountedSeparately) {
  Engine engine;
  uint64_t bytes = 1;
  for (Category category : kAllCategories) {
    for (uint64_t n = 0; n < bytes; ++n) engine.record(9, category, bytes);  // category i: i+1 msgs
    ++bytes;
  }
  bytes = 1;
  for (Category category : kAllCategories) {
    EXPECT_EQ(engine.messages(9, category), bytes) << category_name(category);
    EXPECT_EQ(engine.bytes(9, category), bytes * bytes) << category_name(category);
    ++bytes;
  }
}

TEST(Engine, PeersDifferingOnlyInHighRankBitsAreNotMixedUp) {
  Engine engine;
  engine.record(1, Category::external, 1);
  engine.record(1 + 1024, Category::external, 2);
  engine.record(1 + 4096, Category::external, 4);
  engine.record(1 << 20, Category::osc_recv, 8);
  EXPECT_EQ(engine.bytes(1, Category::external), 1u);
  EXPECT_EQ(engine.bytes(1025, Category::external), 2u);
  EXPECT_EQ(engine.bytes(4097, Category::external), 4u);
  EXPECT_EQ(engine.bytes(1 << 20, Category::osc_recv), 8u);
  EXPECT_EQ(engine.bytes(0, Category::osc_recv), 0u);
}

TEST(Engine, KeysOfDifferentPairsDiffer) {
  EXPECT_NE(Engine::key(1, Category::external), Engine::key(0, Category::internal));
  EXPECT_NE(Engine::key(0, Category::osc_recv), Engine::key(1, Category::external));
  EXPECT_NE(Engine::key(4095, Category::coll), Engine::key(4095, Category::osc_sent));
  EXPECT_NE(Engine::key(4095, Category::coll), Engine::key(4094, Category::coll));
}

TEST(Engine, KeysAreValidCounterTableKeys) {
  // CounterTable reserves key 0 for empty slots.
  for (Category category : kAllCategories) EXPECT_NE(Engine::key(0, category), 0u) << category_name(category);
}

TEST(Engine, PeerZeroIsCountedInEveryCategory) {
  Engine engine;
  for (Category category : kAllCategories) engine.record(0, category, 5);
  for (Category category : kAllCategories) {
    EXPECT_EQ(engine.messages(0, category), 1u) << category_name(category);
    EXPECT_EQ(engine.bytes(0, category), 5u) << category_name(category);
  }
  const Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.size(), size_t{kCategoryCount});
  for (int i = 0; i < kCategoryCount; ++i) {
    EXPECT_EQ(snapshot[i].peer, 0);
    EXPECT_EQ(snapshot[i].category, kAllCategories[i]);
  }
}

TEST(Engine, RecordIsCountedIdenticallyWhenThreaded) {
  Engine plain, threaded;
  threaded.set_threaded(true);
  EXPECT_FALSE(plain.threaded());
  EXPECT_TRUE(threaded.threaded());
  for (uint64_t size : {0, 1, 17, 4096, 1 << 20}) {
    plain.record(3, Category::internal, size);
    threaded.record(3, Category::internal, size);
  }
  EXPECT_TRUE(same_counters(threaded.read(3, Category::internal), plain.read(3, Category::internal)));
}

TEST(Engine, CategoryNamesAreStable) {
  EXPECT_STREQ(category_name(Category::external), "external");
  EXPECT_STREQ(category_name(Category::internal), "internal");
  EXPECT_STREQ(category_name(Category::coll), "coll");
  EXPECT_STREQ(category_name(Category::osc_sent), "osc_sent");
  EXPECT_STREQ(category_name(Category::osc_recv), "osc_recv");
}

TEST(Engine, LoadCountersCopiesEveryField) {
  Counters live;
  live.messages = 3;
  live.bytes = 77;
  for (int b = 0; b < kHistogramBuckets; ++b) live.histogram[b] = static_cast<uint64_t>(b) * 5 + 1;
  EXPECT_TRUE(same_counters(load_counters(live), live));
}

// ---------------------------------------------------------------------------------------
// Engine: other jobs (spawned / connected processes)

TEST(EngineOtherJob, TotalsMessagesBytesAndHistogramPerCategory) {
  Engine engine;
  engine.record_other_job(Category::external, 10);
  engine.record_other_job(Category::external, 0);
  engine.record_other_job(Category::external, 1024);
  engine.record_other_job(Category::coll, 5);

  Counters external;
  external.messages = 3;
  external.bytes = 1034;
  external.histogram[0] = 1;
  external.histogram[4] = 1;   // 10 in [8, 16)
  external.histogram[11] = 1;  // 1024
  EXPECT_TRUE(same_counters(engine.other_job_totals(Category::external), external));

  Counters coll;
  coll.messages = 1;
  coll.bytes = 5;
  coll.histogram[3] = 1;  // 5 in [4, 8)
  EXPECT_TRUE(same_counters(engine.other_job_totals(Category::coll), coll));
}

TEST(EngineOtherJob, UnusedCategoriesStayZero) {
  Engine engine;
  engine.record_other_job(Category::osc_sent, 99);
  EXPECT_TRUE(same_counters(engine.other_job_totals(Category::external), Counters{}));
  EXPECT_TRUE(same_counters(engine.other_job_totals(Category::internal), Counters{}));
  EXPECT_TRUE(same_counters(engine.other_job_totals(Category::coll), Counters{}));
  EXPECT_TRUE(same_counters(engine.other_job_totals(Category::osc_recv), Counters{}));
  EXPECT_EQ(engine.other_job_totals(Category::osc_sent).messages, 1u);
}

TEST(EngineOtherJob, IsNotAttributedToAnyWorldRank) {
  Engine engine;
  for (Category category : kAllCategories) engine.record_other_job(category, 8);
  EXPECT_TRUE(engine.snapshot().empty());
  for (Category category : kAllCategories) EXPECT_EQ(engine.messages(0, category), 0u);
}

TEST(EngineOtherJob, DoesNotChangeWorldRankCounters) {
  Engine engine;
  engine.record(0, Category::external, 16);
  engine.record_other_job(Category::external, 1000);
  EXPECT_EQ(engine.bytes(0, Category::external), 16u);
  EXPECT_EQ(engine.messages(0, Category::external), 1u);
  EXPECT_EQ(engine.other_job_totals(Category::external).bytes, 1000u);
}

// ---------------------------------------------------------------------------------------
// Memory: grows with the pairs used, never with the job size or the ranks' magnitude

TEST(EngineMemory, SixPeersInA4096RankWorldStayUnder64KiB) {
  constexpr int32_t kWorldSize = 4096;
  const int32_t peers[] = {0, 1, 1000, 2047, 3500, kWorldSize - 1};
  Engine engine;
  for (int round = 0; round < 2000; ++round)
    for (int32_t peer : peers) {
      engine.record(peer, Category::external, static_cast<uint64_t>(round) * 37);
      engine.record(peer, Category::internal, static_cast<uint64_t>(round % 64));
    }
  EXPECT_LT(engine.memory_bytes(), size_t{64} * 1024);
  EXPECT_EQ(engine.snapshot().size(), 12u);
  EXPECT_EQ(engine.messages(kWorldSize - 1, Category::internal), 2000u);
}

TEST(EngineMemory, HighestRankPeerCostsTheSameAsRankOne) {
  Engine low, high;
  low.record(1, Category::external, 8);
  high.record(4095, Category::external, 8);
  EXPECT_EQ(high.memory_bytes(), low.memory_bytes());

  Engine huge;
  huge.record(1 << 28, Category::external, 8);  // a 268-million-rank world
  EXPECT_EQ(huge.memory_bytes(), low.memory_bytes());
}

TEST(EngineMemory, SixHighRankPeersCostTheSameAsSixLowRankPeers) {
  Engine low, high;
  for (int32_t i = 0; i < 6; ++i) {
    for (Category category : {Category::external, Category::internal}) {
      low.record(i + 1, category, 8);
      high.record(4095 - i * 600, category, 8);
    }
  }
  EXPECT_EQ(high.memory_bytes(), low.memory_bytes());
}

TEST(EngineMemory, DoesNotGrowWithTheNumberOfMessages) {
  Engine engine;
  engine.record(42, Category::external, 1);
  const size_t after_one = engine.memory_bytes();
  for (int i = 0; i < 100000; ++i) engine.record(42, Category::external, static_cast<uint64_t>(i));
  EXPECT_EQ(engine.memory_bytes(), after_one);
}

TEST(EngineMemory, GrowsWithTheNumberOfPeers) {
  Engine few, many;
  for (int32_t peer = 0; peer < 2; ++peer) few.record(peer, Category::external, 1);
  for (int32_t peer = 0; peer < 64; ++peer) many.record(peer, Category::external, 1);
  EXPECT_GT(many.memory_bytes(), few.memory_bytes());
  // At least one counter block per extra pair.
  EXPECT_GE(many.memory_bytes() - few.memory_bytes(), 62 * sizeof(Counters));
}

TEST(EngineMemory, ReadingUnusedPairsAllocatesNothing) {
  Engine engine;
  const size_t before = engine.memory_bytes();
  for (int32_t peer = 0; peer < 4096; ++peer) (void)engine.read(peer, Category::external);
  EXPECT_EQ(engine.memory_bytes(), before);
  EXPECT_TRUE(engine.snapshot().empty());
}

// ---------------------------------------------------------------------------------------
// Threads (MPI_THREAD_MULTIPLE)

constexpr int kThreads = 4;
constexpr int kMessagesPerThread = 100000;
constexpr int kSharedFirstPeers = 2048;  // every thread starts on the same fresh pairs

int32_t thread_peer(int t, int i) {
  if (i < 2 * kSharedFirstPeers) return i / 2;  // racing first touches, same order everywhere
  return static_cast<int32_t>((static_cast<uint32_t>(i) * 2654435761u + static_cast<uint32_t>(t)) % 3000);
}
Category thread_category(int t, int i) { return (i + t) % 2 == 0 ? Category::external : Category::internal; }
uint64_t thread_bytes(int t, int i) {
  return (static_cast<uint64_t>(i) * static_cast<uint64_t>(t + 1) * 7919) % (uint64_t{1} << (i % 40));
}

TEST(EngineThreads, FourThreadsRecordingToOverlappingPeersGiveExactTotals) {
  Engine engine;
  engine.set_threaded(true);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&engine, &start, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kMessagesPerThread; ++i)
        engine.record(thread_peer(t, i), thread_category(t, i), thread_bytes(t, i));
    });
  for (auto& thread : threads) thread.join();

  Expected expected;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kMessagesPerThread; ++i)
      add(expected, thread_peer(t, i), thread_category(t, i), thread_bytes(t, i));
  EXPECT_TRUE(snapshot_is(engine.snapshot(), expected));

  uint64_t messages = 0, histogram_sum = 0;
  for (const Record& r : engine.snapshot()) {
    messages += r.counters.messages;
    for (uint64_t n : r.counters.histogram) histogram_sum += n;
  }
  EXPECT_EQ(messages, uint64_t{kThreads} * kMessagesPerThread);
  EXPECT_EQ(histogram_sum, uint64_t{kThreads} * kMessagesPerThread);
}

TEST(EngineThreads, RacingFirstTouchesCreateOneBlockPerPair) {
  constexpr int kPairs = 5000;  // several table growths while the threads race
  Engine engine;
  engine.set_threaded(true);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&engine, &start] {
      start.arrive_and_wait();
      for (int i = 0; i < kPairs; ++i) engine.record(i / 2, i % 2 ? Category::internal : Category::external, 3);
    });
  for (auto& thread : threads) thread.join();

  const Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.size(), size_t{kPairs});
  for (const Record& r : snapshot) {
    EXPECT_EQ(r.counters.messages, uint64_t{kThreads}) << "peer " << r.peer;
    EXPECT_EQ(r.counters.bytes, uint64_t{3 * kThreads}) << "peer " << r.peer;
    EXPECT_EQ(r.counters.histogram[2], uint64_t{kThreads}) << "peer " << r.peer;
  }
}

TEST(EngineThreads, SnapshotsTakenWhileRecordingNeverGoBackwards) {
  Engine engine;
  engine.set_threaded(true);
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&engine, &finished, t] {
      for (int i = 0; i < kMessagesPerThread; ++i)
        engine.record(i % 100, Category::external, static_cast<uint64_t>(t + 1));
      ++finished;
    });
  auto total_messages = [&engine] {
    uint64_t total = 0;
    for (const Record& r : engine.snapshot()) total += r.counters.messages;
    return total;
  };
  uint64_t previous = 0;
  int went_backwards = 0;
  while (finished.load() < 2) {
    const uint64_t total = total_messages();
    if (total < previous) ++went_backwards;
    previous = total;
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(went_backwards, 0);
  EXPECT_EQ(total_messages(), 2u * kMessagesPerThread);
}

// ---------------------------------------------------------------------------------------
// Snapshots and phases

TEST(EngineSnapshot, FreshEngineHasEmptySnapshot) { EXPECT_TRUE(Engine{}.snapshot().empty()); }

TEST(EngineSnapshot, IsSortedByPeerThenCategory) {
  Engine engine;
  engine.record(5, Category::coll, 1);
  engine.record(1, Category::osc_recv, 1);
  engine.record(4095, Category::osc_sent, 1);
  engine.record(5, Category::external, 1);
  engine.record(0, Category::internal, 1);
  engine.record(1, Category::external, 1);
  engine.record(1, Category::coll, 1);
  const std::vector<PairKey> expected = {{0, Category::internal},   {1, Category::external}, {1, Category::coll},
                                         {1, Category::osc_recv},   {5, Category::external}, {5, Category::coll},
                                         {4095, Category::osc_sent}};
  std::vector<PairKey> actual;
  for (const Record& r : engine.snapshot()) actual.emplace_back(r.peer, r.category);
  EXPECT_EQ(actual, expected);
}

TEST(EngineSnapshot, HoldsOnlyPairsWithMessages) {
  Engine engine;
  engine.record(3, Category::external, 0);  // a 0-byte message is still a message
  for (int32_t peer = 0; peer < 50; ++peer) (void)engine.read(peer, Category::internal);
  const Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.size(), 1u);
  EXPECT_EQ(snapshot[0].peer, 3);
  EXPECT_EQ(snapshot[0].category, Category::external);
  EXPECT_EQ(snapshot[0].counters.messages, 1u);
  EXPECT_EQ(snapshot[0].counters.histogram[0], 1u);
  for (const Record& r : snapshot) EXPECT_NE(r.counters.messages, 0u);
}

TEST(EngineSnapshot, IsACopyUnaffectedByLaterRecording) {
  Engine engine;
  engine.record(2, Category::external, 10);
  const Snapshot before = engine.snapshot();
  engine.record(2, Category::external, 10);
  engine.record(3, Category::external, 10);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].counters.messages, 1u);
  EXPECT_EQ(before[0].counters.bytes, 10u);
}

TEST(EngineSnapshot, HoldsExactCountersOfEveryPair) {
  Engine engine;
  Expected expected;
  for (int i = 0; i < 1000; ++i) {
    const int32_t peer = (i * 37) % 300;
    const Category category = kAllCategories[i % kCategoryCount];
    const uint64_t bytes = static_cast<uint64_t>(i) * i;
    engine.record(peer, category, bytes);
    add(expected, peer, category, bytes);
  }
  EXPECT_TRUE(snapshot_is(engine.snapshot(), expected));
}

TEST(EngineSnapshot, ThreePhaseDifferencesSumToTheFinalTotals) {
  Engine engine;
  Expected phase_expected[3];
  Expected total_expected;
  Snapshot phase_end[3];
  const Snapshot start = engine.snapshot();
  for (int phase = 0; phase < 3; ++phase) {
    for (int i = 0; i < 500; ++i) {
      // Phases overlap on some pairs, each also has pairs of its own.
      const int32_t peer = (i % 7) + phase * 4;
      const Category category = kAllCategories[(i + phase) % kCategoryCount];
      const uint64_t bytes = static_cast<uint64_t>(i * (phase + 1));
      engine.record(peer, category, bytes);
      add(phase_expected[phase], peer, category, bytes);
      add(total_expected, peer, category, bytes);
    }
    phase_end[phase] = engine.snapshot();
  }
  const Snapshot d[3] = {snapshot_difference(phase_end[0], start), snapshot_difference(phase_end[1], phase_end[0]),
                         snapshot_difference(phase_end[2], phase_end[1])};
  for (int phase = 0; phase < 3; ++phase)
    EXPECT_TRUE(snapshot_is(d[phase], phase_expected[phase])) << "phase " << phase;

  Expected summed;
  for (const Snapshot& difference : d)
    for (const Record& r : difference) {
      Counters& c = summed[{r.peer, r.category}];
      c.messages += r.counters.messages;
      c.bytes += r.counters.bytes;
      for (int b = 0; b < kHistogramBuckets; ++b) c.histogram[b] += r.counters.histogram[b];
    }
  EXPECT_TRUE(snapshot_is(phase_end[2], summed));
  EXPECT_TRUE(snapshot_is(phase_end[2], total_expected));
}

TEST(EngineSnapshot, DifferenceDropsPairsWithoutNewMessages) {
  Engine engine;
  engine.record(1, Category::external, 100);
  engine.record(2, Category::external, 100);
  const Snapshot first = engine.snapshot();
  engine.record(2, Category::external, 50);
  const Snapshot d = snapshot_difference(engine.snapshot(), first);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].peer, 2);
  EXPECT_EQ(d[0].counters.messages, 1u);
  EXPECT_EQ(d[0].counters.bytes, 50u);
  EXPECT_EQ(d[0].counters.histogram[6], 1u);  // 50 in [32, 64)
  EXPECT_EQ(d[0].counters.histogram[7], 0u);  // the earlier 100-byte message is gone
}

TEST(EngineSnapshot, DifferenceOfASnapshotWithItselfIsEmpty) {
  Engine engine;
  for (int32_t peer = 0; peer < 20; ++peer) engine.record(peer, Category::coll, 4);
  const Snapshot s = engine.snapshot();
  EXPECT_TRUE(snapshot_difference(s, s).empty());
}

TEST(EngineSnapshot, DifferenceKeepsPairsFirstUsedInThePhaseWhole) {
  Engine engine;
  engine.record(10, Category::external, 1);
  const Snapshot first = engine.snapshot();
  engine.record(0, Category::osc_sent, 8);    // sorts before the existing pair
  engine.record(20, Category::osc_recv, 16);  // sorts after it
  const Snapshot d = snapshot_difference(engine.snapshot(), first);
  Expected expected;
  add(expected, 0, Category::osc_sent, 8);
  add(expected, 20, Category::osc_recv, 16);
  EXPECT_TRUE(snapshot_is(d, expected));
}

TEST(EngineSnapshot, DifferenceFromAnEmptySnapshotIsTheSnapshot) {
  Engine engine;
  Expected expected;
  for (int32_t peer : {4, 1, 3}) {
    engine.record(peer, Category::internal, 12);
    add(expected, peer, Category::internal, 12);
  }
  EXPECT_TRUE(snapshot_is(snapshot_difference(engine.snapshot(), Snapshot{}), expected));
}

}  // namespace
}  // namespace mpimon
