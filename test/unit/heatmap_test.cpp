// mpimon show: binning, the colour scale, the terminal heatmap, the SVG image and the
// size histograms.
#include <gtest/gtest.h>

#include <fstream>

#include "dumps.h"
#include "heatmap.h"
#include "size_histograms.h"
#include "temp_dir.h"

namespace mpimon::tools {
namespace {

const Selection kExternal(Category::external);

TEST(Heatmap, SmallJobsHaveOneCellPerRankPair) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {2, 20});
  m.add(Category::external, 1, 2, {1, 5});
  const Grid g = bin_matrix(m, kExternal, Metric::bytes);
  EXPECT_EQ(g.bins, 3);
  EXPECT_EQ(g.ranks_per_bin, 1);
  EXPECT_EQ(g.at(0, 1), 20);
  EXPECT_EQ(g.at(1, 2), 5);
  EXPECT_EQ(g.at(2, 0), 0);
  EXPECT_EQ(g.label(2), "rank 2");
}

TEST(Heatmap, LargeJobsAreBinnedToAtMostSixtyFourRows) {
  TrafficMatrix m;
  for (int r = 0; r < 200; ++r) m.add(Category::external, r, (r + 1) % 200, {1, 8});
  const Grid g = bin_matrix(m, kExternal, Metric::messages);
  EXPECT_EQ(g.ranks_per_bin, 4);
  EXPECT_EQ(g.bins, 50);
  EXPECT_EQ(g.at(0, 0), 3);   // 0->1, 1->2, 2->3 stay inside ranks 0-3
  EXPECT_EQ(g.at(0, 1), 1);   // 3->4
  EXPECT_EQ(g.at(49, 0), 1);  // 199->0
  EXPECT_EQ(g.label(1), "ranks 4-7");
  double total = 0;
  for (double v : g.cells) total += v;
  EXPECT_EQ(total, 200);
}

TEST(Heatmap, TheLargestWorldIsBinnedWithoutOverflow) {
  TrafficMatrix m;
  m.add(Category::external, kMaxRank, 0, {1, 8});
  const Grid g = bin_matrix(m, kExternal, Metric::bytes);
  EXPECT_EQ(g.bins, 64);
  EXPECT_EQ(g.at(63, 0), 8);
  EXPECT_EQ(g.label(63), "ranks 2113929216-2147483646");
  const std::string text = format_terminal_heatmap(g, "t");
  EXPECT_NE(text.find("2113929216 | ██"), std::string::npos) << text;
}

TEST(Heatmap, AverageIsPerBlock) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 10});
  m.add(Category::internal, 0, 1, {1, 30});
  EXPECT_EQ(bin_matrix(m, Selection::all(), Metric::average).at(0, 1), 20);
}

TEST(Heatmap, TerminalViewShowsScaleAndSelf) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 1000});
  m.add(Category::external, 1, 0, {1, 1});
  const std::string text = format_terminal_heatmap(bin_matrix(m, Selection::all(), Metric::bytes), "title");
  EXPECT_EQ(text.rfind("title\n", 0), 0u);
  EXPECT_NE(text.find("0 | \\\\██ |"), std::string::npos) << text;
  EXPECT_NE(text.find("1 | ░░\\\\ |"), std::string::npos) << text;
  EXPECT_NE(text.find("scale (log): ░░ 1  ▒▒  ▓▓  ██ 1000 (max)"), std::string::npos) << text;
}

TEST(Heatmap, TerminalLabelsEveryColumnThatFits) {
  TrafficMatrix m;
  m.add(Category::external, 0, 7, {1, 1});
  const std::string text = format_terminal_heatmap(bin_matrix(m, kExternal, Metric::bytes), "t");
  EXPECT_NE(text.find("    0 1 2 3 4 5 6 7  <- receiver\n"), std::string::npos) << text;
  TrafficMatrix wide;
  wide.add(Category::external, 0, 20, {1, 1});  // two-digit ranks: every second column
  EXPECT_NE(
      format_terminal_heatmap(bin_matrix(wide, kExternal, Metric::bytes), "t").find("     0   2   4   6   8   10  12"),
      std::string::npos);
}

