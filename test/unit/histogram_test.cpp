// histogram_bucket(): bucket 0 holds 0-byte messages, bucket k (1..64) sizes in
// [2^(k-1), 2^k), as Open MPI's monitoring component counts them; bucket 65 is never used.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "engine/engine.h"

namespace mpimon {
namespace {

TEST(Histogram, HasSixtySixBucketsAsInOpenMpi) { EXPECT_EQ(kHistogramBuckets, 66); }

TEST(Histogram, ZeroBytesGoToBucketZero) { EXPECT_EQ(histogram_bucket(0), 0u); }

TEST(Histogram, OneByteGoesToBucketOne) { EXPECT_EQ(histogram_bucket(1), 1u); }

TEST(Histogram, TwoAndThreeBytesShareBucketTwo) {
  EXPECT_EQ(histogram_bucket(2), 2u);
  EXPECT_EQ(histogram_bucket(3), 2u);
}

TEST(Histogram, FourBytesStartBucketThree) { EXPECT_EQ(histogram_bucket(4), 3u); }

TEST(Histogram, KibibyteIsTheFirstSizeOfBucketEleven) {
  EXPECT_EQ(histogram_bucket(1023), 10u);
  EXPECT_EQ(histogram_bucket(1024), 11u);
}

TEST(Histogram, TwoToTheSixtyThirdGoesToBucketSixtyFour) { EXPECT_EQ(histogram_bucket(uint64_t{1} << 63), 64u); }

TEST(Histogram, LargestSizeGoesToBucketSixtyFour) {
  EXPECT_EQ(histogram_bucket(std::numeric_limits<uint64_t>::max()), 64u);
  EXPECT_EQ(histogram_bucket(SIZE_MAX), 64u);
}

TEST(Histogram, EveryPowerOfTwoStartsItsOwnBucket) {
  for (unsigned k = 1; k <= 64; ++k) {
    const uint64_t low = uint64_t{1} << (k - 1);
    EXPECT_EQ(histogram_bucket(low), k) << "size 2^" << (k - 1);
    EXPECT_EQ(histogram_bucket(low - 1), k - 1) << "size 2^" << (k - 1) << " - 1";
  }
}

TEST(Histogram, BucketSixtyFiveIsNeverReached) {
  unsigned highest = 0;
  for (unsigned shift = 0; shift < 64; ++shift) {
    const uint64_t p = uint64_t{1} << shift;
    for (uint64_t size : {p - 1, p, p + 1, p | (p - 1)}) highest = std::max(highest, histogram_bucket(size));
  }
  highest = std::max(highest, histogram_bucket(std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(highest, 64u);
  EXPECT_LT(highest, static_cast<unsigned>(kHistogramBuckets - 1));
}

TEST(Histogram, EngineRecordCountsEachMessageInItsSizeBucket) {
  Engine engine;
  for (uint64_t size : {0, 1, 2, 3, 4, 1023, 1024, 1024}) engine.record(7, Category::external, size);

  uint64_t expected[kHistogramBuckets] = {};
  expected[0] = 1;   // 0
  expected[1] = 1;   // 1
  expected[2] = 2;   // 2, 3
  expected[3] = 1;   // 4
  expected[10] = 1;  // 1023
  expected[11] = 2;  // 1024 twice
  const Counters c = engine.read(7, Category::external);
  for (int b = 0; b < kHistogramBuckets; ++b) EXPECT_EQ(c.histogram[b], expected[b]) << "bucket " << b;
  EXPECT_EQ(c.messages, 8u);
  EXPECT_EQ(c.bytes, 0u + 1 + 2 + 3 + 4 + 1023 + 1024 + 1024);
}

TEST(Histogram, EngineRecordOfLargestSizeUsesBucketSixtyFourNotSixtyFive) {
  Engine engine;
  engine.record(0, Category::internal, SIZE_MAX);
  engine.record(0, Category::internal, uint64_t{1} << 63);
  const Counters c = engine.read(0, Category::internal);
  EXPECT_EQ(c.histogram[64], 2u);
  EXPECT_EQ(c.histogram[65], 0u);
  EXPECT_EQ(c.messages, 2u);
}

TEST(Histogram, EngineHistogramOfOneCategoryLeavesOthersEmpty) {
  Engine engine;
  engine.record(3, Category::external, 100);
  const Counters internal = engine.read(3, Category::internal);
  for (int b = 0; b < kHistogramBuckets; ++b) EXPECT_EQ(internal.histogram[b], 0u) << "bucket " << b;
  EXPECT_EQ(engine.read(3, Category::external).histogram[7], 1u);  // 100 in [64, 128)
}

}  // namespace
}  // namespace mpimon

TEST(Histogram, MessageBucketAgreesBelowTwoToThe63) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{8}, uint64_t{1023},
                         uint64_t{1024}, (uint64_t{1} << 40) + 5, (uint64_t{1} << 62), (uint64_t{1} << 63) - 1})
    EXPECT_EQ(mpimon::message_bucket(bytes), mpimon::histogram_bucket(bytes)) << bytes;
  for (int k = 0; k < 63; ++k) {
    EXPECT_EQ(mpimon::message_bucket(uint64_t{1} << k), mpimon::histogram_bucket(uint64_t{1} << k)) << k;
    EXPECT_EQ(mpimon::message_bucket((uint64_t{1} << k) - 1), mpimon::histogram_bucket((uint64_t{1} << k) - 1)) << k;
  }
}
