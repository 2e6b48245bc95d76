// COLL adapter, MPI_T events side: begin/end of each collective the application calls
// (opal/mca/mpit_events/communication_events.h). The generic wrapper tests
// coll_event_flags (this plugin's own data: one load, one branch) before anything else.
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/communicator/communicator.h>
#include <ompi/request/request.h>

#include <cstdint>

#include "communication_events.h"
#include "live/listening_flag.h"
#include "mpit_events_producer.h"
#include "ompi_lifecycle_events.h"

namespace mpimon::coll {

// One byte per event type (begin, end), kept by the events library; read as one word.
union EventFlags {
  unsigned char flag[2];
  uint16_t any;
};
extern EventFlags coll_event_flags __attribute__((visibility("hidden")));  // direct, no GOT load

inline bool events_listened() { return listening(coll_event_flags.any); }
inline bool begin_listened() { return listening(coll_event_flags.flag[0]); }
inline bool end_listened() { return listening(coll_event_flags.flag[1]); }

// Looks up our event types and mirrors their listeners into coll_event_flags (for the
// life of the process: this plugin stays loaded once our layer started).
void start_events(bool threaded);

// The safety level the application's own collective call offers to callbacks (none, or
// thread-safe under MPI_THREAD_MULTIPLE); delivers instances queued for it.
MPI_T_cb_safety call_context();

void raise_begin(ompi_communicator_t* comm, const mpimon_coll_event& event, MPI_T_cb_safety context);
void raise_end(ompi_communicator_t* comm, const mpimon_coll_event& event, MPI_T_cb_safety context);
// A nonblocking collective's end event, from its request's completion callback (inside
// progress: callbacks must not call MPI); coll_monitoring_nbc.cpp arms that callback.
void raise_end_in_progress(ompi_communicator_t* comm, const mpimon_coll_event& event);

// Open MPI main's communicator lifecycle events (ompi_lifecycle_events.h), at our module's
// enable (the communicator's collective selection, where main raises "created") and first
// disable (the communicator's release). Not for MPI_COMM_WORLD and MPI_COMM_SELF (main
// raises neither for them), nor once MPI_Finalize has started (our end-of-job files'
// communicator, communicators released there).
void raise_communicator_created(ompi_communicator_t* comm);
void raise_communicator_freed(ompi_communicator_t* comm);

}  // namespace mpimon::coll
