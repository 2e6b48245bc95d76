// Wait-state totals, dump lines and their reader; clock offsets; shadow-memory layout.
#include <gtest/gtest.h>

#include <set>

#include "analyses/wait_states/clock_offsets.h"
#include "analyses/wait_states/shadow_layout.h"
#include "analyses/wait_states/wait_totals.h"
#include "formats/job_format.h"
#include "readers/job_reader.h"
#include "readers/wait_annotations_reader.h"

namespace mpimon::wait_states {
namespace {

std::string live_name(uint64_t id) { return "live " + std::to_string(id); }

TEST(WaitTotals, AddsPerPatternAndPerCulprit) {
  WindowWaits w;
  w.add(Pattern::late_post, 300, 2);
  w.add(Pattern::late_post, 100, 3);
  w.add(Pattern::early_wait, 50, 2);
  EXPECT_EQ(w.patterns[0].count, 2u);
  EXPECT_EQ(w.patterns[0].time, 400);
  EXPECT_EQ(w.culprits.at(2)[0].time, 300);
  EXPECT_EQ(w.culprits.at(3)[0].count, 1u);
  EXPECT_EQ(w.culprits.at(2)[2].time, 50);
}

TEST(WaitTotals, LiveWindowsReadBackAndFreedOnesMergeByName) {
  WaitStateRegistry registry;
  for (uint64_t id = 1; id <= 1000; ++id) {
    registry.open(id);
    registry.add(id, Pattern::wait_at_fence, 1'000'000, 0);
    double seconds[kPatternCount];
    uint64_t counts[kPatternCount];
    ASSERT_TRUE(registry.read(id, seconds, counts));
    EXPECT_EQ(counts[4], 1u);
    EXPECT_DOUBLE_EQ(seconds[4], 0.001);
    registry.close(id, "window 1");
  }
  EXPECT_EQ(registry.live_count(), 0u);
  EXPECT_EQ(registry.freed_count(), 1u);  // bounded whatever the number of windows
  const auto entries = registry.entries(live_name);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].waits.patterns[4].count, 1000u);
  EXPECT_EQ(entries[0].waits.patterns[4].time, 1'000'000'000);
}

TEST(WaitTotals, WindowsWithoutWaitsAreListedWithTheirClock) {
  WaitStateRegistry registry;
  registry.open(7);
  registry.set_clock(7, 1000, 10);
  registry.open(8);
  registry.add(8, Pattern::lock_competition, 5, 1);
  const auto entries = registry.entries(live_name);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "live 7");
  EXPECT_EQ(entries[0].waits.clock_offset, 1000);
  EXPECT_EQ(entries[1].name, "live 8");
  double seconds[kPatternCount];
  uint64_t counts[kPatternCount];
  EXPECT_FALSE(registry.read(9, seconds, counts));
}

