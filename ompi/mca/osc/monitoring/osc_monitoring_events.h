// OSC adapter, MPI_T events side: operation issued, synchronisation begin/end
// (opal/mca/mpit_events/communication_events.h), bound to the window. The wrappers test
// osc_event_flags (this plugin's own data: one load, one branch) first.
#pragma once

#include "osc_monitoring.h"
#include "runtime/ompi_glue.h"

#include <ompi/win/win.h>

#include <cstdint>

#include "communication_events.h"
#include "live/listening_flag.h"
#include "mpit_events_producer.h"
#include "ompi_lifecycle_events.h"

namespace mpimon::osc {

// One byte per event type, kept by the events library; the synchronisation pair
// (begin, end) is also read as one word.
struct EventFlags {
  unsigned char op;
  union {
    unsigned char flag[2];
    uint16_t any;
  } sync;
  unsigned char wait;  // mpimon_osc_wait_state
};
extern EventFlags osc_event_flags __attribute__((visibility("hidden")));  // direct, no GOT load

inline bool op_events_listened() { return listening(osc_event_flags.op); }
inline bool sync_events_listened() { return listening(osc_event_flags.sync.any); }

// Looks up our event types, mirrors their listeners into osc_event_flags; calls
// `op_listeners_changed` right after the operation events' flag changes (and once now).
void start_events(bool threaded, void (*op_listeners_changed)());

// Whether windows created now get synchronisation wrappers for the events although
// synchronisation timing is off: when the application has initialised MPI_T (a tool may
// subscribe), so that processes without tools keep untouched synchronisation calls.
bool tools_may_listen();

void raise_op(const ompi_win_t* win, int kind, int32_t target_world, int target, uint64_t sent, uint64_t received);
void raise_sync_begin(const ompi_win_t* win, int kind, int target);
void raise_sync_end(const ompi_win_t* win, int kind, int target, int result);
// A detected wait state (wait_states/): raised only while a tool listens.
void raise_wait_state(const ompi_win_t* win, int pattern, int32_t waiter, int32_t culprit, double seconds);

// Open MPI main's window lifecycle events (ompi_lifecycle_events.h): after the real
// component created the window (our select), after its free succeeded (our free).
void raise_window_created(const ompi_win_t* win, size_t size, DispUnit disp_unit, int flavor);
void raise_window_freed(const ompi_win_t* win, int flavor);

}  // namespace mpimon::osc
