// The start-up check's verdict (runtime/deployment_check.h): who lacks our components, who runs
// another version, who says so, in one line.
#include "runtime/deployment_check.h"

#include <gtest/gtest.h>

using mpimon::HostReport;
using mpimon::judge_deployment;

namespace {
const std::string kOurs = "mpimon 0.1.0";
}

TEST(DeploymentCheck, TagNamesTheVersion) { EXPECT_EQ(mpimon::components_tag(0, 1, 0), kOurs); }

TEST(DeploymentCheck, EveryHostWithOurTagIsMonitoredAndNothingIsSaid) {
  const auto v = judge_deployment({{"a", 0, kOurs}, {"b", 4, kOurs}}, kOurs);
  EXPECT_TRUE(v.all_monitored);
  EXPECT_EQ(v.reporting_rank, -1);
  EXPECT_EQ(v.line, "");
}

TEST(DeploymentCheck, AHostWithoutATagIsNamedAndRankZeroReports) {
  const auto v = judge_deployment({{"a", 0, kOurs}, {"b", 4, std::nullopt}}, kOurs);
  EXPECT_FALSE(v.all_monitored);
  EXPECT_EQ(v.reporting_rank, 0);
  EXPECT_EQ(v.line,
            "monitoring off for this job (mpimon 0.1.0): its components are not running on 1 host: b; the job runs on "
            "unmonitored (no dumps, no job file); install the same plugin folder at the same path on every host "
            "(docs/running-on-a-cluster.md)");
}

TEST(DeploymentCheck, WhenRankZerosHostLacksThemTheLowestRankOfAMonitoredHostReports) {
  const auto v = judge_deployment({{"a", 0, std::nullopt}, {"c", 9, kOurs}, {"b", 4, kOurs}}, kOurs);
  EXPECT_FALSE(v.all_monitored);
  EXPECT_EQ(v.reporting_rank, 4);
}

TEST(DeploymentCheck, AnotherVersionIsNamedWithItsTagAndBothVersionsAgreeOnTheReporter) {
  const std::vector<HostReport> reports = {{"a", 0, kOurs}, {"b", 2, "mpimon 0.0.1"}};
  const auto ours = judge_deployment(reports, kOurs);
  const auto theirs = judge_deployment(reports, "mpimon 0.0.1");
  EXPECT_FALSE(ours.all_monitored);
  EXPECT_FALSE(theirs.all_monitored);
  EXPECT_NE(ours.line.find("another version runs on 1 host: b (mpimon 0.0.1);"), std::string::npos) << ours.line;
  EXPECT_EQ(ours.reporting_rank, 0);
  EXPECT_EQ(theirs.reporting_rank, 0);
}

TEST(DeploymentCheck, HostsAreListedByTheirLowestRankAndCappedWithACount) {
  std::vector<HostReport> reports = {{"first", 0, kOurs}};
  for (int h = 12; h >= 1; --h) reports.push_back({"h" + std::to_string(h), h * 10, std::nullopt});
  reports.push_back({"x", 500, "mpimon 9.9.9"});
  const auto v = judge_deployment(reports, kOurs, 3);
  EXPECT_NE(v.line.find("not running on 12 hosts: h1, h2, h3 and 9 more; another version runs on 1 host: x (mpimon "
                        "9.9.9);"),
            std::string::npos)
      << v.line;
}

TEST(DeploymentCheck, PerRankReportsOfOneHostMakeOneEntryAnyRankWithoutTheTagCounts) {
  // The fallback without a node map: one report per rank.
  const auto v = judge_deployment(
      {{"a", 0, kOurs}, {"a", 1, kOurs}, {"b", 2, kOurs}, {"b", 3, std::nullopt}, {"b", 5, kOurs}}, kOurs);
  EXPECT_FALSE(v.all_monitored);
  EXPECT_NE(v.line.find("not running on 1 host: b;"), std::string::npos) << v.line;
  EXPECT_EQ(v.reporting_rank, 0);
}
