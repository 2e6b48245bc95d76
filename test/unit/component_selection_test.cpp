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

// io and topo: Open MPI has no monitoring component there; a selection naming others only
// gains ours (our io component then picks the real one among them, docs/io.md).
TEST(ComponentSelection, IoAndTopoSelectionsGainOursAndNothingElse) {
  EXPECT_EQ(merge_selection("ompio", false), "ompio,mpimon");
  EXPECT_EQ(merge_selection("romio321,ompio", false), "romio321,ompio,mpimon");
  EXPECT_EQ(merge_selection("ompio,monitoring", false), "ompio,mpimon");  // our former name
  EXPECT_EQ(merge_selection("ompio,mpimon", false), "ompio,mpimon");      // named already
  EXPECT_EQ(merge_selection("^romio321", false), "^romio321");            // an exclusion keeps ours in
  EXPECT_EQ(merge_selection("^monitoring", false), "^mpimon");            // the user excluded ours
  EXPECT_EQ(merge_selection("^mpimon", false), "^mpimon");
  EXPECT_EQ(merge_selection("monitoringx", false), "monitoringx,mpimon");
  EXPECT_EQ(merge_selection("", false), "");  // nothing selected: nothing set
}

TEST(ComponentSelection, EveryFormOfAnIoSelectionInMpirunArgumentsIsMerged) {
  const std::vector<std::string> in{
      "-np",  "4", "--mca", "io", "ompio", "-mca", "io", "^romio321", "-x", "OMPI_MCA_io=ompio", "-x", "OMPI_MCA_ioX=a",
      "./app"};
  const std::vector<std::string> out{"-np",          "4",
                                     "--mca",        "io",
                                     "ompio,mpimon", "-mca",
                                     "io",           "^romio321",
                                     "-x",           "OMPI_MCA_io=ompio,mpimon",
                                     "-x",           "OMPI_MCA_ioX=a",
                                     "./app"};
  EXPECT_EQ(merge_selection_arguments(in), out);
  EXPECT_EQ(merge_selection_arguments({"--mca", "io"}), (std::vector<std::string>{"--mca", "io"}));  // left to mpirun
}

TEST(ComponentSelection, IoIsSetInTheEnvironmentOnlyWhenTheCallerSelectedIt) {
  const auto unset = job_environment("/plugins", [](const std::string&) { return std::nullopt; });
  for (const auto& [name, value] : unset) {
    EXPECT_NE(name, "OMPI_MCA_io");
    EXPECT_NE(name, "OMPI_MCA_topo");
  }
  const auto set = job_environment("/plugins", [](const std::string& name) -> std::optional<std::string> {
    if (name == "OMPI_MCA_io") return "romio321";
    return std::nullopt;
  });
  const std::map<std::string, std::string> got(set.begin(), set.end());
  EXPECT_EQ(got.at("OMPI_MCA_io"), "romio321,mpimon");
}

}  // namespace
}  // namespace mpimon::tools
