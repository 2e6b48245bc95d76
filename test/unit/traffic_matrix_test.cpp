// mpimon matrix: building matrices from dumps (ours and Open MPI's) and writing them.
#include <gtest/gtest.h>

#include "traffic_matrix.h"

namespace mpimon::tools {
namespace {

const std::string kDistroDumps = std::string(MPIMON_TEST_DATA) + "/distro-4.1.4/ring";

// 0 -> 1: 3 messages, 30 bytes; 1 -> 0: 1 message, 10 bytes; 2 -> 0: 2 messages, 0 bytes.
TrafficMatrix small() {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {3, 30});
  m.add(Category::external, 1, 0, {1, 10});
  m.add(Category::internal, 2, 0, {2, 0});
  return m;
}

Selection external() { return Selection{false, Category::external}; }

TEST(TrafficMatrix, ReadsOpenMpisOwnDumps) {
  const TrafficMatrix m = read_dump_files(expand_dump_arguments({kDistroDumps}));
  ASSERT_EQ(m.ranks(), 4);
  for (int r = 0; r < 4; ++r) {
    const Traffic ring = m.at(Category::external, r, (r + 1) % 4);
    EXPECT_EQ(ring.messages, 1u);
    EXPECT_EQ(ring.bytes, 1024u);
  }
  // The binary-tree reduce on 4 ranks: 1, 2 -> 0; 3 -> 1.
  EXPECT_EQ(m.at(Category::internal, 1, 0).bytes, 64u);
  EXPECT_EQ(m.at(Category::internal, 2, 0).bytes, 64u);
  EXPECT_EQ(m.at(Category::internal, 3, 1).bytes, 64u);
  EXPECT_EQ(m.at(Category::internal, 3, 0).messages, 0u);
  // Open MPI's COLL component records a reduce at the root, against each sender.
  EXPECT_EQ(m.at(Category::coll, 0, 2).bytes, 64u);
}

TEST(TrafficMatrix, ProfileToMatTextIsProfile2matsFormat) {
  EXPECT_EQ(format_matrix(small(), external(), Metric::messages, FileFormat::mat, false), "0 3 0 \n1 0 0 \n0 0 0 \n");
}

TEST(TrafficMatrix, SymmetricAveragesBothDirectionsAsProfile2matDoes) {
  EXPECT_EQ(format_matrix(small(), external(), Metric::messages, FileFormat::mat, true), "0 2 0 \n2 0 0 \n0 0 0 \n");
  EXPECT_EQ(format_matrix(small(), external(), Metric::bytes, FileFormat::mat, true), "0 20 0 \n20 0 0 \n0 0 0 \n");
  EXPECT_DOUBLE_EQ(cell_value(small(), external(), Metric::average, 0, 1, true), 10.0);
}

TEST(TrafficMatrix, CsvHasAHeaderAndOneRowPerSender) {
  EXPECT_EQ(format_matrix(small(), external(), Metric::bytes, FileFormat::csv, false),
            "sender,0,1,2\n0,0,30,0\n1,10,0,0\n2,0,0,0\n");
}

TEST(TrafficMatrix, AverageIsBytesPerMessage) {
  EXPECT_EQ(format_matrix(small(), external(), Metric::average, FileFormat::csv, false),
            "sender,0,1,2\n0,0,10,0\n1,10,0,0\n2,0,0,0\n");
}

TEST(TrafficMatrix, AllSumsEveryCategory) {
  EXPECT_EQ(format_matrix(small(), Selection{true}, Metric::messages, FileFormat::csv, false),
            "sender,0,1,2\n0,0,3,0\n1,1,0,0\n2,2,0,0\n");
}

TEST(TrafficMatrix, MatrixMarketListsOnlyNonZerosOneBased) {
  EXPECT_EQ(format_matrix(small(), external(), Metric::messages, FileFormat::matrix_market, false),
            "%%MatrixMarket matrix coordinate real general\n"
            "% mpimon: external msg, row = sender, column = receiver\n"
            "3 3 2\n1 2 3\n2 1 1\n");
}

TEST(TrafficMatrix, MissingDumpsNameWhatWasLookedFor) {
  try {
    expand_dump_arguments({"/nonexistent/prof"});
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/prof: no such file, and no prof.<rank>.prof files in /nonexistent");
  }
}

}  // namespace
}  // namespace mpimon::tools
