// WindowSyncRegistry: per-window synchronisation totals, names, merging, dump lines.
#include <gtest/gtest.h>

#include <string>

#include "analyses/window_sync.h"
#include "formats/job_format.h"

namespace mpimon {
namespace {

std::string no_live_name(uint64_t) { return "unused"; }

TEST(WindowSync, DefaultNamesTakeTheSmallestFreeNumber) {
  WindowSyncRegistry registry(SyncClock::Source::steady);
  WindowSyncTimes a, b, c;
  const auto first = registry.open(a);
  const auto second = registry.open(b);
  EXPECT_EQ(first.number, 1);
  EXPECT_EQ(second.number, 2);
  registry.close(first.id, WindowSyncRegistry::default_name(first.number));
  EXPECT_EQ(registry.open(c).number, 1);
}

TEST(WindowSync, LiveTotalsAreReadBack) {
  WindowSyncRegistry registry(SyncClock::Source::steady);
  WindowSyncTimes times;
  const auto opened = registry.open(times);
  times[SyncKind::fence].add<false>(0);
  times[SyncKind::fence].add<false>(0);
  uint64_t calls[kSyncKindCount];
  double seconds[kSyncKindCount];
  ASSERT_TRUE(registry.read(opened.id, calls, seconds));
  EXPECT_EQ(calls[static_cast<int>(SyncKind::fence)], 2u);
  EXPECT_EQ(calls[static_cast<int>(SyncKind::lock)], 0u);
  EXPECT_FALSE(registry.read(opened.id + 100, calls, seconds));
}

TEST(WindowSync, FreedWindowsOfTheSameNameAreMerged) {
  WindowSyncRegistry registry(SyncClock::Source::steady);
  for (int i = 0; i < 1000; ++i) {
    WindowSyncTimes times;
    const auto opened = registry.open(times);
    times[SyncKind::lock].add<false>(0);
    registry.close(opened.id, WindowSyncRegistry::default_name(opened.number));
  }
  EXPECT_EQ(registry.live_count(), 0u);
  EXPECT_EQ(registry.freed_count(), 1u);
  const auto entries = registry.entries(no_live_name);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "window 1");
  EXPECT_EQ(entries[0].calls[static_cast<int>(SyncKind::lock)], 1000u);
}

TEST(WindowSync, DumpLinesSkipKindsWithoutCalls) {
  WindowSyncEntry e;
  e.name = "halo win";
  e.calls[static_cast<int>(SyncKind::fence)] = 2;
  e.seconds[static_cast<int>(SyncKind::fence)] = 0.5;
  EXPECT_EQ(format_sync_prof_lines(1, {e}), "# SYNC\t1\thalo win\tfence\t2 calls\t0.500000000 s\n");
  EXPECT_EQ(format_sync_job_lines(1, {e}), "window_sync 1 halo%20win fence 2 0.500000000\n");
}

TEST(WindowSync, NamesAreEscapedAsOneField) {
  EXPECT_EQ(escape_name("a b%c", true), "a%20b%25c");
  EXPECT_EQ(escape_name("a b", false), "a b");
  EXPECT_EQ(escape_name("tab\there", false), "tab%09here");
  EXPECT_EQ(escape_name("", true), "%00");
}

}  // namespace
}  // namespace mpimon
