// `mpimon srun`'s arguments (tools/mpimon/launcher.h): Open MPI's ranks need PMIx.
#include <gtest/gtest.h>

#include "launcher.h"

namespace mpimon::tools {
namespace {

using Arguments = std::vector<std::string>;

TEST(SrunArguments, PmixIsAddedFirstUnlessTheUserChoseAnMpi) {
  EXPECT_EQ(srun_arguments({"-n", "4", "./app"}), (Arguments{"--mpi=pmix", "-n", "4", "./app"}));
  EXPECT_EQ(srun_arguments({"--mpi=pmix_v4", "-n", "4", "./app"}), (Arguments{"--mpi=pmix_v4", "-n", "4", "./app"}));
  EXPECT_EQ(srun_arguments({"--mpi", "pmi2", "./app"}), (Arguments{"--mpi", "pmi2", "./app"}));
  // The program's own --mpi after "--" is not srun's.
  EXPECT_EQ(srun_arguments({"-n", "2", "--", "./app", "--mpi=x"}),
            (Arguments{"--mpi=pmix", "-n", "2", "--", "./app", "--mpi=x"}));
}

}  // namespace
}  // namespace mpimon::tools