TEST(WaitTotals, JobLinesReadBackExactly) {
  WaitStateRegistry registry;
  registry.open(1);
  registry.add(1, Pattern::late_post, 300'000'000, 0);
  registry.add(1, Pattern::late_post, 200'000'000, 0);
  registry.add(1, Pattern::early_fence, 1'500, 3);
  registry.add_op_time(1, 2'000'000);
  registry.add_unmatched(1, 2);
  registry.set_clock(1, -5'000'000'000, 12'000);
  registry.set_drift(1, 3'000);
  const std::string text =
      "# mpimon job file (one record per non-zero source, destination, category)\n"
      "format mpimon-job 1\nworld_size 4\nenable_level 2\nopen_mpi 4.1.4\n"
      "start 2026-01-01T00:00:00Z\nend 2026-01-01T00:00:01Z\nrecords\n" +
      format_wait_job_lines(2, registry.entries([](uint64_t) { return "halo x"; }), 12.5);
  EXPECT_NE(text.find("wait_state 2 halo%20x late_post 0 2 0.500000000\n"), std::string::npos) << text;
  const JobFile file = parse_job_file(text, "job.txt");
  const WaitAnnotations a = read_wait_annotations(file.annotations, "job.txt");
  ASSERT_EQ(a.waits.size(), 2u);
  EXPECT_EQ(a.waits[0].waiter, 2);
  EXPECT_EQ(a.waits[0].window, "halo x");
  EXPECT_EQ(a.waits[0].pattern, Pattern::late_post);
  EXPECT_EQ(a.waits[0].culprit, 0);
  EXPECT_EQ(a.waits[0].count, 2u);
  EXPECT_DOUBLE_EQ(a.waits[0].seconds, 0.5);
  EXPECT_EQ(a.waits[1].pattern, Pattern::early_fence);
  EXPECT_EQ(a.waits[1].culprit, 3);
  ASSERT_EQ(a.windows.size(), 1u);
  EXPECT_DOUBLE_EQ(a.windows[0].rma_seconds, 0.002);
  EXPECT_EQ(a.windows[0].unmatched, 2u);
  EXPECT_DOUBLE_EQ(a.windows[0].clock_offset, -5.0);
  ASSERT_TRUE(a.windows[0].clock_drift);
  EXPECT_DOUBLE_EQ(*a.windows[0].clock_drift, 3e-6);
  EXPECT_DOUBLE_EQ(a.process_seconds.at(2), 12.5);
}

TEST(WaitTotals, ProfLinesNameWindowPatternAndCulprit) {
  WaitStateRegistry registry;
  registry.open(1);
  registry.add(1, Pattern::wait_at_fence, 400'000'000, 3);
  const std::string lines = format_wait_prof_lines(0, registry.entries([](uint64_t) { return "window 1"; }));
  EXPECT_EQ(lines,
            "# WAIT\t0\twindow 1\twait_at_fence\t3\t1 times\t0.400000000 s\n"
            "# WAIT_WINDOW\t0\twindow 1\t0.000000000 s\t0 unmatched\t0.000000000 s\t- s\t0.000000000 s\n");
}

TEST(WaitTotals, MalformedAnnotationsAreReportedWithTheirLine) {
  JobAnnotation a{"wait_state", {"0", "w", "late", "1", "1", "0.1"}, 12};
  try {
    read_wait_annotations({a}, "job.txt");
    FAIL() << "accepted an unknown pattern";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("job.txt:12: expected 'wait_state", 0), 0u) << e.what();
  }
  JobAnnotation b{"wait_process_time", {"0", "-1"}, 3};
  EXPECT_THROW(read_wait_annotations({b}, "job.txt"), FormatError);
  JobAnnotation other{"window_sync", {"0", "w", "fence", "1", "0.1"}, 4};
  EXPECT_TRUE(read_wait_annotations({other}, "job.txt").empty());  // not ours: ignored
}

TEST(ClockOffsets, TheShortestRoundTripWins) {
  // Our clock is 5 s behind the reference; one sample is slowed by a 2 ms delay.
  const Nanos behind = 5'000'000'000;
  std::vector<ClockSample> samples{{0, behind + 1'000'000 + 50, 2'000'100}, {10'000, behind + 10'050, 10'100}};
  const auto offset = estimate_offset(samples);
  ASSERT_TRUE(offset);
  EXPECT_EQ(offset->offset, behind);
  EXPECT_EQ(offset->uncertainty, 50);
  EXPECT_FALSE(estimate_offset({}));
}

TEST(ClockOffsets, TheSegmentedScanHandsEachLeadersOffsetToItsRun) {
  // Ranks 0-2 on host A (leader 0: offset 0), 3-5 on host B (leader 3: offset 7).
  const std::vector<ScanElement> ranks{{1, 0, 0}, {0, 99, 0}, {0, 99, 0}, {1, 7, 1}, {0, 99, 0}, {0, 99, 0}};
  std::vector<ScanElement> prefix{ranks[0]};
  for (size_t i = 1; i < ranks.size(); ++i) prefix.push_back(scan_combine(prefix.back(), ranks[i]));
  const std::vector<Nanos> expected{0, 0, 0, 7, 7, 7};
  for (size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(prefix[i].offset, expected[i]) << i;
  // Associative: ((a.b).c) == (a.(b.c)) for every leader pattern.
  for (int bits = 0; bits < 8; ++bits) {
    const ScanElement a{bits & 1, 1, 0}, b{(bits >> 1) & 1, 2, 0}, c{(bits >> 2) & 1, 3, 0};
    EXPECT_EQ(scan_combine(scan_combine(a, b), c).offset, scan_combine(a, scan_combine(b, c)).offset);
  }
}

TEST(ClockOffsets, TestingKnobSyntax) {
  std::string error;
  auto ranks = parse_testing_clock_shift("2.5:1,3", error);
  ASSERT_TRUE(ranks) << error;
  EXPECT_EQ(ranks->shift, 2'500'000'000);
  EXPECT_TRUE(ranks->applies_to(3, "any"));
  EXPECT_FALSE(ranks->applies_to(2, "any"));
  auto host = parse_testing_clock_shift("-1:host=h2", error);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->shift, -1'000'000'000);
  EXPECT_TRUE(host->applies_to(0, "h2"));
  EXPECT_FALSE(host->applies_to(0, "h1"));
  EXPECT_EQ(parse_testing_clock_shift("", error)->shift, 0);
  for (const char* bad : {"5", "x:1", "5:", "5:a", "5:1,,2", "5:host=", "5:-1", "1e9:1"})
    EXPECT_FALSE(parse_testing_clock_shift(bad, error)) << bad;
  EXPECT_NE(clock_domain_id("h1", false), clock_domain_id("h1", true));
  EXPECT_EQ(clock_domain_id("h1", false), clock_domain_id("h1", false));
}

TEST(ShadowLayout, RecordsDoNotOverlapAndMemoryIsBounded) {
  const ShadowLayout small(4);
  EXPECT_EQ(small.slots(), 4);
  std::set<size_t> starts;
  for (int w = 0; w < 4; ++w)
    for (uint32_t e = 0; e < 2; ++e) starts.insert(small.complete_record(w, e));
  starts.insert(small.fence_record(0));
  starts.insert(small.fence_record(1));
  for (int r = 0; r < kLockRecords; ++r) starts.insert(small.lock_record(r));
  EXPECT_EQ(starts.size(), 8u + 2u + kLockRecords);
  EXPECT_EQ(small.complete_record(1, 3), small.complete_record(1, 5));  // parity
  EXPECT_LE(small.lock_record(kLockRecords - 1) + sizeof(LockRecord), small.bytes());
  const ShadowLayout huge(100'000);
  EXPECT_EQ(huge.slots(), kMaxSlots);
  EXPECT_LT(huge.bytes(), 70'000u);
}

TEST(ShadowLayout, RecordsKnowTheirWriterAndEpoch) {
  const PostRecord p = make_post_record(5, 9, 1234);
  EXPECT_TRUE(valid(p, 5, 9));
  EXPECT_FALSE(valid(p, 5, 11));
  EXPECT_FALSE(valid(p, 6, 9));
  PostRecord torn = p;
  torn.post_enter = 99;
  EXPECT_FALSE(valid(torn, 5, 9));
  EXPECT_FALSE(valid(PostRecord{}, 0, 0));  // fresh memory
  const CompleteRecord c = make_complete_record(0, 1, 10, 5);
  EXPECT_TRUE(valid(c, 0, 1));
  EXPECT_EQ(releaser_of(make_lock_record(3, 1, 77)), 3);
  EXPECT_EQ(releaser_of(LockRecord{}), -1);
}

TEST(ShadowLayout, FenceRecordsOrderByTimeAndKeepTheRank) {
  const int64_t created = 5'000'000'000;
  const FenceRecord early = make_fence_record(created + 1'000'000, created, 7);
  const FenceRecord late = make_fence_record(created + 300'000'000, created, 2);
  EXPECT_LT(early, late);  // MPI_MAX picks the latest
  EXPECT_EQ(fence_record_rank(late), 2);
  EXPECT_NEAR(static_cast<double>(fence_record_time(late, created)), created + 300'000'000.0, 128);
  EXPECT_EQ(fence_record_rank(0), -1);
  EXPECT_EQ(fence_record_rank(make_fence_record(created - 5, created, 0)), 0);  // before creation: clamped
  EXPECT_EQ(fence_record_rank(make_fence_record(created, created, (1 << 20) - 1)), (1 << 20) - 1);
}

}  // namespace
}  // namespace mpimon::wait_states
