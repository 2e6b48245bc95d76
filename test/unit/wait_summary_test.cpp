// The tools' view of RMA wait states: the paper's Table 2 and who-made-whom-wait matrices
// from job-file annotations.
#include <gtest/gtest.h>

#include "formats/job_format.h"
#include "matrix_formats.h"
#include "readers/job_reader.h"
#include "wait_summary.h"

namespace mpimon::tools {
namespace {

// What read_dumps gives for a job file of 2 ranks with these lines.
Dumps dumps() {
  auto a = [](std::string keyword, std::vector<std::string> fields) {
    return JobAnnotation{std::move(keyword), std::move(fields), 1};
  };
  Dumps d;
  d.files = {"job.txt"};
  d.have_header = true;
  d.header.world_size = 2;
  d.window_syncs = {{0, "halo x", "fence", 10, 2.0}, {1, "halo x", "fence", 10, 1.0}};
  d.annotations = {
      a("wait_state", {"0", "halo%20x", "wait_at_fence", "1", "4", "1.500000000"}),
      a("wait_state", {"0", "halo%20x", "early_fence", "1", "2", "0.500000000"}),
      a("wait_state", {"1", "other", "late_post", "0", "1", "0.250000000"}),
      a("wait_window", {"0", "halo%20x", "0.100000000", "0", "0.000000000", "0.000002000", "0.000010000"}),
      a("wait_window", {"1", "halo%20x", "0.300000000", "3", "-5.000000000", "-", "0.000020000"}),
      a("wait_process_time", {"0", "5.000000000"}),
      a("wait_process_time", {"1", "5.000000000"}),
  };
  return d;
}

TEST(WaitSummary, TotalsPerPatternAndWindowAgainstTheJobsTime) {
  const WaitSummary s = summarize_waits(dumps());
  EXPECT_TRUE(s.has_wait_states);
  EXPECT_DOUBLE_EQ(s.total_seconds, 10.0);
  EXPECT_DOUBLE_EQ(s.job.sync_seconds, 3.0);
  EXPECT_DOUBLE_EQ(s.job.rma_seconds, 0.4);
  EXPECT_DOUBLE_EQ(s.job.seconds[static_cast<int>(Pattern::wait_at_fence)], 1.5);
  EXPECT_EQ(s.job.counts[static_cast<int>(Pattern::wait_at_fence)], 4u);
  EXPECT_DOUBLE_EQ(s.windows.at("halo x").seconds[static_cast<int>(Pattern::early_fence)], 0.5);
  EXPECT_DOUBLE_EQ(s.windows.at("other").seconds[static_cast<int>(Pattern::late_post)], 0.25);
  EXPECT_EQ(s.unmatched, 3u);
  EXPECT_DOUBLE_EQ(s.max_clock_drift, 2e-6);
  EXPECT_DOUBLE_EQ(s.max_clock_uncertainty, 2e-5);
  EXPECT_FALSE(summarize_waits(Dumps{}).has_wait_states);
  Dumps outside = dumps();
  outside.annotations.push_back({"wait_state", {"2", "w", "late_post", "0", "1", "0.1"}, 9});  // rank 2 of 2
  EXPECT_THROW(summarize_waits(outside), FormatError);
}

TEST(WaitSummary, TableRowsInThePapersOrderWithShares) {
  const WaitSummary s = summarize_waits(dumps());
  const std::string text = format_wait_table({{"run", s}}, false);
  EXPECT_EQ(text,
            "metric               run [s]      %\n"
            "Total time            10.000  100.0\n"
            "RMA synchronisation    3.000   30.0\n"
            "  Wait at Fence        1.500   15.0\n"
            "    Early Fence        0.500    5.0\n"
            "  Early Wait           0.000    0.0\n"
            "    Late Complete      0.000    0.0\n"
            "  Late Post            0.250    2.5\n"
            "  Lock Competition     0.000    0.0\n"
            "RMA communication      0.400    4.0\n"
            "  Early Transfer       0.000    0.0\n");
  const std::string markdown = format_wait_table({{"a", s}, {"b", s}}, true);
  EXPECT_EQ(markdown.substr(0, markdown.find('\n')), "| metric | a [s] | % | b [s] | % |");
  EXPECT_NE(markdown.find("| ---- Early Fence | 0.500 | 5.0 | 0.500 | 5.0 |"), std::string::npos) << markdown;
}

TEST(WaitSummary, WhoMadeWhomWaitPerPatternOrAll) {
  const WaitMatrix fence = read_wait_matrix(dumps(), "wait_at_fence");
  ASSERT_EQ(fence.cells.size(), 1u);
  EXPECT_DOUBLE_EQ(fence.cells.at({0, 1}).seconds, 1.5);
  EXPECT_EQ(format_wait_matrix(fence, WaitMatrixFormat::csv, true), "waiter,0,1\n0,0,4\n1,0,0\n");
  const WaitMatrix all = read_wait_matrix(dumps(), "all");
  EXPECT_EQ(format_wait_matrix(all, WaitMatrixFormat::sparse_csv, false),
            "waiter,culprit,seconds\n0,1,2.000000\n1,0,0.250000\n");
  EXPECT_EQ(format_wait_matrix(all, WaitMatrixFormat::matrix_market, false),
            "%%MatrixMarket matrix coordinate real general\n"
            "% row: waiting rank, column: the rank it waited for (1-based); seconds\n"
            "2 2 2\n1 2 2.000000\n2 1 0.250000\n");
  const std::string text = format_wait_matrix(all, WaitMatrixFormat::text, false);
  EXPECT_NE(text.find("waited for"), std::string::npos);
  EXPECT_NE(text.find("2.000000"), std::string::npos) << text;
  EXPECT_EQ(wait_pattern_choices().back(), "all");
  WaitMatrix huge;
  huge.ranks = kDenseTextRanks + 1;
  huge.cells[{0, 1}] = {1.0, 1};
  EXPECT_THROW(format_wait_matrix(huge, WaitMatrixFormat::text, false), std::invalid_argument);
  EXPECT_NO_THROW(format_wait_matrix(huge, WaitMatrixFormat::csv, false));
  huge.ranks = kDenseFileRanks + 1;
  EXPECT_THROW(format_wait_matrix(huge, WaitMatrixFormat::csv, false), std::invalid_argument);
  EXPECT_NO_THROW(format_wait_matrix(huge, WaitMatrixFormat::matrix_market, false));
}

}  // namespace
}  // namespace mpimon::tools
