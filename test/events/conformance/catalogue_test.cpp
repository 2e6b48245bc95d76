// Conformance of the MPI_T events library with MPI 4.0, The communication catalogue: suite Catalogue, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "communication_events.h"
#include "conformance_support.h"
#include "ompi_lifecycle_events.h"

using namespace events_test;

TEST(Catalogue, ElevenTypesAndFourSourcesVisibleRightAfterInit) {
  for (const char* name :
       {MPIMON_EVENT_PML_SEND_POSTED, MPIMON_EVENT_PML_RECV_POSTED, MPIMON_EVENT_PML_SEND_COMPLETED,
        MPIMON_EVENT_PML_RECV_COMPLETED, MPIMON_EVENT_COLL_BEGIN, MPIMON_EVENT_COLL_END, MPIMON_EVENT_OSC_OP_ISSUED,
        MPIMON_EVENT_OSC_SYNC_BEGIN, MPIMON_EVENT_OSC_SYNC_END, MPIMON_EVENT_IO_ACCESS, MPIMON_EVENT_IO_FS_OPERATION}) {
    int index = -1;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_index(name, &index)) << name;
    EXPECT_EQ(name, type_name(index));
  }
  std::set<std::string> sources;
  for (const auto& [name, order] : sources_by_name()) {
    if (name.rfind("mpimon_", 0) == 0) {
      sources.insert(name);
      EXPECT_EQ(MPI_T_SOURCE_ORDERED, order) << name;
    }
  }
  EXPECT_EQ((std::set<std::string>{"mpimon_pml", "mpimon_coll", "mpimon_osc", "mpimon_io"}), sources);
}

// Open MPI main's lifecycle types (ompi_lifecycle_events.h) as main registers them
// (main: ompi/runtime/ompi_mpit_register_events.c): full names, source "ompi" (ORDERED),
// unbound, verbosity, element datatypes and displacements; and only the six we raise.
TEST(Catalogue, OpenMpiMainsLifecycleTypesHaveMainsNamesAndLayouts) {
  struct Main {
    const char* name;
    int verbosity;
    std::vector<MPI_Datatype> types;
    std::vector<MPI_Aint> displacements;
  };
  const Main expected[] = {
      {"ompi.mpi.initialization",
       MPI_T_VERBOSITY_USER_DETAIL,
       {MPI_INT32_T, MPI_INT32_T, MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T},
       {0, 4, 8, 12, 16}},
      {"ompi.mpi.finalization", MPI_T_VERBOSITY_USER_DETAIL, {MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T}, {0, 4, 8}},
      {"ompi.mpi.communicator_created", MPI_T_VERBOSITY_USER_DETAIL, {MPI_INT32_T, MPI_UINT64_T}, {0, 8}},
      {"ompi.mpi.communicator_freed", MPI_T_VERBOSITY_USER_DETAIL, {MPI_UINT64_T}, {0}},
      {"ompi.mpi.win_created",
       MPI_T_VERBOSITY_TUNER_BASIC,
       {MPI_INT64_T, MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T},
       {0, 8, 12, 16}},
      {"ompi.mpi.win_freed", MPI_T_VERBOSITY_TUNER_BASIC, {MPI_INT32_T, MPI_UINT64_T}, {0, 8}},
  };
  const auto sources = sources_by_name();
  ASSERT_EQ(1u, sources.count(MPIMON_OMPI_SOURCE));
  EXPECT_EQ(MPI_T_SOURCE_ORDERED, sources.at(MPIMON_OMPI_SOURCE));
  for (const Main& e : expected) {
    int index = -1;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_index(e.name, &index)) << e.name;
    MPI_Datatype types[8];
    MPI_Aint displacements[8];
    int n = 8, bind = -1, verbosity = -1;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, nullptr, nullptr, &verbosity, types, displacements, &n, nullptr,
                                                nullptr, nullptr, nullptr, &bind));
    EXPECT_EQ(MPI_T_BIND_NO_OBJECT, bind) << e.name;
    EXPECT_EQ(e.verbosity, verbosity) << e.name;
    ASSERT_EQ(static_cast<int>(e.types.size()), n) << e.name;
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(e.types[i], types[i]) << e.name << " element " << i;
      EXPECT_EQ(e.displacements[i], displacements[i]) << e.name << " element " << i;
    }
  }
  // main's other types are not registered: nobody here would raise them.
  int index;
  for (const char* never :
       {"ompi.mpi.communicator_name_set", "ompi.mpi.errhandler_invoked", "ompi.mca.memory.patcher.released"})
    EXPECT_EQ(MPI_T_ERR_INVALID_NAME, MPI_T_event_get_index(never, &index)) << never;
  EXPECT_EQ(sizeof(mpimon_ompi_win_created_event), 24u);
  EXPECT_EQ(sizeof(mpimon_ompi_comm_created_event), 16u);
  EXPECT_EQ(sizeof(mpimon_ompi_initialization_event), 24u);
}

TEST(Catalogue, PmlTypeDescribesItsPayload) {
  int index = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_index(MPIMON_EVENT_PML_SEND_POSTED, &index));
  MPI_Datatype types[8];
  MPI_Aint displacements[8];
  int n = 8, bind = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, nullptr, nullptr, nullptr, types, displacements, &n, nullptr,
                                              nullptr, nullptr, nullptr, &bind));
  EXPECT_EQ(6, n);
  EXPECT_EQ(MPI_T_BIND_MPI_COMM, bind);
  EXPECT_EQ(MPI_UINT64_T, types[4]);
  EXPECT_EQ(static_cast<MPI_Aint>(offsetof(mpimon_pml_event, bytes)), displacements[4]);
}
