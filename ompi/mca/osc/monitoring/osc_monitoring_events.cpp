// One-sided MPI_T events, raised in the application's own MPI call (callbacks may call
// MPI: no requirement, or thread safety under MPI_THREAD_MULTIPLE).
#include "osc_monitoring_events.h"

// MPI_T's initialisation count (exported by libmpi; its header drags in the tool internals).
extern "C" volatile uint32_t ompi_mpit_init_count;

namespace mpimon::osc {

EventFlags osc_event_flags{};

namespace {

int op_index = -1, begin_index = -1, end_index = -1, wait_index = -1;
int created_index = -1, freed_index = -1;
unsigned char lifecycle_flags[2] = {};  // created, freed (not on any hot path)
MPI_T_cb_safety context = MPI_T_CB_REQUIRE_NONE;

void raise(int index, const ompi_win_t* win, const void* payload) {
  mpimon_events_drain(context);
  mpimon_events_raise(index, win, payload, MPIMON_EVENTS_NOW, context);
}

void call_back(void* function) { reinterpret_cast<void (*)()>(function)(); }

}  // namespace

void start_events(bool threaded, void (*op_listeners_changed)()) {
  context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE;
  op_index = mpimon_events_find_type(MPIMON_EVENT_OSC_OP_ISSUED);
  begin_index = mpimon_events_find_type(MPIMON_EVENT_OSC_SYNC_BEGIN);
  end_index = mpimon_events_find_type(MPIMON_EVENT_OSC_SYNC_END);
  if (op_index >= 0)
    mpimon_events_watch_notify(op_index, &osc_event_flags.op, call_back, reinterpret_cast<void*>(op_listeners_changed));
  if (begin_index >= 0) mpimon_events_watch(begin_index, &osc_event_flags.sync.flag[0]);
  if (end_index >= 0) mpimon_events_watch(end_index, &osc_event_flags.sync.flag[1]);
  wait_index = mpimon_events_find_type(MPIMON_EVENT_OSC_WAIT_STATE);
  if (wait_index >= 0) mpimon_events_watch(wait_index, &osc_event_flags.wait);
  created_index = mpimon_events_find_type(MPIMON_EVENT_OMPI_WIN_CREATED);
  freed_index = mpimon_events_find_type(MPIMON_EVENT_OMPI_WIN_FREED);
  if (created_index >= 0) mpimon_events_watch(created_index, &lifecycle_flags[0]);
  if (freed_index >= 0) mpimon_events_watch(freed_index, &lifecycle_flags[1]);
}

bool tools_may_listen() { return ompi_mpit_init_count != 0 || sync_events_listened(); }

void raise_op(const ompi_win_t* win, int kind, int32_t target_world, int target, uint64_t sent, uint64_t received) {
  mpimon_osc_op_event e{};
  e.win_id = win->w_f_to_c_index;
  e.kind = kind;
  e.target = target_world;
  e.target_rank = target;
  e.bytes_sent = sent;
  e.bytes_recv = received;
  raise(op_index, win, &e);
}

void raise_sync_begin(const ompi_win_t* win, int kind, int target) {
  if (!listening(osc_event_flags.sync.flag[0])) return;
  const mpimon_osc_sync_event e{win->w_f_to_c_index, kind, target, 0};
  raise(begin_index, win, &e);
}

void raise_sync_end(const ompi_win_t* win, int kind, int target, int result) {
  if (!listening(osc_event_flags.sync.flag[1])) return;
  const mpimon_osc_sync_event e{win->w_f_to_c_index, kind, target, result};
  raise(end_index, win, &e);
}

void raise_wait_state(const ompi_win_t* win, int pattern, int32_t waiter, int32_t culprit, double seconds) {
  if (!listening(osc_event_flags.wait)) return;
  const mpimon_osc_wait_event e{win->w_f_to_c_index, pattern, waiter, culprit, seconds};
  raise(wait_index, win, &e);
}

void raise_window_created(const ompi_win_t* win, size_t size, DispUnit disp_unit, int flavor) {
  if (!listening(lifecycle_flags[0])) return;
  const mpimon_ompi_win_created_event e{static_cast<int64_t>(size), static_cast<int32_t>(disp_unit), flavor,
                                        reinterpret_cast<uintptr_t>(win)};
  raise(created_index, win, &e);
}

void raise_window_freed(const ompi_win_t* win, int flavor) {
  if (!listening(lifecycle_flags[1])) return;
  const mpimon_ompi_win_freed_event e{flavor, 0, reinterpret_cast<uintptr_t>(win)};
  raise(freed_index, win, &e);
}

}  // namespace mpimon::osc
