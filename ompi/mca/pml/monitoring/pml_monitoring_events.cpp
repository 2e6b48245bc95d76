// Point-to-point MPI_T events: send/receive posted and completed.
//
// Posted events are raised when the PML call returns (the request exists then, and its
// address pairs the posted event with the completed one; sends that ob1 completes inside
// MPI_Isend return the shared ompi_request_empty, and both their events, raised back to
// back, carry its address). Completion events come from a
// one-shot request completion callback (ompi_request_set_callback), installed only while a
// tool listens for them; a request whose creator already installed a callback of its own
// is left alone (no completion event for it). Blocking calls raise both events around the
// forwarded call, with request 0.
//
// Callback safety: the events are raised inside point-to-point calls, possibly inside a
// collective or the progress engine, so callbacks must not call MPI
// (MPI_T_CB_REQUIRE_MPI_RESTRICTED; MPI_T_CB_REQUIRE_THREAD_SAFE under
// MPI_THREAD_MULTIPLE). Tools registered at a lower level get the instances later, from
// the events library's queue, at the next safe point (a collective or one-sided call of
// the application, an MPI_T_event_* call, MPI_Finalize). Point-to-point calls are no
// safe point for them, so these wrappers do not drain the queue.
#include "pml_monitoring_events.h"

#include <ompi/communicator/communicator.h>
#include <ompi/mca/pml/base/pml_base_request.h>
#include <ompi/request/request.h>

#include "communication_events.h"
#include "mpit_events_producer.h"
#include "raise_inline.h"
#include "runtime/runtime.h"
#include "runtime/world_rank_ompi.h"

