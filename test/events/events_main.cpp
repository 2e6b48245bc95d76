// The conformance suite runs under MPI_T only (no MPI_Init, no mpirun): a singleton
// process. Before initialising MPI_T it records what all 20 functions return, for the
// Initialization tests.
#include <gtest/gtest.h>

#include <cstdlib>

#include "events_not_initialized.h"

std::vector<int> g_codes_before_init;

int main(int argc, char** argv) {
  // Containers run tests as root; Open MPI refuses that unless told (ctest's ENVIRONMENT
  // property carries one entry only for discovered tests).
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  g_codes_before_init = call_all_twenty();
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();  // ctest's discovery: no MPI_T
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 2;
  const int rc = RUN_ALL_TESTS();
  MPI_T_finalize();
  return rc;
}
