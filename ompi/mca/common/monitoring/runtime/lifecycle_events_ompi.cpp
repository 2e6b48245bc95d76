// Open MPI main's initialization and finalization events, raised by our runtime (see the
// header). Payloads as main's (main: ompi/runtime/ompi_mpi_init.c, ompi_mpi_finalize.c);
// the instance_id token is the address of MPI_COMM_WORLD's object (main's is its default
// instance's address: 4.1 has no instances), the same in both events.
#include "runtime/lifecycle_events_ompi.h"

#include <cstdint>

#include "live/listening_flag.h"
#include "mpit_events_producer.h"
#include "ompi_lifecycle_events.h"
#include "runtime/ompi_glue.h"

namespace mpimon {
namespace {

int initialization_index = -1, finalization_index = -1;
unsigned char flags[2] = {};  // initialization, finalization

uint64_t instance_id() { return reinterpret_cast<uintptr_t>(&ompi_mpi_comm_world); }

// The application's own call (MPI_Init, MPI_Finalize): callbacks may call MPI.
MPI_T_cb_safety context(bool threaded) {
  const MPI_T_cb_safety level = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE;
  mpimon_events_drain(level);
  return level;
}

}  // namespace

void watch_lifecycle_events() {
  initialization_index = mpimon_events_find_type(MPIMON_EVENT_OMPI_INITIALIZATION);
  finalization_index = mpimon_events_find_type(MPIMON_EVENT_OMPI_FINALIZATION);
  if (initialization_index >= 0) mpimon_events_watch(initialization_index, &flags[0]);
  if (finalization_index >= 0) mpimon_events_watch(finalization_index, &flags[1]);
}

void raise_initialization(int provided, bool threaded) {
  if (!listening(flags[0])) return;
  const mpimon_ompi_initialization_event e{MPIMON_OMPI_T_MODEL_WORLD, provided,
                                           ompi_comm_rank(&ompi_mpi_comm_world.comm),
                                           ompi_comm_size(&ompi_mpi_comm_world.comm), instance_id()};
  mpimon_events_raise(initialization_index, nullptr, &e, MPIMON_EVENTS_NOW, context(threaded));
}

void raise_finalization(bool threaded) {
  if (!listening(flags[1])) return;
  const mpimon_ompi_finalization_event e{MPIMON_OMPI_T_MODEL_WORLD, ompi_comm_rank(&ompi_mpi_comm_world.comm),
                                         instance_id()};
  mpimon_events_raise(finalization_index, nullptr, &e, MPIMON_EVENTS_NOW, context(threaded));
}

}  // namespace mpimon
