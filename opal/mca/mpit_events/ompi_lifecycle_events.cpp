// Registers Open MPI main's lifecycle event types we raise (ompi_lifecycle_events.h): the
// source "ompi" and six types, with main's names, bindings, verbosities and element
// layouts (main: ompi/runtime/ompi_mpit_register_events.c). Element names are those of
// main's specification (specs/mpi-t-events/spec.md, section 7); main itself gives no
// element enum, ours names them as for our other events.
#include "ompi_lifecycle_events.h"

#include <cstddef>
#include <mutex>

#include "catalogue_registration.h"
#include "mpit_events_producer.h"

namespace {

// main's lifecycle types are unbound: one handle sees every object.
template <size_t N>
void lifecycle_type(const char* name, const char* description, int verbosity, int source_index,
                    const mpimon_event_element (&elements)[N], size_t extent) {
  mpimon::events::register_event_type(name, description, MPI_T_BIND_NO_OBJECT, source_index, elements,
                                      static_cast<int>(N), extent, nullptr, verbosity);
}

void register_all() {
  const int ompi = mpimon::events::register_ordered_source(
      MPIMON_OMPI_SOURCE, "Open MPI main's lifecycle events (communicators, windows), raised by mpimon's layers");

  static const mpimon_event_element initialization[] = {
      {"model", MPI_INT32_T, offsetof(mpimon_ompi_initialization_event, model)},
      {"thread_level", MPI_INT32_T, offsetof(mpimon_ompi_initialization_event, thread_level)},
      {"world_rank", MPI_INT32_T, offsetof(mpimon_ompi_initialization_event, world_rank)},
      {"world_size", MPI_INT32_T, offsetof(mpimon_ompi_initialization_event, world_size)},
      {"instance_id", MPI_UINT64_T, offsetof(mpimon_ompi_initialization_event, instance_id)},
  };
  static const mpimon_event_element finalization[] = {
      {"model", MPI_INT32_T, offsetof(mpimon_ompi_finalization_event, model)},
      {"world_rank", MPI_INT32_T, offsetof(mpimon_ompi_finalization_event, world_rank)},
      {"instance_id", MPI_UINT64_T, offsetof(mpimon_ompi_finalization_event, instance_id)},
  };
  static const mpimon_event_element comm_created[] = {
      {"size", MPI_INT32_T, offsetof(mpimon_ompi_comm_created_event, size)},
      {"handle", MPI_UINT64_T, offsetof(mpimon_ompi_comm_created_event, handle)},
  };
  static const mpimon_event_element comm_freed[] = {
      {"handle", MPI_UINT64_T, offsetof(mpimon_ompi_comm_freed_event, handle)},
  };
  static const mpimon_event_element win_created[] = {
      {"size", MPI_INT64_T, offsetof(mpimon_ompi_win_created_event, size)},
      {"disp_unit", MPI_INT32_T, offsetof(mpimon_ompi_win_created_event, disp_unit)},
      {"flavor", MPI_INT32_T, offsetof(mpimon_ompi_win_created_event, flavor)},
      {"handle", MPI_UINT64_T, offsetof(mpimon_ompi_win_created_event, handle)},
  };
  static const mpimon_event_element win_freed[] = {
      {"flavor", MPI_INT32_T, offsetof(mpimon_ompi_win_freed_event, flavor)},
      {"handle", MPI_UINT64_T, offsetof(mpimon_ompi_win_freed_event, handle)},
  };
  // main's verbosities: OPAL_INFO_LVL_2 (user detail) for MPI_Init/MPI_Finalize and
  // communicators, _4 (tuner basic) for windows.
  lifecycle_type(MPIMON_EVENT_OMPI_INITIALIZATION, "MPI was initialized (the end of MPI_Init)",
                 MPI_T_VERBOSITY_USER_DETAIL, ompi, initialization, sizeof(mpimon_ompi_initialization_event));
  lifecycle_type(MPIMON_EVENT_OMPI_FINALIZATION, "MPI is being finalized (the start of MPI_Finalize)",
                 MPI_T_VERBOSITY_USER_DETAIL, ompi, finalization, sizeof(mpimon_ompi_finalization_event));
  lifecycle_type(MPIMON_EVENT_OMPI_COMM_CREATED, "a communicator was created (this process is a member)",
                 MPI_T_VERBOSITY_USER_DETAIL, ompi, comm_created, sizeof(mpimon_ompi_comm_created_event));
  lifecycle_type(MPIMON_EVENT_OMPI_COMM_FREED, "a communicator was freed", MPI_T_VERBOSITY_USER_DETAIL, ompi,
                 comm_freed, sizeof(mpimon_ompi_comm_freed_event));
  lifecycle_type(MPIMON_EVENT_OMPI_WIN_CREATED, "a one-sided window was created", MPI_T_VERBOSITY_TUNER_BASIC, ompi,
                 win_created, sizeof(mpimon_ompi_win_created_event));
  lifecycle_type(MPIMON_EVENT_OMPI_WIN_FREED, "a one-sided window was freed", MPI_T_VERBOSITY_TUNER_BASIC, ompi,
                 win_freed, sizeof(mpimon_ompi_win_freed_event));
}

}  // namespace

extern "C" void mpimon_register_ompi_lifecycle_events(void) {
  static std::once_flag once;
  std::call_once(once, register_all);
}
