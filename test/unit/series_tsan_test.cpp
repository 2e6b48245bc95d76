// The time series' thread against recording threads, built with ThreadSanitizer (ctest
// names series_tsan.*): the engine's table walked without a lock while threads insert
// peers and count (atomic increments, as under MPI_THREAD_MULTIPLE, and the single
// writer of a single-threaded process), the COLL and OSC layers' registries formatted
// while communicators and windows come and go. The series must add up exactly.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "analyses/communicator_classes.h"
#include "analyses/window_sync.h"
#include "formats/series_frame.h"
#include "readers/series_frame_reader.h"
#include "readers/series_payload_reader.h"
#include "series/series_writer.h"
#include "temp_dir.h"

namespace mpimon::series {
namespace {

class SeriesTsanTest : public test::TempDirTest {
 protected:
  // Runs `record` (the recording threads' work) while a writer snapshots every 2 ms, then
  // checks that the frames add up to the engine's final totals.
  template <typename Recording>
  void run(Engine& engine, Recording&& record, const SeriesWriter::LinesSource& lines) {
    const std::string folder = dir_ + "/job.txt.series";
    std::string error;
    ASSERT_EQ(create_series_directory(folder, error), Created::yes) << error;
    SeriesWriter::Options o;
    o.job_start_us = realtime_us();
    o.interval_us = 2000;
    const int fd = open_host_file(
        folder, "node", start_frame(o.rank, {1 << 20, 2, "4.1.4", o.job_start_us, o.interval_us, "node", 1}), error);
    ASSERT_GE(fd, 0) << error;
    o.catch_sigterm = o.final_at_exit = false;
    SeriesWriter writer(
        fd, folder + "/node", o, [&engine](TotalsView& into) { live_totals(engine, into); }, lines,
        [](const std::string&) {});
    writer.start();
    // Recording goes on until snapshots were taken during it (a loaded machine may run the
    // series thread late): no timing assumption.
    for (int round = 0; round < 1000 && (round == 0 || writer.stats().frames < 5); ++round) record();
    EXPECT_GE(writer.stats().frames, 5u);
    const Snapshot final_totals = engine.snapshot();
    writer.finish(final_totals, lines());

    std::vector<ScanIssue> issues;
    Snapshot sums;
    scan_frame_file(
        folder + "/node",
        [&](const Frame& f) {
          if (f.header.kind == FrameKind::start) return;
          const SnapshotDelta d = parse_snapshot_payload(f.payload, f.header.kind == FrameKind::final, 1 << 20, "t");
          for (const Record& r : d.records) {
            auto it = std::find_if(sums.begin(), sums.end(),
                                   [&](const Record& s) { return s.peer == r.peer && s.category == r.category; });
            if (it == sums.end()) {
              sums.push_back(r);
              continue;
            }
            it->counters.messages += r.counters.messages;
            it->counters.bytes += r.counters.bytes;
            for (int b = 0; b < kHistogramBuckets; ++b) it->counters.histogram[b] += r.counters.histogram[b];
          }
        },
        issues);
    EXPECT_TRUE(issues.empty());
    std::sort(sums.begin(), sums.end(), [](const Record& a, const Record& b) {
      return a.peer != b.peer ? a.peer < b.peer : a.category < b.category;
    });
    ASSERT_EQ(sums.size(), final_totals.size());
    for (size_t i = 0; i < sums.size(); ++i) {
      EXPECT_EQ(sums[i].counters.messages, final_totals[i].counters.messages) << i;
      EXPECT_EQ(sums[i].counters.bytes, final_totals[i].counters.bytes) << i;
    }
  }
};

TEST_F(SeriesTsanTest, ThreadsRecordingNewPeersWhileSnapshotsAreTaken) {
  Engine engine;
  engine.set_threaded(true);  // MPI_THREAD_MULTIPLE: atomic increments
  run(
      engine,
      [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
          threads.emplace_back([&engine, t] {
            for (int i = 0; i < 20000; ++i) {
              engine.record((i * 7 + t) % 3000, static_cast<Category>(i % kCategoryCount), static_cast<uint64_t>(i));
              if (i % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
          });
        for (auto& thread : threads) thread.join();
      },
      [] { return std::vector<std::string>{}; });
}

TEST_F(SeriesTsanTest, SingleWriterOfASingleThreadedProcess) {
  Engine engine;  // not threaded: the one recording thread adds without atomic operations
  run(
      engine,
      [&] {
        std::thread application([&engine] {
          for (int i = 0; i < 50000; ++i) {
            engine.record(i % 700, Category::external, 8);
            if (i % 5000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        });
        application.join();
      },
      [] { return std::vector<std::string>{}; });
}

TEST_F(SeriesTsanTest, LayersLinesWhileCommunicatorsAndWindowsComeAndGo) {
  Engine engine;
  CommunicatorRegistry communicators;
  WindowSyncRegistry windows(SyncClock::Source::steady);
  auto lines = [&] {
    std::string text = format_job_communicators(0, communicators) +
                       format_sync_job_lines(0, windows.entries([](uint64_t id) { return "w" + std::to_string(id); }));
    std::vector<std::string> out = split_lines(text);
    return out;
  };
  run(
      engine,
      [&] {
        std::thread application([&] {
          for (int i = 0; i < 3000; ++i) {
            CommunicatorClasses* c = communicators.open("c" + std::to_string(i % 5), {0, 1});
            c->add(CollectiveClass::all_to_all, 8);
            WindowSyncTimes times;
            const auto opened = windows.open(times);
            times[SyncKind::fence].add<false>(100);
            engine.record(1, Category::coll, 8);
            windows.close(opened.id, "w");
            communicators.close(c, "c" + std::to_string(i % 5));
            if (i % 300 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        });
        application.join();
      },
      lines);
}

}  // namespace
}  // namespace mpimon::series
