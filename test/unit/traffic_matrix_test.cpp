// mpimon matrix: the sparse matrix, the selections ("all" defined once), the one-sided
// orientation and the output formats with their size limits.
#include <gtest/gtest.h>

#include <stdexcept>

#include "dumps.h"
#include "matrix_formats.h"

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

const Selection kExternal(Category::external);

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(TrafficMatrix, ReadsOpenMpisOwnDumps) {
  const TrafficMatrix m = read_dumps(expand_dump_arguments({kDistroDumps})).matrix;
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

// ---------------------------------------------------------------------------------------
// Selections: "all" once

TEST(Selection, AllIsEveryByteOnceAndLeavesTheLogicalCollectivesOut) {
  const Selection all = Selection::all();
  EXPECT_TRUE(all.includes(Category::external));
  EXPECT_TRUE(all.includes(Category::internal));
  EXPECT_TRUE(all.includes(Category::osc_sent));
  EXPECT_TRUE(all.includes(Category::osc_recv));
  EXPECT_FALSE(all.includes(Category::coll));       // its messages are already in internal
  EXPECT_TRUE(all.includes(Category::io_shuffle));  // taken out of external: counted once
  // A reduce seen by both layers counts once in all.
  TrafficMatrix m;
  m.add(Category::internal, 1, 0, {1, 64});
  m.add(Category::coll, 1, 0, {1, 64});
  EXPECT_EQ(format_matrix(m, all, Metric::bytes, FileFormat::csv, false), "sender,0,1\n0,0,0\n1,64,0\n");
}

// What mpimon place counts by default: every message but the MPI-IO library's shuffle.
TEST(Selection, CommunicationIsAllButTheIoShuffle) {
  const Selection communication = Selection::of("communication");
  for (int c = 0; c < kCategoryCount; ++c) {
    const Category category = static_cast<Category>(c);
    EXPECT_EQ(communication.includes(category), Selection::all().includes(category) && category != Category::io_shuffle)
        << category_name(category);
  }
  EXPECT_TRUE(Selection::of("io_shuffle").includes(Category::io_shuffle));
}

TEST(Selection, OscSumsBothOneSidedCategories) {
  const Selection osc = Selection::of("osc");
  EXPECT_TRUE(osc.includes(Category::osc_sent));
  EXPECT_TRUE(osc.includes(Category::osc_recv));
  EXPECT_FALSE(osc.includes(Category::external));
  EXPECT_EQ(Selection::names(), (std::vector<std::string>{"external", "internal", "coll", "osc_sent", "osc_recv",
                                                          "io_shuffle", "osc", "communication", "all"}));
  EXPECT_THROW(Selection::of("everything"), std::invalid_argument);
}

TEST(TrafficMatrix, GetsAreOrientedFromTheTargetToTheOrigin) {
  TrafficMatrix m;
  m.add(Category::osc_recv, 0, 1, {1, 16});  // rank 0 read 16 bytes from rank 1
  m.add(Category::osc_sent, 0, 2, {1, 8});   // rank 0 put 8 bytes into rank 2
  EXPECT_EQ(m.at(Category::osc_recv, 1, 0).bytes, 16u);
  EXPECT_EQ(m.at(Category::osc_recv, 0, 1).bytes, 0u);
  EXPECT_EQ(format_matrix(m, Selection::of("osc"), Metric::bytes, FileFormat::sparse_csv, false),
            "sender,receiver,bytes\n0,2,8\n1,0,16\n");
}

TEST(TrafficMatrix, RecordsOfOnePairAreSummed) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {1, 10});
  m.add(Category::external, 0, 1, {2, 20});
  EXPECT_EQ(m.at(Category::external, 0, 1).messages, 3u);
  EXPECT_EQ(m.at(Category::external, 0, 1).bytes, 30u);
  EXPECT_EQ(m.non_zeros(), 1u);
}

TEST(TrafficMatrix, SumsReachingTheLimitAreErrorsNotWrapArounds) {
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {kCountLimit - 1, 1});
  m.add(Category::external, 0, 1, {1, 1});
  EXPECT_NE(error_of([&] { m.finish(); }).find("expected counts below 2^60"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Formats

TEST(MatrixFormats, ProfileToMatTextIsProfile2matsFormat) {
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::messages, FileFormat::mat, false), "0 3 0 \n1 0 0 \n0 0 0 \n");
}

