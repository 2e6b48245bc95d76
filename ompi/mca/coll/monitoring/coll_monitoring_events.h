// COLL adapter, MPI_T events side: begin/end of each collective the application calls
// (opal/mca/mpit_events/communication_events.h). The generic wrapper tests
// coll_event_flags (this plugin's own data: one load, one branch) before anything else.
#pragma once

#include "ompi_glue.h"

#include <ompi/communicator/communicator.h>
#include <ompi/request/request.h>

#include <cstdint>

#include "communication_events.h"
#include "mpit_events_producer.h"

namespace mpimon::coll {

struct alignas(2) EventFlags {
  unsigned char begin, end;
};
extern EventFlags coll_event_flags __attribute__((visibility("hidden")));  // direct, no GOT load

using half_may_alias = uint16_t __attribute__((may_alias));
inline bool events_listened() {
  return __atomic_load_n(reinterpret_cast<const half_may_alias*>(&coll_event_flags), __ATOMIC_RELAXED) != 0;
}
inline bool begin_listened() { return __atomic_load_n(&coll_event_flags.begin, __ATOMIC_RELAXED) != 0; }
inline bool end_listened() { return __atomic_load_n(&coll_event_flags.end, __ATOMIC_RELAXED) != 0; }

// Looks up our event types and mirrors their listeners into coll_event_flags.
void start_events(bool threaded);
// Before unloading this plugin.
void stop_events();

// The safety level the application's own collective call offers to callbacks (none, or
// thread-safe under MPI_THREAD_MULTIPLE); delivers instances queued for it.
MPI_T_cb_safety call_context();

void raise_begin(ompi_communicator_t* comm, const mpimon_coll_event& event, MPI_T_cb_safety context);
void raise_end(ompi_communicator_t* comm, const mpimon_coll_event& event, MPI_T_cb_safety context);
// Nonblocking collective: the end event when `request` completes.
void raise_end_at_completion(ompi_request_t* request, ompi_communicator_t* comm, const mpimon_coll_event& event);

}  // namespace mpimon::coll
