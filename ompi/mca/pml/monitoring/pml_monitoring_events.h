// PML adapter, MPI_T events side: point-to-point calls -> communication events
// (opal/mca/mpit_events/communication_events.h). Nothing here runs unless a tool listens:
// the wrappers test pml_event_flags (one load of this plugin's own data, one branch)
// before anything else.
#pragma once

#include "ompi_glue.h"

#include <ompi/mca/pml/pml.h>

#include <cstdint>

namespace mpimon::pml {

// One byte per event type, kept by the events library (mpimon_events_watch): nonzero
// while some tool has a callback for that type. Read as one 32-bit word by the wrappers.
enum EventFlag { send_posted_flag, recv_posted_flag, send_completed_flag, recv_completed_flag };
struct alignas(4) EventFlags {
  unsigned char flag[4];
};
extern EventFlags pml_event_flags;

// MPIMON_PML_EVENTS=0 compiles the test out (only for bench/events_overhead.sh's
// "events compiled out" reference).
#ifndef MPIMON_PML_EVENTS
#define MPIMON_PML_EVENTS 1
#endif
using word_may_alias = uint32_t __attribute__((may_alias));
inline bool events_listened() {
  if constexpr (!MPIMON_PML_EVENTS) return false;
  return __atomic_load_n(reinterpret_cast<const word_may_alias*>(pml_event_flags.flag), __ATOMIC_RELAXED) != 0;
}

// Looks up our event types and starts mirroring their listeners into pml_event_flags.
void start_events(const mca_pml_base_module_t& original, bool ob1, bool threaded);

// The wrappers' event paths: forward to the original PML, record the traffic (sends),
// raise the events, and arm completion callbacks for the events that need them.
int isend_with_events(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                      mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request);
int send_with_events(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t* comm);
int irecv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag,
                      ompi_communicator_t* comm, ompi_request_t** request);
int recv_with_events(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag,
                     ompi_communicator_t* comm, ompi_status_public_t* status);
// A persistent ob1 send was just started: its posted event and completion callback.
void persistent_send_started(ompi_request_t* request);

// Records one send in the engine (defined with the wrappers).
void record_send(const ompi_communicator_t* comm, int dst, int tag, size_t bytes);

}  // namespace mpimon::pml
