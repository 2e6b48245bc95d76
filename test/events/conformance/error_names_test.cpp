// Conformance of the MPI_T events library with MPI 4.0, Error names: suite ErrorNames, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "conformance_support.h"

using namespace events_test;

TEST(ErrorNames, NewErrorClassesAreNamedAndClassified) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_Error_string(MPI_T_ERR_NOT_ACCESSIBLE, text, &len));
  EXPECT_EQ(0, std::string(text).rfind("MPI_T_ERR_NOT_ACCESSIBLE", 0));
  EXPECT_EQ(static_cast<int>(std::strlen(text)), len);
  ASSERT_EQ(MPI_SUCCESS, MPI_Error_string(MPI_T_ERR_NOT_SUPPORTED, text, &len));
  EXPECT_EQ(0, std::string(text).rfind("MPI_T_ERR_NOT_SUPPORTED", 0));
  int cls = -1;
  EXPECT_EQ(MPI_SUCCESS, MPI_Error_class(MPI_T_ERR_NOT_ACCESSIBLE, &cls));
  EXPECT_EQ(81, cls);
  EXPECT_EQ(MPI_SUCCESS, MPI_Error_class(MPI_T_ERR_NOT_SUPPORTED, &cls));
  EXPECT_EQ(82, cls);
  // Other codes go to Open MPI's, which abort before MPI_Init: checked in
  // before_mpi_init.cpp after MPI_Init.
}
