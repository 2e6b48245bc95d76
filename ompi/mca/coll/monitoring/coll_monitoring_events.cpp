// Collective MPI_T events. Blocking collectives: begin at entry, end when the call
// returns, both in the application's context (callbacks may call MPI: no requirement, or
// thread safety under MPI_THREAD_MULTIPLE). Nonblocking ones: begin at the call, end at
// request completion, from the request's completion callback (inside progress: callbacks
// must not call MPI; coll_monitoring_nbc.cpp). Only the outermost collective raises
// events (the one the application called), like the accounting.
#include "coll_monitoring_events.h"

#include "runtime/runtime.h"

namespace mpimon::coll {

EventFlags coll_event_flags{};

namespace {

int begin_index = -1, end_index = -1;
int created_index = -1, freed_index = -1;
unsigned char lifecycle_flags[2] = {};  // created, freed (not on any hot path)
MPI_T_cb_safety application_context = MPI_T_CB_REQUIRE_NONE;
MPI_T_cb_safety progress_context = MPI_T_CB_REQUIRE_MPI_RESTRICTED;

}  // namespace

void start_events(bool threaded) {
  application_context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE;
  progress_context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  begin_index = mpimon_events_find_type(MPIMON_EVENT_COLL_BEGIN);
  end_index = mpimon_events_find_type(MPIMON_EVENT_COLL_END);
  if (begin_index >= 0) mpimon_events_watch(begin_index, &coll_event_flags.flag[0]);
  if (end_index >= 0) mpimon_events_watch(end_index, &coll_event_flags.flag[1]);
  created_index = mpimon_events_find_type(MPIMON_EVENT_OMPI_COMM_CREATED);
  freed_index = mpimon_events_find_type(MPIMON_EVENT_OMPI_COMM_FREED);
  if (created_index >= 0) mpimon_events_watch(created_index, &lifecycle_flags[0]);
  if (freed_index >= 0) mpimon_events_watch(freed_index, &lifecycle_flags[1]);
}

MPI_T_cb_safety call_context() {
  mpimon_events_drain(application_context);
  return application_context;
}

void raise_begin(ompi_communicator_t* comm, const mpimon_coll_event& event, MPI_T_cb_safety context) {
  mpimon_events_raise(begin_index, comm, &event, MPIMON_EVENTS_NOW, context);
}

void raise_end(ompi_communicator_t* comm, const mpimon_coll_event& event, MPI_T_cb_safety context) {
  mpimon_events_raise(end_index, comm, &event, MPIMON_EVENTS_NOW, context);
}

void raise_end_in_progress(ompi_communicator_t* comm, const mpimon_coll_event& event) {
  mpimon_events_raise(end_index, comm, &event, MPIMON_EVENTS_NOW, progress_context);
}

namespace {

bool raises_lifecycle(const ompi_communicator_t* comm) {
  return comm != &ompi_mpi_comm_world.comm && comm != &ompi_mpi_comm_self.comm &&
         !mpimon::Runtime::instance().finalize_started();
}

}  // namespace

void raise_communicator_created(ompi_communicator_t* comm) {
  if (!listening(lifecycle_flags[0]) || !raises_lifecycle(comm)) return;
  mpimon_ompi_comm_created_event e{};
  e.size = ompi_comm_size(comm);
  e.handle = reinterpret_cast<uintptr_t>(comm);
  mpimon_events_raise(created_index, comm, &e, MPIMON_EVENTS_NOW, call_context());
}

void raise_communicator_freed(ompi_communicator_t* comm) {
  if (!listening(lifecycle_flags[1]) || !raises_lifecycle(comm)) return;
  const mpimon_ompi_comm_freed_event e{reinterpret_cast<uintptr_t>(comm)};
  mpimon_events_raise(freed_index, comm, &e, MPIMON_EVENTS_NOW, call_context());
}

}  // namespace mpimon::coll
