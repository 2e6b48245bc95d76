// Conformance of the MPI_T events library with MPI 4.0, 3. The producer registry: suite Registry, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include "conformance_support.h"

using namespace events_test;

TEST(Registry, RejectsPayloadLargerThanTheRingSlot) {
  mpimon_event_type_desc desc{};
  desc.name = "ev_too_big";
  desc.description = "";
  desc.source_index = source("src_reject");
  desc.elements = payload_elements();
  desc.num_elements = 3;
  desc.payload_extent = 65;
  int index = -1;
  EXPECT_EQ(MPI_T_ERR_INVALID, mpimon_events_register_type(&desc, &index));
  EXPECT_EQ(-1, mpimon_events_find_type("ev_too_big"));
}

TEST(Registry, RejectsElementsOutsideTheExtentOrNotAscending) {
  mpimon_event_type_desc desc{};
  desc.name = "ev_bad_layout";
  desc.description = "";
  desc.source_index = source("src_reject");
  desc.elements = payload_elements();
  desc.num_elements = 3;
  desc.payload_extent = 20;  // serial (8 bytes at 16) does not fit
  int index = -1;
  EXPECT_EQ(MPI_T_ERR_INVALID, mpimon_events_register_type(&desc, &index));
  const mpimon_event_element backwards[] = {{"a", MPI_INT, 0}, {"b", MPI_DOUBLE, 8}, {"c", MPI_INT, 4}};
  desc.elements = backwards;
  desc.payload_extent = 24;
  EXPECT_EQ(MPI_T_ERR_INVALID, mpimon_events_register_type(&desc, &index));
}
