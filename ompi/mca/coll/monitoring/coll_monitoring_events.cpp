// Collective MPI_T events. Blocking collectives: begin at entry, end when the call
// returns, both in the application's context (callbacks may call MPI: no requirement, or
// thread safety under MPI_THREAD_MULTIPLE). Nonblocking ones: begin at the call, end at
// request completion, from a one-shot completion callback (inside progress: callbacks
// must not call MPI), installed only while a tool listens. Only the outermost collective
// raises events (the one the application called), like the accounting.
#include "coll_monitoring_events.h"

namespace mpimon::coll {

EventFlags coll_event_flags{};

namespace {

int begin_index = -1, end_index = -1;
MPI_T_cb_safety application_context = MPI_T_CB_REQUIRE_NONE;
MPI_T_cb_safety progress_context = MPI_T_CB_REQUIRE_MPI_RESTRICTED;

// What the completion callback needs; the request's callback data while it is pending.
struct PendingEnd {
  ompi_communicator_t* comm;
  mpimon_coll_event event;
};

int completed(ompi_request_t* request) {
  auto* pending = static_cast<PendingEnd*>(request->req_complete_cb_data);
  request->req_complete_cb_data = nullptr;
  if (pending != nullptr) {
    mpimon_events_raise(end_index, pending->comm, &pending->event, MPIMON_EVENTS_NOW, progress_context);
    delete pending;
  }
  return 0;
}

}  // namespace

void start_events(bool threaded) {
  application_context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE;
  progress_context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  begin_index = mpimon_events_find_type(MPIMON_EVENT_COLL_BEGIN);
  end_index = mpimon_events_find_type(MPIMON_EVENT_COLL_END);
  if (begin_index >= 0) mpimon_events_watch(begin_index, &coll_event_flags.flag[0]);
  if (end_index >= 0) mpimon_events_watch(end_index, &coll_event_flags.flag[1]);
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

void raise_end_at_completion(ompi_request_t* request, ompi_communicator_t* comm, const mpimon_coll_event& event) {
  if (request == nullptr || request == &ompi_request_empty) {
    raise_end(comm, event, application_context);  // complete already (the shared empty request)
    return;
  }
  // A request whose module uses the one completion-callback slot itself gets no end event.
  if (request->req_complete_cb != nullptr) return;
  ompi_request_set_callback(request, completed, new PendingEnd{comm, event});
}

}  // namespace mpimon::coll