TEST(Heatmap, ColourScaleStartsAtTheSmallestValue) {
  // Two pairs of 232 MB and 305 MB: a scale from 1 byte made them look the same.
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 232000000});
  m.add(Category::external, 1, 0, {1, 305000000});
  const Grid g = bin_matrix(m, kExternal, Metric::bytes);
  const ColourScale scale(g);
  EXPECT_FALSE(scale.logarithmic);
  EXPECT_EQ(scale.position(232000000), 0);
  EXPECT_EQ(scale.position(305000000), 1);
  const std::string text = format_terminal_heatmap(g, "t");
  EXPECT_NE(text.find("0 | \\\\░░ |"), std::string::npos) << text;
  EXPECT_NE(text.find("1 | ██\\\\ |"), std::string::npos) << text;
  // Wide ranges are logarithmic, from the smallest value.
  TrafficMatrix wide;
  wide.add(Category::external, 0, 1, {1, 12});
  wide.add(Category::external, 1, 0, {1, 1200000});
  const ColourScale log_scale(bin_matrix(wide, kExternal, Metric::bytes));
  EXPECT_TRUE(log_scale.logarithmic);
  EXPECT_DOUBLE_EQ(log_scale.position(12000), 0.6);
}

TEST(Heatmap, SvgHasCellsLabelsScaleAndNumbers) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 1000});
  m.add(Category::external, 1, 0, {1, 232000000});
  const std::string svg = format_svg_heatmap(bin_matrix(m, Selection::all(), Metric::bytes), "a <title>");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("a &lt;title&gt;"), std::string::npos);
  EXPECT_NE(svg.find("<title>rank 0 -> rank 1: 1000</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>rank 1 -> rank 0: 232M (232000000)</title>"), std::string::npos);
  EXPECT_NE(svg.find(">232M</text>"), std::string::npos) << "the value inside its cell";
  EXPECT_NE(svg.find(">receiver<"), std::string::npos);
  EXPECT_NE(svg.find(">sender<"), std::string::npos);
  EXPECT_NE(svg.find(">log scale<"), std::string::npos);
  const std::string legend = svg.substr(svg.rfind("<rect"));  // the scale's labels after its last colour
  EXPECT_NE(legend.find(">1000</text>"), std::string::npos) << "the scale starts at the smallest value: " << legend;
  EXPECT_NE(legend.find(">232M</text>"), std::string::npos) << legend;
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(Heatmap, GetsReadFromTheTargetToTheOrigin) {
  TrafficMatrix m;
  m.add(Category::osc_recv, 0, 1, {1, 16});  // rank 0 read 16 bytes from rank 1
  const std::string svg = format_svg_heatmap(bin_matrix(m, Selection(Category::osc_recv), Metric::bytes), "R");
  EXPECT_NE(svg.find("<title>rank 1 -> rank 0: 16</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">target (read from)<"), std::string::npos);
  EXPECT_NE(svg.find(">origin (reader)<"), std::string::npos);
  EXPECT_EQ(svg.find(">sender<"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Size histograms

class SizeHistogramsTest : public mpimon::test::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

std::string histogram(std::initializer_list<std::pair<int, int>> buckets) {
  std::string out;
  for (int b = 0; b < kHistogramBuckets; ++b) {
    int v = 0;
    for (auto [k, count] : buckets)
      if (k == b) v = count;
    out += (b ? "," : "") + std::to_string(v);
  }
  return out;
}

TEST(SizeHistograms, PerPeerFromOpenMpisDumps) {
  const std::vector<std::string> files = expand_dump_arguments({std::string(MPIMON_TEST_DATA) + "/distro-4.1.4/ring"});
  // Rank 3: one 1 KiB ring message to 0 and one 64-byte reduce message to 1.
  EXPECT_EQ(format_size_histograms(size_histograms(files, 3, Selection::all())),
            "message sizes sent by rank 3 (all), messages per size class\n"
            "      to |    <128    <256    <512     <1K     <2K\n"
            "       0 |       .       .       .       .       1\n"
            "       1 |       1       .       .       .       .\n"
            "     all |       1       0       0       0       1\n");
  EXPECT_EQ(format_size_histograms(size_histograms(files, 9, Selection::all())),
            "rank 9 sent no message with a size histogram\n");
}

TEST_F(SizeHistogramsTest, ProfFilesNeverPassOffEAndITogetherAsOne) {
  // Rank 0 sends E and I traffic to 1 (one histogram for both), only I to 2.
  const std::string p = write("p.0.prof", "# POINT TO POINT\nE\t0\t1\t8 bytes\t1 msgs sent\t" + histogram({{4, 3}}) +
                                              "\nI\t0\t1\t16 bytes\t2 msgs sent\n" + "I\t0\t2\t4 bytes\t1 msgs sent\t" +
                                              histogram({{3, 1}}) + "\n");
  const SizeHistograms internal = size_histograms({p}, 0, Selection(Category::internal));
  EXPECT_EQ(internal.mixed_peers, std::set<int32_t>{1});
  ASSERT_EQ(internal.per_peer.size(), 1u);
  EXPECT_EQ(internal.per_peer.at(2)[3], 1u);
  EXPECT_NE(format_size_histograms(internal).find("peers 1: not shown"), std::string::npos);
  const SizeHistograms all = size_histograms({p}, 0, Selection::all());
  EXPECT_TRUE(all.mixed_peers.empty());
  EXPECT_EQ(all.per_peer.at(1)[4], 3u);
  // The job file of the same run has each category apart: the same counts where both know.
  const std::string j = write("j.txt",
                              "# mpimon job file (one record per non-zero source, destination, category)\n"
                              "format mpimon-job 1\nworld_size 3\nrecords\n0 1 external 1 8 4:1\n"
                              "0 1 internal 2 16 4:2\n0 2 internal 1 4 3:1\n");
  EXPECT_EQ(size_histograms({j}, 0, Selection::all()).per_peer, all.per_peer);
  EXPECT_EQ(size_histograms({j}, 0, Selection(Category::internal)).per_peer.at(2), internal.per_peer.at(2));
  EXPECT_EQ(size_histograms({j}, 0, Selection(Category::internal)).per_peer.at(1)[4], 2u);
}

TEST_F(SizeHistogramsTest, OneSidedSizesFollowTheData) {
  const std::string j = write("j.txt",
                              "# mpimon job file (one record per non-zero source, destination, category)\n"
                              "format mpimon-job 1\nworld_size 3\nrecords\n0 1 osc_recv 1 16 5:1\n");
  // Rank 0 read from 1: the data left rank 1.
  EXPECT_EQ(size_histograms({j}, 1, Selection::of("osc")).per_peer.at(0)[5], 1u);
  EXPECT_TRUE(size_histograms({j}, 0, Selection::of("osc")).per_peer.empty());
  const std::string p = write("p.0.prof", "# OSC\nR\t0\t1\t16 bytes\t1 msgs sent\n");
  EXPECT_TRUE(size_histograms({p}, 1, Selection::all()).sizes_missing);
}

TEST(SizeHistograms, BucketLabelsCoverEveryBucket) {
  EXPECT_EQ(bucket_label(0), "0");
  EXPECT_EQ(bucket_label(11), "<2K");
  EXPECT_EQ(bucket_label(63), "<8E");
  EXPECT_EQ(bucket_label(64), "<16E");
  EXPECT_EQ(bucket_label(65), "b65");
}

}  // namespace
}  // namespace mpimon::tools
