// mpimon show: binning, the terminal heatmap and the SVG image.
#include <gtest/gtest.h>

#include "heatmap.h"

namespace mpimon::tools {
namespace {

TEST(Heatmap, SmallJobsHaveOneCellPerRankPair) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {2, 20});
  m.add(Category::external, 1, 2, {1, 5});
  const Grid g = bin_matrix(m, Selection{false, Category::external}, Metric::bytes);
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
  const Grid g = bin_matrix(m, Selection{false, Category::external}, Metric::messages);
  EXPECT_EQ(g.ranks_per_bin, 4);
  EXPECT_EQ(g.bins, 50);
  EXPECT_EQ(g.at(0, 0), 3);  // 0->1, 1->2, 2->3 stay inside ranks 0-3
  EXPECT_EQ(g.at(0, 1), 1);  // 3->4
  EXPECT_EQ(g.at(49, 0), 1);  // 199->0
  EXPECT_EQ(g.label(1), "ranks 4-7");
  double total = 0;
  for (double v : g.cells) total += v;
  EXPECT_EQ(total, 200);
}

TEST(Heatmap, AverageIsPerBlock) {
  TrafficMatrix m;
  m.add(Category::coll, 0, 1, {1, 10});
  m.add(Category::coll, 0, 1, {1, 30});
  EXPECT_EQ(bin_matrix(m, Selection{true}, Metric::average).at(0, 1), 20);
}

TEST(Heatmap, TerminalViewShowsScaleAndSelf) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 1000});
  m.add(Category::external, 1, 0, {1, 1});
  const std::string text = format_terminal_heatmap(bin_matrix(m, Selection{true}, Metric::bytes), "title");
  EXPECT_EQ(text.rfind("title\n", 0), 0u);
  EXPECT_NE(text.find("0 | \\\\██ |"), std::string::npos) << text;
  EXPECT_NE(text.find("1 | ░░\\\\ |"), std::string::npos) << text;
  EXPECT_NE(text.find("1000 (max)"), std::string::npos) << text;
}

TEST(Heatmap, SvgHasCellsLabelsAndScale) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 1000});
  const std::string svg = format_svg_heatmap(bin_matrix(m, Selection{true}, Metric::bytes), "a <title>");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("a &lt;title&gt;"), std::string::npos);
  EXPECT_NE(svg.find("<title>rank 0 -> rank 1: 1000</title>"), std::string::npos);
  EXPECT_NE(svg.find(">receiver<"), std::string::npos);
  EXPECT_NE(svg.find(">sender<"), std::string::npos);
  EXPECT_NE(svg.find(">log scale<"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

}  // namespace
}  // namespace mpimon::tools

namespace mpimon::tools {
namespace {

TEST(SizeHistograms, PerPeerFromOpenMpisDumps) {
  const std::string dumps = std::string(MPIMON_TEST_DATA) + "/distro-4.1.4/ring";
  const std::string text = format_size_histograms(expand_dump_arguments({dumps}), 3, Selection{true});
  // Rank 3: one 1 KiB ring message to 0 and one 64-byte reduce message to 1.
  EXPECT_EQ(text,
            "message sizes sent by rank 3 (all), messages per size class\n"
            "      to |    <128    <256    <512     <1K     <2K\n"
            "       0 |       .       .       .       .       1\n"
            "       1 |       1       .       .       .       .\n"
            "     all |       1       0       0       0       1\n");
  EXPECT_EQ(format_size_histograms(expand_dump_arguments({dumps}), 9, Selection{true}),
            "rank 9 sent no message with a size histogram\n");
}

}  // namespace
}  // namespace mpimon::tools
