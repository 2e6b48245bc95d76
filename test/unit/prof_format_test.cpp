// format_prof / parse_prof / read_prof_file: Open MPI 4.1's monitoring text format.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "formats/prof_format.h"
#include "readers/prof_reader.h"
#include "temp_dir.h"

namespace mpimon {
namespace {

// 66 comma-separated counts, zero except the given buckets.
std::string histogram_text(const std::map<int, uint64_t>& nonzero) {
  std::string out;
  for (int b = 0; b < kHistogramBuckets; ++b) {
    if (b) out += ',';
    auto it = nonzero.find(b);
    out += std::to_string(it == nonzero.end() ? 0 : it->second);
  }
  return out;
}

std::string zeros(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += i ? ",0" : "0";
  return out;
}

// me = 3. Peer 1: E and I traffic; peer 5: I only; peer 6: one empty E message;
// peer 2: one-sided both ways; peers 0 and 7: collectives.
Snapshot small_snapshot() {
  Engine engine;
  engine.record(1, Category::external, 4);
  engine.record(1, Category::external, 100);
  for (int i = 0; i < 3; ++i) engine.record(1, Category::internal, 4);
  for (int i = 0; i < 3; ++i) engine.record(5, Category::internal, 4);
  engine.record(6, Category::external, 0);
  engine.record(2, Category::osc_sent, 8);
  engine.record(2, Category::osc_recv, 16);
  engine.record(2, Category::osc_recv, 16);
  engine.record(0, Category::coll, 40);
  engine.record(7, Category::coll, 1000);
  engine.record(7, Category::coll, 1000);
  return engine.snapshot();
}

::testing::AssertionResult starts_with(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not start with '" << prefix << "'";
}

// what() of the FormatError parse_prof throws, or a marker when it accepts the text.
std::string parse_error(std::string_view text, std::string_view source = "rank3.prof") {
  try {
    parse_prof(text, source);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "<accepted>";
}

const std::string kValidHistogram = histogram_text({{3, 3}});
const std::string kLinePrefix = "E\t0\t1\t12 bytes\t3 msgs sent\t";

// ---------------------------------------------------------------------------------------
// Writer

TEST(ProfFormat, EmptySnapshotPrintsTheThreeSectionHeaders) {
  EXPECT_EQ(format_prof(0, {}, true), "# POINT TO POINT\n# OSC\n# COLLECTIVES\n");
  EXPECT_EQ(format_prof(0, {}, false), "# POINT TO POINT\n# OSC\n# COLLECTIVES\n");
}

TEST(ProfFormat, SmallSnapshotMatchesOpenMpiTextExactly) {
  const std::string expected =
      "# POINT TO POINT\n"
      "E\t3\t1\t104 bytes\t2 msgs sent\t" +
      histogram_text({{3, 4}, {7, 1}}) +
      "\n"
      "E\t3\t6\t0 bytes\t1 msgs sent\t" +
      histogram_text({{0, 1}}) +
      "\n"
      "I\t3\t1\t12 bytes\t3 msgs sent\n"
      "I\t3\t5\t12 bytes\t3 msgs sent\t" +
      histogram_text({{3, 3}}) +
      "\n"
      "# OSC\n"
      "S\t3\t2\t8 bytes\t1 msgs sent\n"
      "R\t3\t2\t32 bytes\t2 msgs sent\n"
      "# COLLECTIVES\n"
      "C\t3\t0\t40 bytes\t1 msgs sent\n"
      "C\t3\t7\t2000 bytes\t2 msgs sent\n";
  EXPECT_EQ(format_prof(3, small_snapshot(), true), expected);
}

TEST(ProfFormat, InternalOnlyPeerLineMatchesOpenMpiComponentOutput) {
  // The line Open MPI 4.1's own component prints for 3 internal 4-byte messages.
  const std::string open_mpi_line =
      "I\t1\t5\t12 bytes\t3 msgs sent\t"
      "0,0,0,3,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0\n";
  Engine engine;
  for (int i = 0; i < 3; ++i) engine.record(5, Category::internal, 4);
  EXPECT_EQ(format_prof(1, engine.snapshot(), true), "# POINT TO POINT\n" + open_mpi_line + "# OSC\n# COLLECTIVES\n");
}

TEST(ProfFormat, HistogramLineHasSixtySixValues) {
  Engine engine;
  engine.record(0, Category::external, SIZE_MAX);
  const std::string text = format_prof(0, engine.snapshot(), true);
  const size_t start = text.find("msgs sent\t") + 10;
  const std::string histogram = text.substr(start, text.find('\n', start) - start);
  EXPECT_EQ(std::count(histogram.begin(), histogram.end(), ','), kHistogramBuckets - 1);
  EXPECT_EQ(histogram, histogram_text({{64, 1}}));
}

TEST(ProfFormat, ExternalLineCarriesTheSumOfExternalAndInternalHistograms) {
  Engine engine;
  engine.record(4, Category::external, 1);     // bucket 1
  engine.record(4, Category::internal, 1);     // bucket 1
  engine.record(4, Category::internal, 2048);  // bucket 12
  EXPECT_EQ(format_prof(0, engine.snapshot(), true),
            "# POINT TO POINT\n"
            "E\t0\t4\t1 bytes\t1 msgs sent\t" +
                histogram_text({{1, 2}, {12, 1}}) +
                "\n"
                "I\t0\t4\t2049 bytes\t2 msgs sent\n"
                "# OSC\n# COLLECTIVES\n");
}

TEST(ProfFormat, AllExternalLinesComeBeforeAllInternalLines) {
  Engine engine;
  for (int32_t peer : {2, 1}) {
    engine.record(peer, Category::internal, 1);
    engine.record(peer, Category::external, 1);
  }
  EXPECT_EQ(format_prof(0, engine.snapshot(), true),
            "# POINT TO POINT\n"
            "E\t0\t1\t1 bytes\t1 msgs sent\t" +
                histogram_text({{1, 2}}) +
                "\n"
                "E\t0\t2\t1 bytes\t1 msgs sent\t" +
                histogram_text({{1, 2}}) +
                "\n"
                "I\t0\t1\t1 bytes\t1 msgs sent\n"
                "I\t0\t2\t1 bytes\t1 msgs sent\n"
                "# OSC\n# COLLECTIVES\n");
}

TEST(ProfFormat, WithoutSplitInternalNoInternalLineIsPrinted) {
  const std::string text = format_prof(3, small_snapshot(), false);
  EXPECT_EQ(text.find("\nI\t"), std::string::npos) << text;
  EXPECT_NE(text.find("\nE\t3\t1\t104 bytes\t2 msgs sent\t"), std::string::npos) << text;
}

TEST(ProfFormat, WithoutSplitInternalExternalOnlySnapshotMatchesExactly) {
  Engine engine;
  engine.record(2, Category::external, 7);
  engine.record(0, Category::external, 8);
  engine.record(0, Category::coll, 8);
  EXPECT_EQ(format_prof(1, engine.snapshot(), false),
            "# POINT TO POINT\n"
            "E\t1\t0\t8 bytes\t1 msgs sent\t" +
                histogram_text({{4, 1}}) +
                "\n"
                "E\t1\t2\t7 bytes\t1 msgs sent\t" +
                histogram_text({{3, 1}}) +
                "\n"
                "# OSC\n"
                "# COLLECTIVES\n"
                "C\t1\t0\t8 bytes\t1 msgs sent\n");
}

TEST(ProfFormat, OneSidedLinesAreSentThenReceivedPerPeerInPeerOrder) {
  Engine engine;
  engine.record(9, Category::osc_recv, 1);
  engine.record(4, Category::osc_recv, 2);
  engine.record(9, Category::osc_sent, 3);
  EXPECT_EQ(format_prof(0, engine.snapshot(), true),
            "# POINT TO POINT\n"
            "# OSC\n"
            "R\t0\t4\t2 bytes\t1 msgs sent\n"
            "S\t0\t9\t3 bytes\t1 msgs sent\n"
            "R\t0\t9\t1 bytes\t1 msgs sent\n"
            "# COLLECTIVES\n");
}

TEST(ProfFormat, LargeCountsArePrintedInFull) {
  Engine engine;
  engine.record(4095, Category::coll, uint64_t{1} << 40);
  engine.record(4095, Category::coll, uint64_t{1} << 40);
  EXPECT_EQ(format_prof(4094, engine.snapshot(), true),
            "# POINT TO POINT\n# OSC\n# COLLECTIVES\n"
            "C\t4094\t4095\t2199023255552 bytes\t2 msgs sent\n");
}

// ---------------------------------------------------------------------------------------
// Reader

void expect_line(const ProfLine& l, char kind, int32_t me, int32_t peer, uint64_t bytes, uint64_t messages,
                 bool has_histogram, const std::map<int, uint64_t>& histogram = {}) {
  SCOPED_TRACE(std::string("line ") + kind + " to " + std::to_string(peer));
  EXPECT_EQ(l.kind, kind);
  EXPECT_EQ(l.me, me);
  EXPECT_EQ(l.peer, peer);
  EXPECT_EQ(l.bytes, bytes);
  EXPECT_EQ(l.messages, messages);
  EXPECT_EQ(l.has_histogram, has_histogram);
  for (int b = 0; b < kHistogramBuckets; ++b) {
    auto it = histogram.find(b);
    EXPECT_EQ(l.histogram[b], it == histogram.end() ? 0 : it->second) << "bucket " << b;
  }
}

TEST(ProfParse, RoundTripsFormatOutput) {
  const ProfFile file = parse_prof(format_prof(3, small_snapshot(), true), "rank3.prof");
  ASSERT_EQ(file.lines.size(), 8u);
  expect_line(file.lines[0], 'E', 3, 1, 104, 2, true, {{3, 4}, {7, 1}});
  expect_line(file.lines[1], 'E', 3, 6, 0, 1, true, {{0, 1}});
  expect_line(file.lines[2], 'I', 3, 1, 12, 3, false);
  expect_line(file.lines[3], 'I', 3, 5, 12, 3, true, {{3, 3}});
  expect_line(file.lines[4], 'S', 3, 2, 8, 1, false);
  expect_line(file.lines[5], 'R', 3, 2, 32, 2, false);
  expect_line(file.lines[6], 'C', 3, 0, 40, 1, false);
  expect_line(file.lines[7], 'C', 3, 7, 2000, 2, false);
  EXPECT_TRUE(file.communicators.empty());
}

TEST(ProfParse, RoundTripKeepsLargestCounts) {
  Engine engine;
  engine.record(4095, Category::external, SIZE_MAX);
  const ProfFile file = parse_prof(format_prof(0, engine.snapshot(), true), "big.prof");
  ASSERT_EQ(file.lines.size(), 1u);
  expect_line(file.lines[0], 'E', 0, 4095, SIZE_MAX, 1, true, {{64, 1}});
}

TEST(ProfParse, SkipsCommentAndEmptyLines) {
  const ProfFile file = parse_prof("# POINT TO POINT\n\n#anything\n\nC\t0\t1\t5 bytes\t1 msgs sent\n\n", "x.prof");
  ASSERT_EQ(file.lines.size(), 1u);
  expect_line(file.lines[0], 'C', 0, 1, 5, 1, false);
}

TEST(ProfParse, AcceptsLastLineWithoutNewline) {
  const ProfFile file = parse_prof("S\t2\t0\t64 bytes\t4 msgs sent", "x.prof");
  ASSERT_EQ(file.lines.size(), 1u);
  expect_line(file.lines[0], 'S', 2, 0, 64, 4, false);
}

TEST(ProfParse, ReadsCommunicatorBlocks) {
  const std::string text =
      "# COLLECTIVES\n"
      "C\t0\t1\t8 bytes\t1 msgs sent\n"
      "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\n"
      "O2A\t0\t64 bytes\t2 msgs sent\n"
      "A2O\t0\t0 bytes\t0 msgs sent\n"
      "A2A\t0\t96 bytes\t3 msgs sent\n";
  const ProfFile file = parse_prof(text, "x.prof");
  ASSERT_EQ(file.communicators.size(), 1u);
  const ProfCommunicator& c = file.communicators[0];
  EXPECT_EQ(c.name, "MPI_COMM_WORLD");
  EXPECT_EQ(c.members, 4u);
  EXPECT_EQ(c.me, 0);
  EXPECT_EQ(c.calls[0], 2u);
  EXPECT_EQ(c.bytes[0], 64u);
  EXPECT_EQ(c.calls[2], 3u);
  EXPECT_EQ(c.bytes[2], 96u);
  EXPECT_EQ(c.line, 3u);
  ASSERT_EQ(file.lines.size(), 1u);
  expect_line(file.lines[0], 'C', 0, 1, 8, 1, false);
}

TEST(ProfParse, ClassLineWithoutDLineIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("O2A\t0\t64 bytes\t2 msgs sent\n"), "rank3.prof:1: expected a D line"));
}

TEST(ProfParse, RankBeyondMpisIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("C\t2147483647\t1\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error("C\t0\t2147483647\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
  EXPECT_EQ(parse_error("C\t0\t2147483646\t12 bytes\t3 msgs sent\n"), "<accepted>");
}

TEST(ProfParse, SyncLinesAreRead) {
  const ProfFile file = parse_prof("# OSC\n# SYNC\t2\tmy%20win\tfence\t3 calls\t0.000001500 s\n", "x.prof");
  ASSERT_EQ(file.syncs.size(), 1u);
  EXPECT_EQ(file.syncs[0].me, 2);
  EXPECT_EQ(file.syncs[0].window, "my%20win");
  EXPECT_EQ(file.syncs[0].kind, "fence");
  EXPECT_EQ(file.syncs[0].calls, 3u);
  EXPECT_DOUBLE_EQ(file.syncs[0].seconds, 1.5e-6);
  EXPECT_TRUE(starts_with(parse_error("# SYNC\t2\tw\tfence\t3 calls\tnan s\n"), "rank3.prof:1: expected a number"));
  EXPECT_TRUE(starts_with(parse_error("# SYNC\t2\tw\tfence\t3 calls\t-1.0 s\n"), "rank3.prof:1: expected a number"));
}

TEST(ProfParse, CaptureSkipsAndCountsForeignLines) {
  const std::string text =
      "Hello from rank 0\n"
      "# POINT TO POINT\n"
      "E\t0\t1\t8 bytes\t1 msgs sent\n"
      "[1,3]<stdout>:E\t3\t0\t4 bytes\t1 msgs sent\n"
      "Error: something\n"
      "E\n";
  const ProfFile file = parse_prof(text, "out.txt", ProfInput::capture);
  EXPECT_TRUE(file.has_monitoring_output);
  EXPECT_EQ(file.foreign_lines, 3u);
  EXPECT_EQ(file.first_foreign_line, 1u);
  ASSERT_EQ(file.lines.size(), 2u);
  expect_line(file.lines[1], 'E', 3, 0, 4, 1, false);
  // A dump as our component writes it has no foreign line.
  EXPECT_TRUE(starts_with(parse_error("Hello from rank 0\n"), "rank3.prof:1: expected a line kind"));
}

TEST(ProfParse, TaggedCaptureOfOpenMpi5HasASpaceAfterTheStream) {
  // 5.0's PRRTE: "[1,3]<stdout>: E..."; the lines are read as 4.1's, none is foreign.
  const std::string text =
      "[1,0]<stdout>: # POINT TO POINT\n"
      "[1,0]<stdout>: E\t0\t1\t8 bytes\t1 msgs sent\n"
      "[1,3]<stdout>: E\t3\t0\t4 bytes\t1 msgs sent\n";
  const ProfFile file = parse_prof(text, "out.txt", ProfInput::capture);
  EXPECT_EQ(file.foreign_lines, 0u);
  ASSERT_EQ(file.lines.size(), 2u);
  expect_line(file.lines[0], 'E', 0, 1, 8, 1, false);
  expect_line(file.lines[1], 'E', 3, 0, 4, 1, false);
}

TEST(ProfParse, TaggedCaptureKeepsEachRanksCommunicatorBlocks) {
  // mpirun --tag-output interleaves the ranks' lines; the tags say whose they are.
  const std::string text =
      "[1,0]<stdout>:D\tMPI_COMM_WORLD\tprocs: 0,1\n"
      "[1,1]<stdout>:D\tMPI_COMM_WORLD\tprocs: 0,1\n"
      "[1,0]<stdout>:O2A\t0\t8 bytes\t1 msgs sent\n"
      "[1,1]<stdout>:O2A\t1\t16 bytes\t2 msgs sent\n";
  const ProfFile file = parse_prof(text, "out.txt", ProfInput::capture);
  ASSERT_EQ(file.communicators.size(), 2u);
  EXPECT_EQ(file.communicators[0].me, 0);
  EXPECT_EQ(file.communicators[0].bytes[0], 8u);
  EXPECT_EQ(file.communicators[1].me, 1);
  EXPECT_EQ(file.communicators[1].calls[0], 2u);
}

TEST(ProfParse, UntaggedCaptureGivesEachClassLineToTheBlockItsRankFills) {
  // Plain mpirun stdout, as in a LAMMPS run: rank 2's block is cut by rank 1's whole dump.
  const std::string text =
      "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n"
      "O2A\t2\t0 bytes\t0 msgs sent\n"
      "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n"
      "O2A\t1\t1 bytes\t1 msgs sent\n"
      "A2O\t1\t2 bytes\t1 msgs sent\n"
      "A2A\t1\t3 bytes\t1 msgs sent\n"
      "D\tMPI_COMM_SELF\tprocs: 1\n"
      "O2A\t1\t0 bytes\t0 msgs sent\n"
      "A2O\t1\t0 bytes\t0 msgs sent\n"
      "A2A\t1\t0 bytes\t0 msgs sent\n"
      "A2O\t2\t24 bytes\t3 msgs sent\n"
      "A2A\t2\t28 bytes\t9 msgs sent\n"
      "D\tMPI_COMM_SELF\tprocs: 2\n"
      "O2A\t2\t0 bytes\t0 msgs sent\n";
  const ProfFile file = parse_prof(text, "out.txt", ProfInput::capture);
  ASSERT_EQ(file.communicators.size(), 4u);
  EXPECT_EQ(file.communicators[0].me, 2);
  EXPECT_EQ(file.communicators[0].bytes[1], 24u);
  EXPECT_EQ(file.communicators[0].calls[2], 9u);
  EXPECT_EQ(file.communicators[1].me, 1);
  EXPECT_EQ(file.communicators[1].bytes[2], 3u);
  EXPECT_EQ(file.communicators[3].me, 2);
  // A second line of one class for one rank is still an error, as in a .prof file.
  EXPECT_THROW(parse_prof(text + "O2A\t2\t0 bytes\t0 msgs sent\n", "out.txt", ProfInput::capture), FormatError);
}

TEST(ProfParse, CaptureStillRejectsMalformedMonitoringLines) {
  try {
    parse_prof("E\t0\t1\tmany bytes\t1 msgs sent\n", "out.txt", ProfInput::capture);
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_TRUE(starts_with(e.what(), "out.txt:1: expected a byte count")) << e.what();
  }
}

TEST(ProfParse, UnknownLineKindIsAnError) {
  const std::string error = parse_error("# POINT TO POINT\nX\t0\t1\t12 bytes\t3 msgs sent\n");
  EXPECT_TRUE(starts_with(error, "rank3.prof:2: expected"));
  EXPECT_NE(error.find("'X'"), std::string::npos) << error;
}

TEST(ProfParse, LowerCaseKindIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("e\t0\t1\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, NonNumericRankIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("C\tzero\t1\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error("C\t0\t1x\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, NegativeRankIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("C\t-1\t1\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error("C\t0\t-4\t12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, MissingBytesSuffixIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("\nC\t0\t1\t12\t3 msgs sent\n"), "rank3.prof:2: expected"));
  EXPECT_TRUE(starts_with(parse_error("C\t0\t1\t12bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, MissingMessagesSuffixIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("C\t0\t1\t12 bytes\t3 msgs\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, NegativeCountIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("C\t0\t1\t-12 bytes\t3 msgs sent\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, SixtySixHistogramValuesAreAccepted) {
  EXPECT_EQ(parse_error(kLinePrefix + zeros(66) + "\n"), "<accepted>");
}

TEST(ProfParse, SixtyFiveHistogramValuesAreAnError) {
  const std::string error = parse_error("# POINT TO POINT\n" + kLinePrefix + zeros(65) + "\n");
  EXPECT_TRUE(starts_with(error, "rank3.prof:2: expected"));
  EXPECT_NE(error.find("65"), std::string::npos) << error;
}

TEST(ProfParse, SixtySevenHistogramValuesAreAnError) {
  EXPECT_TRUE(starts_with(parse_error(kLinePrefix + zeros(67) + "\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, NonNumericHistogramValueIsAnError) {
  EXPECT_TRUE(starts_with(parse_error(kLinePrefix + "x," + zeros(65) + "\n"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error(kLinePrefix + zeros(65) + ",\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, TextAfterTheHistogramIsAnError) {
  EXPECT_TRUE(starts_with(parse_error(kLinePrefix + kValidHistogram + "\textra\n"), "rank3.prof:1: expected"));
}

TEST(ProfParse, TruncatedLineIsAnError) {
  EXPECT_TRUE(starts_with(parse_error("E\t0\t1\t12 bytes"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error("E\t0\t1\t12 bytes\n"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error("# c\nE\t0\n"), "rank3.prof:2: expected"));
  EXPECT_TRUE(starts_with(parse_error("E\n"), "rank3.prof:1: expected"));
  EXPECT_TRUE(starts_with(parse_error(kLinePrefix + "0,0,3"), "rank3.prof:1: expected"));
}

TEST(ProfParse, ErrorNamesTheSourceAndCountsSkippedLines) {
  const std::string text =
      "# POINT TO POINT\n\nE\t0\t1\t1 bytes\t1 msgs sent\t" + zeros(66) + "\n# OSC\n\nS\t0\t1\tbad\n";
  EXPECT_TRUE(starts_with(parse_error(text, "out/run.2.prof"), "out/run.2.prof:6: expected"));
}

// ---------------------------------------------------------------------------------------
// Files

using ProfReadFile = test::TempDirTest;

TEST_F(ProfReadFile, MissingFileIsAFormatErrorNamingThePath) {
  const std::string path = dir_ + "/missing.prof";
  try {
    read_prof_file(path);
    FAIL() << "no error for " << path;
  } catch (const FormatError& e) {
    EXPECT_TRUE(starts_with(e.what(), path + ":"));
  }
}

TEST_F(ProfReadFile, ReadsWhatFormatWrote) {
  const std::string path = dir_ + "/rank3.prof";
  std::ofstream(path) << format_prof(3, small_snapshot(), true);
  const ProfFile file = read_prof_file(path);
  ASSERT_EQ(file.lines.size(), 8u);
  expect_line(file.lines[3], 'I', 3, 5, 12, 3, true, {{3, 3}});
}

TEST_F(ProfReadFile, ErrorsNameTheFileAndLine) {
  const std::string path = dir_ + "/bad.prof";
  std::ofstream(path) << "# POINT TO POINT\nE\t0\t1\t12 bytes\t3 msgs sent\t" << zeros(65) << "\n";
  try {
    read_prof_file(path);
    FAIL() << "no error for " << path;
  } catch (const FormatError& e) {
    EXPECT_TRUE(starts_with(e.what(), path + ":2: expected"));
  }
}

}  // namespace
}  // namespace mpimon
