// Conformance of the MPI_T events library with MPI 4.0, Registrations' info: suite Handles, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <vector>

#include "conformance_support.h"

using namespace events_test;

TEST(Handles, InfoCallsOnAValidHandle) {
  const int t = type("ev_handle_info", source("src_handles"));
  MPI_T_event_registration reg = alloc(t);
  MPI_Info info = MPI_INFO_NULL;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_set_info(reg, MPI_INFO_NULL));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_get_info(reg, &info));
  EXPECT_NE(MPI_INFO_NULL, info);
  mpimon_events_test_info_free(&info);
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, &info));
  EXPECT_NE(MPI_INFO_NULL, info);
  mpimon_events_test_info_free(&info);
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_handle_get_info(reg, nullptr));
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// Allocation and release stay O(log n) each: 200 000 handles (each bound to one of two
// communicators) come and go far within the test's time limit; a reservation of exactly
// one more element per allocation, or a linear search per free, took minutes.
TEST(Handles, ManyHandlesAllocateAndFreeInLogarithmicTime) {
  const int t = type("ev_handles_many", source("src_handles"), MPI_T_BIND_MPI_COMM);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
  std::vector<MPI_T_event_registration> regs(200000);
  for (std::size_t i = 0; i < regs.size(); ++i)
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_alloc(t, &comms[i % 2], MPI_INFO_NULL, &regs[i]));
  for (MPI_T_event_registration reg : regs) ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
}

TEST(Handles, AllocRejectsBadIndexAndNullOutput) {
  MPI_T_event_registration reg;
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_handle_alloc(-1, nullptr, MPI_INFO_NULL, &reg));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_handle_alloc(num_types(), nullptr, MPI_INFO_NULL, &reg));
  const int t = type("ev_handle_null_out", source("src_handles"));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_handle_alloc(t, nullptr, MPI_INFO_NULL, nullptr));
}
