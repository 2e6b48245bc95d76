#include "component_selection.h"

#include <gtest/gtest.h>

#include <map>

namespace mpimon::tools {
namespace {

TEST(ComponentSelection, NoSelectionExcludesOpenMpisMonitoring) { EXPECT_EQ(merge_selection(""), "^monitoring"); }

TEST(ComponentSelection, ExclusionListGainsOpenMpisMonitoringOnce) {
  EXPECT_EQ(merge_selection("^ucx"), "^ucx,monitoring");
  EXPECT_EQ(merge_selection("^ucx,monitoring"), "^ucx,monitoring");
  EXPECT_EQ(merge_selection("^monitoring"), "^monitoring");
}

TEST(ComponentSelection, InclusionListGainsOurs) {
  EXPECT_EQ(merge_selection("ob1"), "ob1,mpimon");
  EXPECT_EQ(merge_selection("ucx"), "ucx,mpimon");
  EXPECT_EQ(merge_selection("ob1,mpimon"), "ob1,mpimon");
  EXPECT_EQ(merge_selection("tuned,basic,libnbc"), "tuned,basic,libnbc,mpimon");
}

TEST(ComponentSelection, OpenMpisNameInAnInclusionListMeansOurs) {
  EXPECT_EQ(merge_selection("ob1,monitoring"), "ob1,mpimon");
  EXPECT_EQ(merge_selection("monitoring,ob1,mpimon"), "mpimon,ob1");
}

TEST(ComponentSelection, OursExcludedOnPurposeIsKept) {
  EXPECT_EQ(merge_selection("^mpimon"), "^mpimon");
  EXPECT_EQ(merge_selection("^mpimon,monitoring"), "^mpimon,monitoring");
}

TEST(ComponentSelection, EnvironmentMergesTheCallersSelections) {
  const std::map<std::string, std::string> caller{{"OMPI_MCA_pml", "ucx"}, {"OMPI_MCA_coll", "^hcoll"}};
  const auto environment = job_environment("/plugins", [&](const std::string& name) -> std::optional<std::string> {
    const auto it = caller.find(name);
    if (it == caller.end()) return std::nullopt;
    return it->second;
  });
  const std::map<std::string, std::string> got(environment.begin(), environment.end());
  EXPECT_EQ(got.at("OMPI_MCA_mca_base_component_path"), "/plugins:SYS_DEFAULT:USER_DEFAULT");
  EXPECT_EQ(got.at("OMPI_MCA_pml"), "ucx,mpimon");
  EXPECT_EQ(got.at("OMPI_MCA_coll"), "^hcoll,monitoring");
  EXPECT_EQ(got.at("OMPI_MCA_osc"), "^monitoring");
  EXPECT_EQ(got.at("PMIX_MCA_mca_base_component_show_load_errors"), "0");
}

TEST(ComponentSelection, ParameterFileSetsWhatTheEnvironmentSetsWithoutMerging) {
  const std::string file = mca_parameter_file("/plugins");
  EXPECT_NE(file.find("\nmca_base_component_path = /plugins:SYS_DEFAULT:USER_DEFAULT\n"), std::string::npos) << file;
  EXPECT_NE(file.find("\npml = ^monitoring\ncoll = ^monitoring\nosc = ^monitoring\n"), std::string::npos) << file;
  // PMIx's variable cannot be set in Open MPI's parameter file: named in a comment only.
  EXPECT_NE(file.find("\n#   export PMIX_MCA_mca_base_component_show_load_errors=0\n"), std::string::npos) << file;
  EXPECT_EQ(file.find("\nPMIX"), std::string::npos) << file;
}

TEST(ComponentSelection, CommandLineSelectionsOfMonitoredFrameworksAreMerged) {
  const std::vector<std::string> in{"-np",   "4",   "--mca",      "pml",   "ob1",  "-mca",       "osc",   "^rdma",
                                    "--mca", "btl", "self,vader", "--mca", "coll", "monitoring", "./app", "--mca"};
  const std::vector<std::string> out{
      "-np",   "4",   "--mca",      "pml",   "ob1,mpimon", "-mca",   "osc",   "^rdma,monitoring",
      "--mca", "btl", "self,vader", "--mca", "coll",       "mpimon", "./app", "--mca"};
  EXPECT_EQ(merge_selection_arguments(in), out);
}

}  // namespace
}  // namespace mpimon::tools