TEST(MatrixFormats, SymmetricAveragesBothDirectionsAsProfile2matDoes) {
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::messages, FileFormat::mat, true), "0 2 0 \n2 0 0 \n0 0 0 \n");
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::bytes, FileFormat::mat, true), "0 20 0 \n20 0 0 \n0 0 0 \n");
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::average, FileFormat::mat, true), "0 10 0 \n10 0 0 \n0 0 0 \n");
  // The exact formats keep the halves.
  EXPECT_EQ(format_matrix(small(), Selection::of("internal"), Metric::messages, FileFormat::sparse_csv, true),
            "sender,receiver,messages\n0,2,1\n2,0,1\n");
  TrafficMatrix odd;
  odd.add(Category::external, 0, 1, {3, 3});
  EXPECT_EQ(format_matrix(odd, kExternal, Metric::messages, FileFormat::csv, true), "sender,0,1\n0,0,1.5\n1,1.5,0\n");
}

TEST(MatrixFormats, CsvHasAHeaderAndOneRowPerSender) {
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::bytes, FileFormat::csv, false),
            "sender,0,1,2\n0,0,30,0\n1,10,0,0\n2,0,0,0\n");
}

TEST(MatrixFormats, AverageIsBytesPerMessage) {
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::average, FileFormat::csv, false),
            "sender,0,1,2\n0,0,10,0\n1,10,0,0\n2,0,0,0\n");
  TrafficMatrix m;
  m.add(Category::external, 0, 1, {3, 10});
  EXPECT_EQ(format_matrix(m, kExternal, Metric::average, FileFormat::sparse_csv, false),
            "sender,receiver,average\n0,1,3.3333333333333335\n");
}

TEST(MatrixFormats, AllSumsItsCategories) {
  EXPECT_EQ(format_matrix(small(), Selection::all(), Metric::messages, FileFormat::csv, false),
            "sender,0,1,2\n0,0,3,0\n1,1,0,0\n2,2,0,0\n");
}

TEST(MatrixFormats, MatrixMarketListsOnlyNonZerosOneBased) {
  EXPECT_EQ(format_matrix(small(), kExternal, Metric::messages, FileFormat::matrix_market, false),
            "%%MatrixMarket matrix coordinate real general\n"
            "% mpimon: external msg, row = sender, column = receiver\n"
            "3 3 2\n1 2 3\n2 1 1\n");
}

TEST(MatrixFormats, TextTableOfASumIsOneTable) {
  EXPECT_EQ(format_text_matrix(small(), Selection::all(), Metric::messages),
            "      0 1 2   <- receiver\n"
            " 0 |  . 3 .\n"
            " 1 |  1 . .\n"
            " 2 |  2 . .\n");
}

TEST(MatrixFormats, DenseFormatsStopAtTheirDocumentedSizes) {
  TrafficMatrix m;
  m.add(Category::external, 0, 99999, {1, 8});  // 100 000 ranks, one non-zero
  const std::string text = error_of([&] { format_text_matrix(m, kExternal, Metric::bytes); });
  EXPECT_EQ(text.rfind("100000 ranks: the terminal table stops at 128 ranks", 0), 0u) << text;
  EXPECT_NE(text.find("--format sparse"), std::string::npos) << text;
  EXPECT_NE(error_of([&] {
              format_matrix(m, kExternal, Metric::bytes, FileFormat::csv, false);
            }).find("--format csv stops at 4096 ranks"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              format_matrix(m, kExternal, Metric::bytes, FileFormat::mat, true);
            }).find("--format mat stops at 4096 ranks"),
            std::string::npos);
  // Sparse formats are O(non-zeros) at any size, up to the highest MPI rank.
  EXPECT_EQ(format_matrix(m, kExternal, Metric::bytes, FileFormat::sparse_csv, false),
            "sender,receiver,bytes\n0,99999,8\n");
  TrafficMatrix widest;
  widest.add(Category::external, kMaxRank, kMaxRank, {1, 8});
  EXPECT_EQ(format_matrix(widest, kExternal, Metric::bytes, FileFormat::matrix_market, false),
            "%%MatrixMarket matrix coordinate real general\n"
            "% mpimon: external size, row = sender, column = receiver\n"
            "2147483647 2147483647 1\n2147483647 2147483647 8\n");
}

}  // namespace
}  // namespace mpimon::tools