namespace mpimon::pml {

EventFlags pml_event_flags{};

namespace {

using isend_fn = mca_pml_base_module_isend_fn_t;

struct EventState {
  mca_pml_base_module_t original{};
  LocalJob job;
  bool ob1 = false;
  MPI_T_cb_safety context = MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  int index[4] = {-1, -1, -1, -1};          // by EventFlag
  mpimon::events::EventType* type[4] = {};  // by EventFlag, for raise_hot
};
EventState events;

inline bool listened(EventFlag which) { return listening(pml_event_flags.flag[which]); }

inline void raise(EventFlag which, const ompi_communicator_t* comm, const mpimon_pml_event& payload) {
  mpimon_events_raise(events.index[which], comm, &payload, MPIMON_EVENTS_NOW, events.context);
}

// The same without the call into the library, for MPI_Isend, the hottest site (our
// types are bound to the communicator: its address is the object, unmasked), in the
// context of the process's kind (events.context), known at compile time.
template <MPI_T_cb_safety context>
inline void raise_hot(EventFlag which, const ompi_communicator_t* comm, const mpimon_pml_event& payload) {
  mpimon::events::raise_inline(*events.type[which], comm, &payload, MPIMON_EVENTS_NOW, context);
}

// Every field of an event's payload but the request. `on_world`: comm is known to be
// MPI_COMM_WORLD (its id a constant: one load fewer per event on the isend path).
template <bool on_world = false>
inline void describe(mpimon_pml_event& e, const ompi_communicator_t* comm, int rank, int tag, uint64_t bytes) {
  e.comm_id = static_cast<int32_t>(on_world ? mpimon::ompi_release::kWorldLocalContextId
                                            : mpimon::ompi_release::local_context_id(comm));
  if (on_world || comm == &ompi_mpi_comm_world.comm) {
    e.peer = rank;  // MPI_ANY_SOURCE stays -1
  } else {
    e.peer = rank >= 0 ? world_rank_of(comm, rank, events.job) : -1;
  }
  e.peer_comm_rank = rank;
  e.tag = tag;
  e.bytes = bytes;
}

inline mpimon_pml_event payload_of(const ompi_communicator_t* comm, int rank, int tag, uint64_t bytes,
                                   const void* request) {
  mpimon_pml_event e;
  describe(e, comm, rank, tag, bytes);
  e.request = reinterpret_cast<uintptr_t>(request);
  return e;
}

// The communicator of a point-to-point request: ob1's requests share
// mca_pml_base_request_t's layout; other PMLs may fill the generic req_mpi_object.
const ompi_communicator_t* comm_of(const ompi_request_t* request) {
  if (events.ob1) return reinterpret_cast<const mca_pml_base_request_t*>(request)->req_comm;
  return request->req_mpi_object.comm;
}

// Completion callbacks (run by ompi_request_complete, inside progress). They return 0:
// the request then completes as usual.
int send_completed(ompi_request_t* request) {
  const ompi_communicator_t* comm = comm_of(request);
  if (comm == nullptr) return 0;
  if (events.ob1) {
    const auto* base = reinterpret_cast<const mca_pml_base_request_t*>(request);
    raise(send_completed_flag, comm,
          payload_of(comm, base->req_peer, base->req_tag, base->req_count * base->req_datatype->super.size, request));
  } else {  // other PMLs: the request's generic part only
    raise(send_completed_flag, comm, payload_of(comm, -1, -1, 0, request));
  }
  return 0;
}

int recv_completed(ompi_request_t* request) {
  const ompi_communicator_t* comm = comm_of(request);
  if (comm == nullptr) return 0;
  const ompi_status_public_t& status = request->req_status;
  raise(recv_completed_flag, comm,
        payload_of(comm, status.MPI_SOURCE, status.MPI_TAG, static_cast<uint64_t>(status._ucount), request));
  return 0;
}

// Only on a point-to-point request of ours, and only when nobody else uses its one
// callback slot.
void arm(ompi_request_t* request, ompi_request_complete_fn_t callback) {
  if (request->req_type == OMPI_REQUEST_PML && request->req_complete_cb == nullptr)
    ompi_request_set_callback(request, callback, nullptr);
}

// The isend event path for the send events listened to now (below).
void select_isend_path();

}  // namespace

static void call_back(void* function) {
  select_isend_path();
  reinterpret_cast<void (*)()>(function)();
}

void start_events(const mca_pml_base_module_t& original, bool ob1, bool threaded, void (*listeners_changed)()) {
  events.original = original;
  events.ob1 = ob1;
  events.job = LocalJob::of_this_process();
  events.context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  select_isend_path();
  // raise_hot reads the library's structures: only with the library of our own build.
  if (mpimon::events::inline_layout() != mpimon::events::kInlineLayout) {
    warn_once_per_job(
        "MPI_T events are off for point-to-point: the MPI_T events library (libmpimon_mpit_events) does not "
        "come from the same build as the pml plugin; install both from one build");
    return;
  }
  const char* names[4] = {MPIMON_EVENT_PML_SEND_POSTED, MPIMON_EVENT_PML_RECV_POSTED, MPIMON_EVENT_PML_SEND_COMPLETED,
                          MPIMON_EVENT_PML_RECV_COMPLETED};
  for (int i = 0; i < 4; ++i) {
    events.index[i] = mpimon_events_find_type(names[i]);
    if (events.index[i] < 0) continue;
    events.type[i] = mpimon::events::event_type(events.index[i]);
    mpimon_events_watch_notify(events.index[i], &pml_event_flags.flag[i], call_back,
                               reinterpret_cast<void*>(listeners_changed));
  }
}

namespace {
// Returns its argument, out of line: an error return through it keeps the compiler from
// sharing the success path's epilogue, which would keep the return code in a callee-saved
// register across the event's delivery (3 instructions per event).
[[gnu::noinline, gnu::cold]] int failed(int rc) { return rc; }
}  // namespace

namespace {

// Which send events an isend event path raises; `tested`: those whose flag is set, read
// per send (while nobody listens to send events: the wrappers do not take the path then).
enum class SendEvents { posted, completed, both, tested };

template <SendEvents which, MPI_T_cb_safety context, bool on_world>
int isend_raising(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                  mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  constexpr bool tested = which == SendEvents::tested;
  // Both events' payload, built before forwarding: only the request is left to fill in
  // afterwards, so few values must survive the call.
  mpimon_pml_event e;
  describe<on_world>(e, comm, dst, tag, count * datatype->super.size);
  const int rc = events.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
  if (rc != OMPI_SUCCESS) [[unlikely]]
    return failed(rc);
  ompi_request_t* r = *request;
  e.request = reinterpret_cast<uintptr_t>(r);
  if (which == SendEvents::posted || which == SendEvents::both || (tested && listened(send_posted_flag)))
    raise_hot<context>(send_posted_flag, comm, e);
  if (which == SendEvents::completed || which == SendEvents::both || (tested && listened(send_completed_flag))) {
    // ob1 completes small sends inside MPI_Isend and returns the shared, already complete
    // ompi_request_empty: the send is complete now.
    if (r == &ompi_request_empty) {
      raise_hot<context>(send_completed_flag, comm, e);
    } else {
      arm(r, send_completed);
    }
  }
  return OMPI_SUCCESS;  // (not rc: nothing to keep across the calls)
}

template <MPI_T_cb_safety context, bool on_world>
constexpr isend_fn isend_paths[4] = {
    isend_raising<SendEvents::posted, context, on_world>, isend_raising<SendEvents::completed, context, on_world>,
    isend_raising<SendEvents::both, context, on_world>, isend_raising<SendEvents::tested, context, on_world>};

// The isend event path for the send events listened to now (before the wrappers are
// chosen: listeners_changed). A send racing with the change may take the previous path
// (and miss or raise an event of a type whose first listener or last is just arriving
// or leaving, as a send racing with the flag's test would).
void select_isend_path() {
  const bool posted = listened(send_posted_flag), completed = listened(send_completed_flag);
  const SendEvents which = posted && completed ? SendEvents::both
                           : posted            ? SendEvents::posted
                           : completed         ? SendEvents::completed
                                               : SendEvents::tested;
  const bool thread_safe = events.context == MPI_T_CB_REQUIRE_THREAD_SAFE;
  const isend_fn* paths = thread_safe ? isend_paths<MPI_T_CB_REQUIRE_THREAD_SAFE, false>
                                      : isend_paths<MPI_T_CB_REQUIRE_MPI_RESTRICTED, false>;
  const isend_fn* world_paths = thread_safe ? isend_paths<MPI_T_CB_REQUIRE_THREAD_SAFE, true>
                                            : isend_paths<MPI_T_CB_REQUIRE_MPI_RESTRICTED, true>;
  __atomic_store_n(&isend_with_events, paths[static_cast<int>(which)], __ATOMIC_RELAXED);
  __atomic_store_n(&isend_with_events_on_world, world_paths[static_cast<int>(which)], __ATOMIC_RELAXED);
}

}  // namespace

isend_fn isend_with_events = isend_raising<SendEvents::tested, MPI_T_CB_REQUIRE_MPI_RESTRICTED, false>;
isend_fn isend_with_events_on_world = isend_raising<SendEvents::tested, MPI_T_CB_REQUIRE_MPI_RESTRICTED, true>;

int send_with_events(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  const size_t bytes = count * datatype->super.size;
  if (listened(send_posted_flag)) raise(send_posted_flag, comm, payload_of(comm, dst, tag, bytes, nullptr));
  const int rc = events.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
  if (rc == OMPI_SUCCESS && listened(send_completed_flag))
    raise(send_completed_flag, comm, payload_of(comm, dst, tag, bytes, nullptr));
  return rc;
}

int irecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag, ompi_communicator_t* comm,
                      ompi_request_t** request) {
  const int rc = events.original.pml_irecv(buf, count, datatype, src, tag, comm, request);
  if (rc != OMPI_SUCCESS) return rc;
  if (listened(recv_posted_flag))
    raise(recv_posted_flag, comm, payload_of(comm, src, tag, count * datatype->super.size, *request));
  if (listened(recv_completed_flag)) arm(*request, recv_completed);
  return rc;
}

