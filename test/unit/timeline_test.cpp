// The tools' side of the time series: timelines (traffic per interval, busiest pairs, the
// moment the pattern changes, synchronisation time) and how the commands find and read a
// series by the job file's name (series_input.h).
#include <gtest/gtest.h>

#include <sstream>

#include "formats/job_format.h"
#include "readers/job_reader.h"
#include "series_builder.h"
#include "series_input.h"
#include "temp_dir.h"
#include "timeline.h"

namespace mpimon::tools {
namespace {

using series::FrameKind;
using test::SeriesBuilder;

class TimelineTest : public test::TempDirTest {
 protected:
  std::string folder() const { return dir_ + "/job.txt.series"; }
  // Four ranks: a ring (r -> r+1) for intervals 1-4, nothing in 5, the reversed ring
  // (r -> r-1) from 6 to 8, with twice the bytes; rank 0 times a fence.
  void ring_then_reversed() {
    SeriesBuilder b;
    for (int r = 0; r < 4; ++r) b.start("h", r);
    for (uint64_t k = 1; k <= 8; ++k) {
      for (int r = 0; r < 4; ++r) {
        std::string payload;
        if (k <= 4) payload = std::to_string((r + 1) % 4) + " external 10 1000 7:10\n";
        if (k >= 6) payload = std::to_string((r + 3) % 4) + " external 10 2000 8:10\n";
        if (r == 0)
          payload += "annotations 1 1\n0 window_sync 0 w fence " + std::to_string(k) + " " +
                     std::to_string(0.25 * static_cast<double>(k)) + "\n";
        b.frame("h", r, k, payload);
      }
    }
    b.write(folder());
  }
};

TEST_F(TimelineTest, TrafficPerIntervalPerCategory) {
  ring_then_reversed();
  const Timeline t = build_timeline(folder(), {});
  EXPECT_EQ(t.first, 1u);
  EXPECT_EQ(t.last, 8u);
  ASSERT_EQ(t.intervals(), 8u);
  EXPECT_EQ(t.traffic[0][0].bytes, 4000u);
  EXPECT_EQ(t.traffic[0][0].messages, 40u);
  EXPECT_EQ(t.traffic[4][0].bytes, 0u);
  EXPECT_EQ(t.traffic[7][0].bytes, 8000u);
  EXPECT_TRUE(t.has_sync);
  EXPECT_DOUBLE_EQ(t.sync_seconds[0], 0.25);
  EXPECT_DOUBLE_EQ(t.sync_seconds[7], 0.25);
}

TEST_F(TimelineTest, ThePatternChangesWhereEverySenderTurnsToNewPeers) {
  ring_then_reversed();
  const Timeline t = build_timeline(folder(), {});
  EXPECT_LT(t.change[0], 0);           // nobody had sent before
  EXPECT_DOUBLE_EQ(t.change[1], 0.0);  // same split
  EXPECT_DOUBLE_EQ(t.change[5], 1.0);  // interval 6: compared with each sender's interval 4
  EXPECT_DOUBLE_EQ(t.change[6], 0.0);  // twice the bytes is no change of pattern
  ASSERT_TRUE(t.change_moment());
  EXPECT_EQ(*t.change_moment(), 6u);
  EXPECT_DOUBLE_EQ(t.start_of(6), 5.0);
}

TEST_F(TimelineTest, ASteadyPatternHasNoMoment) {
  ring_then_reversed();
  const Timeline t = build_timeline(folder(), {0, 4});
  EXPECT_EQ(t.last, 4u);
  EXPECT_FALSE(t.change_moment());
}

TEST_F(TimelineTest, BusiestPairsOverTime) {
  ring_then_reversed();
  const Timeline t = build_timeline(folder(), {}, 2);
  ASSERT_EQ(t.top_pairs.size(), 2u);
  EXPECT_EQ(t.top_pairs[0].bytes, 6000u);  // a reversed-ring pair: 3 x 2000
  EXPECT_EQ(t.top_pairs[0].per_interval[5], 2000u);
  EXPECT_EQ(t.top_pairs[0].per_interval[0], 0u);
}

TEST_F(TimelineTest, TerminalAndSvgViews) {
  ring_then_reversed();
  const Timeline t = build_timeline(folder(), {});
  const std::string text = format_terminal_timeline(t, TimelineMetric::bytes);
  EXPECT_NE(text.find("external   ▄▄▄▄ ███  total 40k"), std::string::npos) << text;
  EXPECT_NE(text.find("sync time"), std::string::npos) << text;
  EXPECT_NE(text.find("the pattern changes most at 5.0 s (interval 6, change 1.00)"), std::string::npos) << text;
  EXPECT_NE(text.find("did not finish"), std::string::npos) << text;
  const std::string narrow = format_terminal_timeline(t, TimelineMetric::messages, 4);
  EXPECT_NE(narrow.find("(2 intervals per column)"), std::string::npos) << narrow;
  const std::string svg = format_svg_timeline(t, TimelineMetric::bytes, "ring <&>");
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("pattern change, 5.0 s"), std::string::npos);
  EXPECT_NE(svg.find("ring &lt;&amp;&gt;"), std::string::npos);
}

TEST_F(TimelineTest, JobFilesNameIsReadFromItsSeriesWhileThereIsNoJobFile) {
  ring_then_reversed();
  const std::string name = dir_ + "/job.txt";
  EXPECT_EQ(series_folder_of(name), folder());      // running or dead: no job file yet
  EXPECT_EQ(series_folder_of(folder()), folder());  // the folder itself
  EXPECT_EQ(series_folder_of(dir_ + "/other.txt"), "");
  std::ostringstream notes;
  const ResolvedInputs inputs = resolve_inputs({name}, {}, notes);
  ASSERT_EQ(inputs.files, std::vector<std::string>{folder() + " (summed)"});  // held in memory
  const Dumps dumps = read_dumps(inputs.files, Annotations::read, inputs.load);
  EXPECT_EQ(dumps.matrix.non_zeros(), 8u);  // 4 ring + 4 reversed-ring pairs
  EXPECT_NE(notes.str().find("job.txt: the job did not finish"), std::string::npos) << notes.str();
  bool names_its_series = false;
  for (const JobAnnotation& a : dumps.annotations) names_its_series = names_its_series || a.keyword == "series";
  EXPECT_TRUE(names_its_series);  // for the report's timeline

  // A finished job file names its series: read as it is, unless a range is asked for.
  std::ofstream(name) << "# mpimon job file\nformat mpimon-job 1\nworld_size 4\nrecords\n0 1 external 1 1 1:1\nseries "
                         "job.txt.series\n";
  EXPECT_EQ(series_folder_of(name), folder());
  EXPECT_EQ(resolve_inputs({name}, {}, notes).files, std::vector<std::string>{name});
  TimeOptions range;
  range.from = 5;
  const ResolvedInputs later = resolve_inputs({name}, range, notes);
  const Dumps reversed = read_dumps(later.files, Annotations::skip, later.load);
  EXPECT_EQ(reversed.matrix.non_zeros(), 4u);  // the reversed ring only
  EXPECT_EQ(reversed.matrix.at(Category::external, 1, 0).bytes, 6000u);
  range.to = 2;
  EXPECT_THROW(resolve_inputs({name}, range, notes), std::invalid_argument);
  range = {};
  range.to = 3;
  EXPECT_THROW(resolve_inputs({dir_ + "/none.prof"}, range, notes), FormatError);
}

}  // namespace
}  // namespace mpimon::tools
