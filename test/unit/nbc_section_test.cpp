// `mpimon report`'s nonblocking-collective section from job-file annotations: sums over
// ranks, the byte-weighted overlap, hostile fields left out.
#include <gtest/gtest.h>

#include "nbc_summary.h"
#include "readers/job_reader.h"
#include "report/sections.h"

using namespace mpimon;
using namespace mpimon::tools;

namespace {

JobAnnotation line(std::vector<std::string> fields) { return JobAnnotation{"nbc_overlap", std::move(fields), 1}; }

}  // namespace

TEST(NbcSection, SumsTheRanksOfEachCommunicatorAndKind) {
  ReportInput input;
  input.annotations = {
      line({"0", "MPI_COMM_WORLD", "iallreduce", "2", "2", "0.004", "0.001", "1000", "250", "0.25",
            "1,0,1,0,0,0,0,0,0,0"}),
      line({"1", "MPI_COMM_WORLD", "iallreduce", "2", "1", "0.002", "0.000", "1000", "750", "0.80",
            "0,0,0,0,0,0,0,1,0,1"}),
      line({"0", "my%20comm", "ibarrier", "1", "0", "0.001", "0", "0", "0", "1.0", "0,0,0,0,0,0,0,0,0,1"}),
  };
  const std::string html = nbc_overlap_section(input);
  EXPECT_NE(html.find("<td class=\"name\">MPI_COMM_WORLD</td><td class=\"name\">iallreduce</td>"
                      "<td>2</td><td>4</td><td>3</td><td>1.500</td><td>0.001000</td><td>0.500</td><td>0.525</td>"
                      "<td>0 (0.250)</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find(">my comm</td>"), std::string::npos) << "names unescaped";
}

TEST(NbcSection, VersionTwoIdentitiesAreNamedByTheirCommunicatorLine) {
  ReportInput input;
  input.annotations = {
      JobAnnotation{"communicator", {"3-00000000000000aa", "halo%20x", "0,1"}, 1},
      line({"0", "3-00000000000000aa", "ibcast", "1", "0", "0.001", "0", "8", "8", "1.0", "0,0,0,0,0,0,0,0,0,1"}),
      line({"1", "3-00000000000000aa", "ibcast", "1", "1", "0.001", "0.001", "0", "0", "-", "0,0,0,0,0,0,0,0,0,0"}),
      line({"0", "4-00000000000000bb", "ibcast", "1", "0", "0.001", "0", "8", "8", "1.0", "0,0,0,0,0,0,0,0,0,1"}),
  };
  const std::string html = nbc_overlap_section(input);
  EXPECT_NE(html.find("<td class=\"name\">halo x</td><td class=\"name\">ibcast</td><td>2</td><td>2</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find(">4-00000000000000bb</td>"), std::string::npos) << "no communicator line: the field itself";
}

TEST(NbcSection, MalformedLinesAreLeftOutAndMarkupEscaped) {
  ReportInput input;
  input.annotations = {
      line({"0", "w", "ibcast", "x", "0", "0", "0", "0", "0", "0", "0,0,0,0,0,0,0,0,0,1"}),
      line({"0", "w", "ibcast", "1", "0", "0", "0", "0", "0", "-1", "0,0,0,0,0,0,0,0,0,1"}),
      line({"0", "w", "ibcast", "1", "0", "0", "0", "0", "0", "1", "0,0,0,0,0,0,0,0,1"}),
      line({"0", "w", "ibcast", "0", "0", "0", "0", "0", "0", "1", "0,0,0,0,0,0,0,0,0,0"}),
      line({"0", "w", "ibcast", "1", "1", "0", "0", "0", "0", "0.5", "0,0,0,0,0,0,0,0,0,0"}),  // mean without calls
      line({"0", "w", "ibcast", "1", "1", "0", "0", "0", "0", "-", "0,0,0,0,0,0,0,0,0,1"}),    // calls without mean
      line({"0", "w"}),
  };
  EXPECT_NE(nbc_overlap_section(input).find("No nonblocking collective recorded"), std::string::npos);
  input.annotations = {line({"0", "<b>", "ibcast", "1", "0", "0", "0", "0", "0", "1", "0,0,0,0,0,0,0,0,0,1"})};
  const std::string html = nbc_overlap_section(input);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;"), std::string::npos);
}

TEST(NbcSection, ReceiveOnlyRanksCountCallsButNoOverlap) {
  ReportInput input;
  input.annotations = {
      line({"0", "w", "ibcast", "1", "1", "0.002", "0.001", "8", "8", "1.000000", "0,0,0,0,0,0,0,0,0,1"}),
      line({"1", "w", "ibcast", "1", "1", "0.002", "0.001", "0", "0", "-", "0,0,0,0,0,0,0,0,0,0"}),
  };
  const std::string html = nbc_overlap_section(input);
  EXPECT_NE(html.find("<td>2</td><td>2</td><td>2</td><td>2.000</td><td>0.002000</td><td>1.000</td><td>1.000</td>"
                      "<td>0 (1.000)</td>"),
            std::string::npos)
      << html;
}

TEST(NbcSection, AtMostSixtyFourRowsTheMostBlockedFirst) {
  ReportInput input;
  for (int c = 0; c < 100; ++c)
    input.annotations.push_back(line({"0", "comm" + std::to_string(1000 + c), "ibarrier", "1", "1", "0.001",
                                      std::to_string(c) + ".0", "0", "0", "-", "0,0,0,0,0,0,0,0,0,0"}));
  const std::string html = nbc_overlap_section(input);
  EXPECT_NE(html.find(">comm1099<"), std::string::npos);
  EXPECT_EQ(html.find(">comm1000<"), std::string::npos);
  EXPECT_NE(html.find("36 more rows not shown"), std::string::npos) << html.substr(html.size() - 300);
}

TEST(NbcSection, AKindWithOnlyUnfollowedCallsSaysNotFollowedNotAnOverlap) {
  ReportInput input;
  input.annotations = {
      JobAnnotation{"communicator", {"5-00000000000000cc", "second", "0,1"}, 1},
      line({"0", "MPI_COMM_WORLD", "iallreduce", "1", "1", "0.004", "0.001", "1000", "0", "0.000000",
            "1,0,0,0,0,0,0,0,0,0"}),
      line({"0", "5-00000000000000cc", "iallreduce", "not", "followed"}),
      line({"1", "5-00000000000000cc", "iallreduce", "not", "followed"}),
      JobAnnotation{"nbc_sampling", {"0", "0", "0"}, 1},
      JobAnnotation{"nbc_sampling", {"1", "0", "0"}, 1},
  };
  const std::string html = nbc_overlap_section(input);
  EXPECT_NE(html.find("<td class=\"name\">second</td><td class=\"name\">iallreduce</td><td>2</td>"
                      "<td colspan=\"8\">not followed</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"name\">MPI_COMM_WORLD</td><td class=\"name\">iallreduce</td><td>1</td><td>1</td>"
                      "<td>1</td><td>4.000</td><td>0.001000</td><td>0.000</td><td>0.000</td>"),
            std::string::npos)
      << "a measured 0 stays a number: " << html;
  EXPECT_NE(html.find("Sampled (coll_monitoring_nbc_sampling 0)"), std::string::npos) << html;

  const std::string text = format_nbc_summary_text(summarize_nbc(input.annotations));
  EXPECT_NE(text.find("second          iallreduce             2      not followed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("MPI_COMM_WORLD  iallreduce             1      1      1       0.001000   0.000          0.000\n"),
            std::string::npos)
      << text;
}

TEST(NbcSection, SamplingLinesOfBothVersionsAreRead) {
  ReportInput input;
  input.annotations = {
      line({"0", "w", "ibcast", "1", "0", "0.001", "0", "8", "8", "1.0", "0,0,0,0,0,0,0,0,0,1"}),
      JobAnnotation{"nbc_sampling", {"0", "128"}, 1},        // before coll_monitoring_nbc_exact_calls
      JobAnnotation{"nbc_sampling", {"1", "128", "64"}, 1},  // with it
      JobAnnotation{"nbc_sampling", {"2", "x", "64"}, 1},    // malformed: left out
  };
  const NbcSummary summary = summarize_nbc(input.annotations);
  EXPECT_EQ(summary.samplings, (std::set<std::string>{"128", "128 after the first 64"}));
  EXPECT_NE(nbc_overlap_section(input).find("Sampled (coll_monitoring_nbc_sampling 128, 128 after the first 64)"),
            std::string::npos);
}

TEST(NbcSection, WithoutLinesShowPrintsNothing) { EXPECT_EQ(format_nbc_summary_text(NbcSummary{}), ""); }
