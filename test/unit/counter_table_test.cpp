// CounterTable: the open-addressing map from a 32-bit key to a stable Counters block.
// Key 0 is reserved (it marks an empty slot), so every key used here is >= 1.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/engine.h"

namespace mpimon {
namespace {

constexpr uint32_t kManyKeys = 10000;

// Keys shaped like the engine's (peer << 3 | category), spread over a large world.
uint32_t engine_like_key(uint32_t i) {
  return Engine::key(static_cast<int32_t>(i * 37 % (1u << 28)), static_cast<Category>(i % kCategoryCount));
}

TEST(CounterTable, FindInEmptyTableReturnsNullptr) {
  CounterTable table;
  EXPECT_EQ(table.find(1), nullptr);
  EXPECT_EQ(table.find(12345), nullptr);
  EXPECT_EQ(table.size(), 0u);
}

TEST(CounterTable, FindOfAbsentKeyReturnsNullptr) {
  CounterTable table;
  for (uint32_t key = 2; key < 100; key += 2) table.find_or_insert(key);
  for (uint32_t key = 1; key < 100; key += 2) EXPECT_EQ(table.find(key), nullptr) << "key " << key;
  EXPECT_EQ(table.find(100), nullptr);
  EXPECT_EQ(table.find(0xFFFFFFF0u), nullptr);
}

TEST(CounterTable, FindDoesNotInsert) {
  CounterTable table;
  (void)table.find(7);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.find(7), nullptr);
}

TEST(CounterTable, NewBlockIsZeroed) {
  CounterTable table;
  const Counters& c = table.find_or_insert(3);
  EXPECT_EQ(c.messages, 0u);
  EXPECT_EQ(c.bytes, 0u);
  for (int b = 0; b < kHistogramBuckets; ++b) EXPECT_EQ(c.histogram[b], 0u) << "bucket " << b;
}

TEST(CounterTable, SameKeyGivesTheSameBlock) {
  CounterTable table;
  Counters& first = table.find_or_insert(42);
  first.messages = 5;
  Counters& again = table.find_or_insert(42);
  EXPECT_EQ(&again, &first);
  EXPECT_EQ(table.find(42), &first);
  EXPECT_EQ(table.size(), 1u);
}

TEST(CounterTable, SmallestAndLargestKeysAreOrdinaryKeys) {
  CounterTable table;
  table.find_or_insert(1).messages = 9;
  table.find_or_insert(0xFFFFFFFFu).messages = 10;
  ASSERT_NE(table.find(1), nullptr);
  ASSERT_NE(table.find(0xFFFFFFFFu), nullptr);
  EXPECT_EQ(table.find(1)->messages, 9u);
  EXPECT_EQ(table.find(0xFFFFFFFFu)->messages, 10u);
}

TEST(CounterTable, TenThousandSequentialKeysAreAllFoundAfterGrowth) {
  CounterTable table;
  for (uint32_t key = 1; key <= kManyKeys; ++key) {
    Counters& c = table.find_or_insert(key);
    c.messages = key + 1;
    c.bytes = uint64_t{key} * 3;
  }
  EXPECT_EQ(table.size(), size_t{kManyKeys});
  for (uint32_t key = 1; key <= kManyKeys; ++key) {
    const Counters* c = table.find(key);
    ASSERT_NE(c, nullptr) << "key " << key;
    EXPECT_EQ(c->messages, key + 1) << "key " << key;
    EXPECT_EQ(c->bytes, uint64_t{key} * 3) << "key " << key;
  }
  for (uint32_t key = kManyKeys + 1; key <= 2 * kManyKeys; ++key) EXPECT_EQ(table.find(key), nullptr) << "key " << key;
}

TEST(CounterTable, TenThousandScatteredKeysAreAllFoundAfterGrowth) {
  CounterTable table;
  for (uint32_t i = 0; i < kManyKeys; ++i) table.find_or_insert(engine_like_key(i)).messages = i * 2 + 1;
  EXPECT_EQ(table.size(), size_t{kManyKeys});
  for (uint32_t i = 0; i < kManyKeys; ++i) {
    const Counters* c = table.find(engine_like_key(i));
    ASSERT_NE(c, nullptr) << "key " << engine_like_key(i);
    EXPECT_EQ(c->messages, i * 2 + 1) << "key " << engine_like_key(i);
  }
}

TEST(CounterTable, CountsAccumulatedAcrossGrowthAreKept) {
  CounterTable table;
  // Keep incrementing early keys while later inserts grow the table.
  for (uint32_t key = 1; key <= kManyKeys; ++key) {
    ++table.find_or_insert(key).messages;
    ++table.find_or_insert((key + 1) / 2).messages;
  }
  for (uint32_t key = 1; key <= kManyKeys; ++key) {
    const Counters* c = table.find(key);
    ASSERT_NE(c, nullptr) << "key " << key;
    // key k is hit once as itself, and as (j + 1) / 2 by j = 2k - 1 and j = 2k (when in range).
    const uint64_t expected = 1 + (2 * key - 1 <= kManyKeys ? 1 : 0) + (2 * key <= kManyKeys ? 1 : 0);
    EXPECT_EQ(c->messages, expected) << "key " << key;
  }
}

TEST(CounterTable, BlocksDoNotMoveWhenTheTableGrows) {
  CounterTable table;
  std::vector<const Counters*> first_addresses;
  for (uint32_t key = 1; key <= 8; ++key) first_addresses.push_back(&table.find_or_insert(key));
  for (uint32_t key = 9; key <= kManyKeys; ++key) table.find_or_insert(key);
  for (uint32_t key = 1; key <= 8; ++key) {
    EXPECT_EQ(table.find(key), first_addresses[key - 1]) << "key " << key;
    EXPECT_EQ(&table.find_or_insert(key), first_addresses[key - 1]) << "key " << key;
  }
}

TEST(CounterTable, ForEachVisitsEveryBlockOnceInInsertionOrder) {
  CounterTable table;
  const std::vector<uint32_t> keys = {90, 3, 77, 1, 1000000, 12};
  for (uint32_t key : keys) table.find_or_insert(key).bytes = key + 1;
  table.find_or_insert(3);  // not a second block
  std::vector<uint32_t> visited;
  table.for_each([&](uint32_t key, const Counters& c) {
    visited.push_back(key);
    EXPECT_EQ(c.bytes, key + 1u);
  });
  EXPECT_EQ(visited, keys);
}

// The PML's send path reads the table through a mirror (CounterTable::mirror_into) and
// finds a block in its home slot with home_counters: after the table grows, the mirror
// must hold the new table, or sends would fall to the slow path (or miss new peers).
TEST(CounterTable, MirrorFollowsGrowthAndHomeCountersFindsEveryBlockOrSaysElsewhere) {
  CounterTable table;
  std::atomic<CounterTable::TableHandle> mirror{nullptr};
  table.mirror_into(&mirror);
  ASSERT_NE(mirror.load(), nullptr);
  const CounterTable::TableHandle first = mirror.load();
  EXPECT_EQ(CounterTable::home_counters(first, engine_like_key(1)), nullptr);  // nothing yet
  std::vector<Counters*> blocks;
  for (uint32_t i = 0; i < kManyKeys; ++i) blocks.push_back(&table.find_or_insert(engine_like_key(i)));
  EXPECT_NE(mirror.load(), first) << "the table grew: the mirror must hold the new one";
  uint32_t at_home = 0;
  for (uint32_t i = 0; i < kManyKeys; ++i) {
    Counters* found = CounterTable::home_counters(mirror.load(), engine_like_key(i));
    if (found == nullptr) continue;  // collided: elsewhere, found by the slow path
    EXPECT_EQ(found, blocks[i]) << "key " << engine_like_key(i);
    ++at_home;
  }
  // Load factor at most 1/4: most keys sit in their home slot.
  EXPECT_GT(at_home, kManyKeys / 2);
}

TEST(CounterTable, MemoryGrowsWithTheNumberOfKeysNotTheirValue) {
  CounterTable small_keys, large_keys, more_keys;
  for (uint32_t i = 1; i <= 6; ++i) {
    small_keys.find_or_insert(i);
    large_keys.find_or_insert(0xFFF00000u + i * 4096);
  }
  for (uint32_t i = 1; i <= 600; ++i) more_keys.find_or_insert(i);
  EXPECT_EQ(small_keys.memory_bytes(), large_keys.memory_bytes());
  EXPECT_GT(more_keys.memory_bytes(), small_keys.memory_bytes() + 594 * sizeof(Counters));
}

}  // namespace
}  // namespace mpimon