int recv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag, ompi_communicator_t* comm,
                     ompi_status_public_t* status) {
  if (listened(recv_posted_flag))
    raise(recv_posted_flag, comm, payload_of(comm, src, tag, count * datatype->super.size, nullptr));
  // The completion event needs the actual source and size even when the caller ignores them.
  ompi_status_public_t own{};
  ompi_status_public_t* used = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = events.original.pml_recv(buf, count, datatype, src, tag, comm, used);
  if (rc == OMPI_SUCCESS && listened(recv_completed_flag))
    raise(recv_completed_flag, comm,
          payload_of(comm, used->MPI_SOURCE, used->MPI_TAG, static_cast<uint64_t>(used->_ucount), nullptr));
  return rc;
}

// Matched receives (MPI_Mprobe/MPI_Improbe, then MPI_Mrecv/MPI_Imrecv): the message
// names the source and the communicator; read them before the call consumes it.
namespace {

// The probed message a matched receive consumes, if it names a peer and a communicator.
const ompi_message_t* probed(ompi_message_t* const* message) {
  const ompi_message_t* m = *message;
  return m == nullptr || m == &ompi_message_no_proc.message || m->comm == nullptr ? nullptr : m;
}

}  // namespace

int imrecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, ompi_message_t** message,
                       ompi_request_t** request) {
  const ompi_message_t* m = probed(message);
  if (m == nullptr) return events.original.pml_imrecv(buf, count, datatype, message, request);
  const ompi_communicator_t* comm = m->comm;
  const int source = m->peer;
  const int rc = events.original.pml_imrecv(buf, count, datatype, message, request);
  if (rc != OMPI_SUCCESS) return rc;
  if (listened(recv_posted_flag))
    raise(recv_posted_flag, comm, payload_of(comm, source, MPI_ANY_TAG, count * datatype->super.size, *request));
  if (listened(recv_completed_flag)) arm(*request, recv_completed);
  return rc;
}

int mrecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, ompi_message_t** message,
                      ompi_status_public_t* status) {
  const ompi_message_t* m = probed(message);
  if (m == nullptr) return events.original.pml_mrecv(buf, count, datatype, message, status);
  const ompi_communicator_t* comm = m->comm;
  if (listened(recv_posted_flag))
    raise(recv_posted_flag, comm, payload_of(comm, m->peer, MPI_ANY_TAG, count * datatype->super.size, nullptr));
  ompi_status_public_t own{};
  ompi_status_public_t* used = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = events.original.pml_mrecv(buf, count, datatype, message, used);
  if (rc == OMPI_SUCCESS && listened(recv_completed_flag))
    raise(recv_completed_flag, comm,
          payload_of(comm, used->MPI_SOURCE, used->MPI_TAG, static_cast<uint64_t>(used->_ucount), nullptr));
  return rc;
}

void persistent_recv_started(ompi_request_t* request) {
  const auto* base = reinterpret_cast<const mca_pml_base_request_t*>(request);
  if (listened(recv_posted_flag))
    raise(recv_posted_flag, base->req_comm,
          payload_of(base->req_comm, base->req_peer, base->req_tag, base->req_count * base->req_datatype->super.size,
                     request));
  if (listened(recv_completed_flag)) arm(request, recv_completed);
}

void persistent_send_started(ompi_request_t* request) {
  const auto* base = reinterpret_cast<const mca_pml_base_request_t*>(request);
  if (listened(send_posted_flag))
    raise(send_posted_flag, base->req_comm,
          payload_of(base->req_comm, base->req_peer, base->req_tag, base->req_count * base->req_datatype->super.size,
                     request));
  if (listened(send_completed_flag)) arm(request, send_completed);
}

}  // namespace mpimon::pml
