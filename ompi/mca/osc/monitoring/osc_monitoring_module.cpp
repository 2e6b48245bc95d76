// The OSC adapter's module set-up: the wrappers of one kind of process (data movement:
// osc_monitoring_data.h; synchronisation: osc_monitoring_sync.h; window management:
// here), the slot list that puts them into each window's module, and the layer's start.
//
// What each wrapper records: osc_monitoring_data.h (one-sided operations) and
// osc_monitoring_sync.h (synchronisation calls). shared_query, attach and detach are
// forwarded untouched; free forwards, then forgets the window (its times stay in the
// window_sync registry under its name).
#include "osc_monitoring.h"
#include "osc_monitoring_data.h"
#include "osc_monitoring_events.h"
#include "osc_monitoring_sync.h"
#include "osc_monitoring_windows.h"

#include <cstring>
#include <string>

#include "analyses/window_sync.h"
#include "engine/engine.h"
#include "runtime/runtime.h"
#include "wait_states/window_tracker.h"

namespace mpimon::osc {
namespace {

// Every slot of Open MPI 4.1's ompi_osc_base_module_t, in its order: the slot, our
// wrapper, and its kind (window management and data movement are always wrapped;
// synchronisation only when timed or when a tool may listen: see install()).
// clang-format off
#define MPIMON_OSC_SLOTS(X)                            \
  X(win_shared_query, shared_query,     window)  \
  X(win_attach,       attach,           window)  \
  X(win_detach,       detach,           window)  \
  X(free,             free,             window)  \
  X(put,              put,              data)    \
  X(get,              get,              data)    \
  X(accumulate,       accumulate,       data)    \
  X(compare_and_swap, compare_and_swap, data)    \
  X(fetch_and_op,     fetch_and_op,     data)    \
  X(get_accumulate,   get_accumulate,   data)    \
  X(rput,             rput,             data)    \
  X(rget,             rget,             data)    \
  X(raccumulate,      raccumulate,      data)    \
  X(rget_accumulate,  rget_accumulate,  data)    \
  X(fence,            fence,            sync)    \
  X(start,            start,            sync)    \
  X(complete,         complete,         sync)    \
  X(post,             post,             sync)    \
  X(wait,             wait,             sync)    \
  X(test,             test,             sync)    \
  X(lock,             lock,             sync)    \
  X(unlock,           unlock,           sync)    \
  X(lock_all,         lock_all,         sync)    \
  X(unlock_all,       unlock_all,       sync)    \
  X(sync,             sync,             sync)    \
  X(flush,            flush,            sync)    \
  X(flush_all,        flush_all,        sync)    \
  X(flush_local,      flush_local,      sync)    \
  X(flush_local_all,  flush_local_all,  sync)
// clang-format on
enum class SlotKind { window, data, sync };

#define MPIMON_OSC_COUNT_SLOT(slot, wrapper, kind) +1
static_assert(sizeof(ompi_osc_base_module_t) == (0 MPIMON_OSC_SLOTS(MPIMON_OSC_COUNT_SLOT)) * sizeof(void (*)()),
              "MPIMON_OSC_SLOTS must name every slot of ompi_osc_base_module_t");
#undef MPIMON_OSC_COUNT_SLOT

// The wrappers for one kind of process: data movement, synchronisation, and the window
// management calls, forwarded (free then forgets the window: its times stay in the
// window_sync registry under its name).
template <bool threaded, bool tsc, bool timing, bool waits = false>
struct Wrappers : DataWrappers<threaded, waits>, SyncWrappers<threaded, tsc, timing, waits> {
  static int shared_query(ompi_win_t* win, int rank, size_t* size, DispUnit* disp_unit, void* baseptr) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    return s->original.osc_win_shared_query(win, rank, size, disp_unit, baseptr);
  }
  static int attach(ompi_win_t* win, void* base, size_t size) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    return s->original.osc_win_attach(win, base, size);
  }
  static int detach(ompi_win_t* win, const void* base) {
    WindowState* s = find_state(win);
    if (s == nullptr) [[unlikely]]
      return kNoWindow;
    return s->original.osc_win_detach(win, base);
  }
  static int free(ompi_win_t* win);

#define MPIMON_OSC_TABLE_ENTRY(slot, wrapper, kind) .osc_##slot = Wrappers::wrapper,
  static constexpr ompi_osc_base_module_t table = {MPIMON_OSC_SLOTS(MPIMON_OSC_TABLE_ENTRY)};
#undef MPIMON_OSC_TABLE_ENTRY
};

