// TEMPLATE: a new accounting layer (docs/extending.md, "A new accounting layer").
//
// A layer is an Open MPI component that sits in front of the real module of one framework
// (pml, coll, osc, io: ompi/mca/<framework>/monitoring) and turns each MPI call it sees
// into Engine::record(world rank of the peer, category, bytes), then forwards the call.
// This template does the same for a made-up framework whose module has one function,
// `send`, with no Open MPI at all, so that it compiles and is tested with the unit tests
// (templates/accounting_layer/null_layer_test.cpp). Each piece names the real code it
// stands for.
//
// Copy it to ompi/mca/<framework>/monitoring/<framework>_monitoring_module.cpp, replace
// NullModule by the framework's module type (through runtime/ompi_glue.h), and follow
// docs/extending.md for the component file, the CMakeLists.txt and the tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/engine.h"

namespace mpimon::templates {

// The framework's module: a table of function pointers Open MPI calls through (for the
// PML, mca_pml_base_module_t and its pml_send; here one function). `communicator` stands
// for ompi_communicator_t*.
struct NullModule {
  int (*send)(const void* buffer, size_t bytes, int comm_rank, const void* communicator);
};

// A communicator rank -> MPI_COMM_WORLD rank, or -1 for a process of another job (real
// layers: runtime/world_rank_ompi.h, which reads the communicator's group).
using WorldRankOf = int32_t (*)(const void* communicator, int comm_rank);

// The layer's whole state, one per process (real layers: a `state` struct in the module
// file, filled when the component is selected; the engine is Runtime::instance().engine).
struct NullLayerState {
  Engine* engine = nullptr;
  WorldRankOf world_rank_of = nullptr;
  NullModule original{};  // the real module's functions, saved before we interpose
};

// Interposes on `module`: saves its functions (what `send` forwards to). Recording starts
// off: the module keeps the real functions until set_null_layer_recording(true), so a
// layer that is off costs nothing on the hot path (docs/performance.md).
void install_null_layer(NullModule& module, Engine& engine, WorldRankOf world_rank_of);

// The layer's RecordingSwitch (Runtime::add_layer): on, our wrapper is in the table; off
// (while our own dump traffic runs, or monitoring is disabled), the real function is.
void set_null_layer_recording(bool on);

// Removes the layer: the module gets its functions back (the component's close).
void uninstall_null_layer();

}  // namespace mpimon::templates
