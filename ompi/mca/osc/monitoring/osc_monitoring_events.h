// OSC adapter, MPI_T events side: operation issued, synchronisation begin/end
// (opal/mca/mpit_events/communication_events.h), bound to the window. The wrappers test
// osc_event_flags (this plugin's own data: one load, one branch) first.
#pragma once

#include "ompi_glue.h"

#include <ompi/win/win.h>

#include <cstdint>

#include "communication_events.h"
#include "mpit_events_producer.h"

namespace mpimon::osc {

struct alignas(4) EventFlags {
  unsigned char op, sync_begin, sync_end, unused;
};
extern EventFlags osc_event_flags __attribute__((visibility("hidden")));  // direct, no GOT load

// One compare with memory and a branch (see pml_monitoring_events.h).
inline bool op_events_listened() {
#if defined(__x86_64__)
  bool listened;
  asm("cmpb $0, %1" : "=@ccne"(listened) : "m"(osc_event_flags.op));
  return listened;
#else
  return __atomic_load_n(&osc_event_flags.op, __ATOMIC_RELAXED) != 0;
#endif
}
using half_may_alias = uint16_t __attribute__((may_alias));
inline bool sync_events_listened() {
  return __atomic_load_n(reinterpret_cast<const half_may_alias*>(&osc_event_flags.sync_begin), __ATOMIC_RELAXED) != 0;
}

// Looks up our event types, mirrors their listeners into osc_event_flags.
void start_events(bool threaded);

// Whether windows created now get synchronisation wrappers for the events although
// synchronisation timing is off: when the application has initialised MPI_T (a tool may
// subscribe), so that processes without tools keep untouched synchronisation calls.
bool tools_may_listen();

void raise_op(const ompi_win_t* win, int kind, int32_t target_world, int target, uint64_t sent, uint64_t received);
void raise_sync_begin(const ompi_win_t* win, int kind, int target);
void raise_sync_end(const ompi_win_t* win, int kind, int target, int result);

}  // namespace mpimon::osc