template <bool threaded, bool tsc, bool timing, bool waits>
int Wrappers<threaded, tsc, timing, waits>::free(ompi_win_t* win) {
  WindowState* s = find_state(win);
  if (s == nullptr) [[unlikely]]
    return kNoWindow;
  const std::string name = display_name(*s, win);
  if (s->tracker != nullptr) {
    s->tracker->destroy();  // collective: every process of the window is in MPI_Win_free
    s->tracker.reset();
    wait_states::registry().close(s->sync_id, name);
  }
  const int flavor = win->w_flavor;
  const int rc = s->original.osc_free(win);  // the module is gone after this
  if (rc == OMPI_SUCCESS) {
    raise_window_freed(win, flavor);
    window_sync().close(s->sync_id, name);
    windows->remove(s);
    mpimon_events_object_freed(MPI_T_BIND_MPI_WIN, win);  // its event registrations end here
  }
  return rc;
}

const ompi_osc_base_module_t* wrappers = nullptr;  // the table chosen by start_layer

bool timing_sync = false;   // osc_monitoring_sync_timing
bool detect_waits = false;  // osc_monitoring_wait_states (implies timing_sync)

// Each slot of `module` gets ours, unless the component left it NULL (MPI then reports
// the operation as unsupported, as without us). Without synchronisation timing, the
// synchronisation slots keep the component's functions (no cost at all), unless the
// application has initialised MPI_T: then a tool may want their events.
void install(ompi_osc_base_module_t& module, const ompi_osc_base_module_t& ours) {
  const bool wrap_sync = timing_sync || tools_may_listen();
  auto set = [](auto& slot, auto wrapper, bool wanted) {
    if (wanted && slot != nullptr) slot = wrapper;
  };
#define MPIMON_OSC_INSTALL(slot, wrapper, kind) \
  set(module.osc_##slot, ours.osc_##slot, SlotKind::kind != SlotKind::sync || wrap_sync);
  MPIMON_OSC_SLOTS(MPIMON_OSC_INSTALL)
#undef MPIMON_OSC_INSTALL
}

// The events library calls this when operation events gain their first or lose their
// last listener (on the thread that registered, its control lock held). The data
// wrappers' fast path does not test for listeners: while a tool listens, the peer
// caches stay empty (remember_peer) so that every operation reaches the slow twin,
// which raises the event. Losing the last listener needs nothing: the caches refill at
// their next miss.
void op_listeners_changed() {
  if (!op_events_listened()) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with remember_peer's
  windows->for_each_live([](WindowState& s, const ompi_win_t*) {
    for (PeerCache& cache : s.peers) cache.forget_targets();
  });
}

}  // namespace

void start_layer(bool threaded, bool time_sync, bool wait_states) {
  if (windows != nullptr) return;
  detect_waits = wait_states && !threaded;
  timing_sync = time_sync || detect_waits;
  time_sync = timing_sync;
  windows = new WindowTable();  // used until process exit
  hot.engine = &Runtime::instance().engine;
  hot.job = LocalJob::of_this_process();
  hot.last.store(&no_window, std::memory_order_relaxed);
  const bool tsc = window_sync().clock().source() == SyncClock::Source::tsc;
  start_events(threaded, op_listeners_changed);
  if (!time_sync) {
    wrappers = threaded ? &Wrappers<true, false, false>::table : &Wrappers<false, false, false>::table;
  } else if (threaded) {
    wrappers = tsc ? &Wrappers<true, true, true>::table : &Wrappers<true, false, true>::table;
  } else if (detect_waits) {
    wrappers = tsc ? &Wrappers<false, true, true, true>::table : &Wrappers<false, false, true, true>::table;
  } else {
    wrappers = tsc ? &Wrappers<false, true, true>::table : &Wrappers<false, false, true>::table;
  }
}

bool wrap_window(ompi_win_t* win, ompi_communicator_t* comm) {
  if (windows == nullptr || win->w_osc_module == nullptr) return false;
  ompi_osc_base_module_t& module = *win->w_osc_module;
  WindowState* s = windows->acquire();
  s->original = module;
  s->group = win->w_group;
  // MPI_COMM_WORLD's group (also that of its duplicates): ranks are world ranks. Read
  // here, not at start_layer: MPI_COMM_WORLD does not exist yet when the layer starts.
  s->world_order = win->w_group == ompi_mpi_comm_world.comm.c_local_group;
  for (PeerCache& cache : s->peers) cache.clear();
  const WindowSyncRegistry::Opened opened = window_sync().open(s->sync);
  s->sync_id = opened.id;
  s->number = opened.number;
  s->component_name = name_of(win);
  s->tracker.reset();
  // Collective over the window (we run inside its creation on every process).
  if (detect_waits) s->tracker = wait_states::WindowTracker::create(win, comm, s->sync_id);
  windows->insert(s, win);  // findable before any slot points to us
  install(module, *wrappers);
  return true;
}

uint64_t sync_id_of(const ompi_win_t* win) {
  if (windows == nullptr) return 0;
  const WindowState* s = windows->find(win);
  return s == nullptr ? 0 : s->sync_id;
}

std::string live_window_name(uint64_t id) {
  std::string name;
  if (windows == nullptr) return name;
  windows->for_each_live([&](const WindowState& s, const ompi_win_t* win) {
    if (s.sync_id == id) name = display_name(s, win);
  });
  return name;
}

}  // namespace mpimon::osc
