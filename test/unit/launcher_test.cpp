// `mpimon run`: merging our component into the user's component selections (launcher.h).
#include <gtest/gtest.h>

#include "launcher.h"

namespace mpimon::tools {
namespace {

using Args = std::vector<std::string>;

TEST(Launcher, OursJoinsAnIoSelectionThatLeavesItOut) {
  EXPECT_EQ(merged_selection("ompio"), "monitoring,ompio");
  EXPECT_EQ(merged_selection("romio321,ompio"), "monitoring,romio321,ompio");
  EXPECT_EQ(merged_selection("ompio,monitoring"), "ompio,monitoring");  // named already
  EXPECT_EQ(merged_selection("^romio321"), "^romio321");                // an exclusion keeps ours in
  EXPECT_EQ(merged_selection("^monitoring"), "^monitoring");            // the user excluded ours
  EXPECT_EQ(merged_selection("monitoringx"), "monitoring,monitoringx");
}

TEST(Launcher, EveryFormOfTheSelectionInMpirunArguments) {
  const Args in = {"-np",   "4",   "--mca", "io",    "ompio", "-mca", "io", "romio321", "-x", "OMPI_MCA_io=ompio",
                   "--mca", "pml", "ob1",   "./app", "arg"};
  const Args out = {"-np",
                    "4",
                    "--mca",
                    "io",
                    "monitoring,ompio",
                    "-mca",
                    "io",
                    "monitoring,romio321",
                    "-x",
                    "OMPI_MCA_io=monitoring,ompio",
                    "--mca",
                    "pml",
                    "ob1",
                    "./app",
                    "arg"};
  EXPECT_EQ(merge_selections(in, {"io"}), out);
  EXPECT_EQ(merge_selections({"--mca", "io"}, {"io"}), (Args{"--mca", "io"}));  // no value: left to mpirun
}

}  // namespace
}  // namespace mpimon::tools
