// PML adapter, MPI_T events side: point-to-point calls -> communication events
// (opal/mca/mpit_events/communication_events.h). Nothing here runs unless a tool listens:
// the wrappers test pml_event_flags (one load of this plugin's own data, one branch)
// before anything else.
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/mca/pml/pml.h>
#include <ompi/message/message.h>

#include <cstdint>

#include "live/listening_flag.h"

namespace mpimon::pml {

// One byte per event type, kept by the events library (mpimon_events_watch): nonzero
// while some tool has a callback for that type. Read as one 32-bit word by the slow paths
// (the send wrappers are chosen by it when it changes).
enum EventFlag { send_posted_flag, recv_posted_flag, send_completed_flag, recv_completed_flag };
union EventFlags {
  unsigned char flag[4];
  uint32_t any;  // read by the wrappers: nonzero while any of the four is
};
// Hidden: the wrappers in another file of this plugin address it directly (no GOT load).
extern EventFlags pml_event_flags __attribute__((visibility("hidden")));

// MPIMON_PML_EVENTS=0 compiles the test out (only for bench/events_overhead.sh's
// "events compiled out" reference).
#ifndef MPIMON_PML_EVENTS
#define MPIMON_PML_EVENTS 1
#endif
inline bool events_listened() {
  if constexpr (!MPIMON_PML_EVENTS) return false;
  return listening(pml_event_flags.any);
}

// Looks up our event types and starts mirroring their listeners into pml_event_flags.
// `listeners_changed` runs whenever one of them gains its first or loses its last
// listener (the wrappers that raise them are installed only while they are listened to).
void start_events(const mca_pml_base_module_t& original, bool ob1, bool threaded, void (*listeners_changed)());

// Whether a tool listens to send events (the send wrappers then take the event path).
inline bool send_events_listened() {
  if constexpr (!MPIMON_PML_EVENTS) return false;
  return listening(pml_event_flags.flag[send_posted_flag]) || listening(pml_event_flags.flag[send_completed_flag]);
}

// Whether a tool listens to receive events.
inline bool receive_events_listened() {
  return listening(pml_event_flags.flag[recv_posted_flag]) || listening(pml_event_flags.flag[recv_completed_flag]);
}

// The wrappers' event paths (the send has been recorded already): forward to the
// original PML, raise the events, and arm completion callbacks for those that need them.
// MPI_Isend's is a pointer to the path of the send events listened to now (posted,
// completed or both), chosen when listeners change, so that it tests no flag per send;
// the wrappers jump through it (one instruction, as to a function).
extern mca_pml_base_module_isend_fn_t isend_with_events __attribute__((visibility("hidden")));
// The same for a send on MPI_COMM_WORLD (the rank is the world rank: no translation).
extern mca_pml_base_module_isend_fn_t isend_with_events_on_world __attribute__((visibility("hidden")));
int send_with_events(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t* comm);
int irecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag, ompi_communicator_t* comm,
                      ompi_request_t** request);
int recv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag, ompi_communicator_t* comm,
                     ompi_status_public_t* status);
int imrecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, ompi_message_t** message,
                       ompi_request_t** request);
int mrecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, ompi_message_t** message,
                      ompi_status_public_t* status);
// A persistent ob1 send or receive was just started: its posted event and completion callback.
void persistent_send_started(ompi_request_t* request);
void persistent_recv_started(ompi_request_t* request);

}  // namespace mpimon::pml
