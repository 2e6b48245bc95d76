// TEMPLATE: a new accounting layer; see null_layer.h for what each piece stands for.
#include "accounting_layer/null_layer.h"

namespace mpimon::templates {

namespace {

NullLayerState state;
NullModule* installed_in = nullptr;  // the module table we write our wrapper into

// The wrapper Open MPI calls instead of the real function while recording. The one rule
// of every layer: record first, then forward with the arguments unchanged, and return
// what the real function returned (our layer never changes a call's outcome).
int send_wrapper(const void* buffer, size_t bytes, int comm_rank, const void* communicator) {
  const int32_t peer = state.world_rank_of(communicator, comm_rank);
  if (peer >= 0) {
    // Category: what kind of traffic this is (engine/engine.h). A new category changes
    // every format (docs/formats.md): a layer uses the existing ones where it can.
    state.engine->record(peer, Category::external, bytes);
  } else {
    state.engine->record_other_job(Category::external, bytes);  // no world rank to name
  }
  return state.original.send(buffer, bytes, comm_rank, communicator);
}

}  // namespace

void install_null_layer(NullModule& module, Engine& engine, WorldRankOf world_rank_of) {
  state.engine = &engine;
  state.world_rank_of = world_rank_of;
  state.original = module;
  installed_in = &module;
}

void set_null_layer_recording(bool on) {
  // Real layers store the pointer atomically (__atomic_store_n, relaxed): another thread
  // may be calling through the table while a switch happens.
  if (installed_in != nullptr) installed_in->send = on ? send_wrapper : state.original.send;
}

void uninstall_null_layer() {
  if (installed_in != nullptr) *installed_in = state.original;
  installed_in = nullptr;
  state = NullLayerState{};
}

}  // namespace mpimon::templates
