#include "open_mpi_settings.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace mpimon::tools {
namespace {

namespace fs = std::filesystem;

TEST(OpenMpiSettings, ParameterFileValueReadsNameEqualsValueLines) {
  // Debian's /etc/openmpi/openmpi-mca-params.conf, as shipped.
  const std::string debian =
      "# comment\nbtl_base_warn_component_unused=0\nmtl = ^ofi\nbtl = ^uct,openib,ofi\npml = ^ucx\n"
      "osc = ^ucx,pt2pt\n";
  EXPECT_EQ(parameter_file_value(debian, "pml"), "^ucx");
  EXPECT_EQ(parameter_file_value(debian, "osc"), "^ucx,pt2pt");
  EXPECT_EQ(parameter_file_value(debian, "coll"), std::nullopt);
  EXPECT_EQ(parameter_file_value(debian, "btl_base_warn_component_unused"), "0");
}

TEST(OpenMpiSettings, ParameterFileValueIgnoresCommentsAndPrefixesAndTakesTheLastLine) {
  EXPECT_EQ(parameter_file_value("  pml\t=  ob1  # the fast one\n", "pml"), "ob1");
  EXPECT_EQ(parameter_file_value("# pml = ucx\npml_ucx_priority = 90\n", "pml"), std::nullopt);
  EXPECT_EQ(parameter_file_value("pml = ucx\npml = ob1\n", "pml"), "ob1");
  EXPECT_EQ(parameter_file_value("pml = \n", "pml"), "");
}

class OpenMpiSettingFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("mpimon-settings-" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override {
    ::unsetenv("OMPI_MCA_mca_base_param_files");
    ::unsetenv("OMPI_MCA_pml");
    fs::remove_all(folder_);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(folder_ / name) << text;
    return (folder_ / name).string();
  }
  fs::path folder_;
};

TEST_F(OpenMpiSettingFiles, LeftmostFileWinsAndTheEnvironmentBeatsFiles) {
  const std::string user = write("user.conf", "coll = ^hcoll\n");
  const std::string system = write("system.conf", "pml = ^ucx\ncoll = ^han\n");
  const std::string files = user + "," + (folder_ / "missing.conf").string() + "," + system;
  ::setenv("OMPI_MCA_mca_base_param_files", files.c_str(), 1);
  EXPECT_EQ(open_mpi_setting("OMPI_MCA_pml"), "^ucx");
  EXPECT_EQ(open_mpi_setting("OMPI_MCA_coll"), "^hcoll");
  EXPECT_EQ(open_mpi_setting("OMPI_MCA_osc"), std::nullopt);
  ::setenv("OMPI_MCA_pml", "ob1", 1);
  EXPECT_EQ(open_mpi_setting("OMPI_MCA_pml"), "ob1");
  EXPECT_EQ(open_mpi_setting("PMIX_MCA_pml"), std::nullopt) << "only Open MPI's variables are in its files";
}

}  // namespace
}  // namespace mpimon::tools
