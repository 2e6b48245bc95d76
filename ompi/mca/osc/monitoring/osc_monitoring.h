// OSC adapter: one-sided operations -> engine records (osc_sent / osc_recv), and
// synchronisation calls -> per-window times (analyses/window_sync.h).
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/mca/osc/osc.h>
#include <ompi/win/win.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "runtime/world_rank_ompi.h"

namespace mpimon::osc {

// The type of argument N of one of Open MPI's function pointer typedefs.
template <typename Function, size_t N>
struct ArgumentOf;
template <typename R, typename... Args, size_t N>
struct ArgumentOf<R (*)(Args...), N> {
  using type = std::tuple_element_t<N, std::tuple<Args...>>;
};
// Element counts and displacement units in osc's interface, as this Open MPI declares
// them: int up to 5.0; size_t and ptrdiff_t from 6.0 on (OSC API 4.0.0, MPI 4 big counts).
using Count = ArgumentOf<ompi_osc_base_module_put_fn_t, 1>::type;
using DispUnit = ArgumentOf<ompi_osc_base_component_query_fn_t, 3>::type;

// Prepares the wrappers (once, when the layer becomes active at MPI_Init). Without
// `time_sync`, synchronisation calls are not wrapped at all (osc_monitoring_sync_timing 0).
// `wait_states` (osc_monitoring_wait_states 1, single-threaded processes) implies
// `time_sync` and gives each window a wait-state tracker (wait_states/).
void start_layer(bool threaded, bool time_sync, bool wait_states);

// Puts our wrappers into the module a component has just created for `win`
// (win->w_osc_module), in place: the module keeps its address. Slots the component left
// NULL stay NULL. Returns false (window left unmonitored) if out of memory. With wait
// states, also sets up the window's tracker: collective over `comm` (the communicator
// the window is created on).
bool wrap_window(ompi_win_t* win, ompi_communicator_t* comm);

// The window_sync registry id of a live monitored window; 0 if `win` is not one.
uint64_t sync_id_of(const ompi_win_t* win);

// The current name of the live window with registry id `id` (MPI_Win_set_name's, else
// "window <n>"); "" if there is none.
std::string live_window_name(uint64_t id);

}  // namespace mpimon::osc
