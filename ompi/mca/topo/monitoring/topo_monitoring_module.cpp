// cart_create / graph_create with reorder: the keys from libmpimon_reorder's job-file entry
// point (loaded here on first use), a communicator split in key order, and Open MPI's own
// creation on it, so that rank i of the result is the process placed for logical rank i;
// everything else stays Open MPI's. Whenever reordering cannot be done, the result is
// exactly Open MPI's default (topo/basic's).
#include "topo_monitoring.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include <ompi/communicator/communicator.h>
#include <ompi/mca/topo/base/base.h>

#include "mpimon_reorder_topo.h"
#include "runtime/component_version.h"  // MPIMON_VARIABLES_NAME

extern "C" mca_topo_base_component_2_2_0_t MPIMON_COMPONENT_SYMBOL;

namespace mpimon::topo {

namespace {

// libmpimon_reorder's entry point, from the folder this component was loaded from; null
// with `problem` set when it cannot be loaded. Loaded once per process.
mpimon_reorder_keys_from_job_file_fn reorder_entry(std::string& problem) {
  static std::string why;
  static mpimon_reorder_keys_from_job_file_fn entry = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&MPIMON_COMPONENT_SYMBOL), &info) == 0 || info.dli_fname == nullptr) {
      why = "cannot tell where this component was loaded from";
      return static_cast<mpimon_reorder_keys_from_job_file_fn>(nullptr);
    }
    std::string path = info.dli_fname;
    path = path.substr(0, path.rfind('/') + 1) + MPIMON_REORDER_SONAME;
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      why = std::string("cannot load ") + dlerror();
      return static_cast<mpimon_reorder_keys_from_job_file_fn>(nullptr);
    }
    auto* found = reinterpret_cast<mpimon_reorder_keys_from_job_file_fn>(dlsym(library, MPIMON_REORDER_TOPO_ENTRY));
    if (found == nullptr) why = path + " has no " MPIMON_REORDER_TOPO_ENTRY " (another version?)";
    return found;
  }();
  problem = why;
  return entry;
}

// This process's key (its logical rank), or false when nothing is to be reordered (said in
// one line by rank 0 of `comm`). Collective over `comm`.
bool reordering_key(ompi_communicator_t* comm, int* key) {
  std::string problem;
  mpimon_reorder_keys_from_job_file_fn entry = reorder_entry(problem);
  // Every process must take the collective path, or none: agree on the library first.
  int loaded = entry ? 1 : 0, everywhere = 0;
  if (MPI_Allreduce(&loaded, &everywhere, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return false;
  if (!everywhere) {
    if (ompi_comm_rank(comm) == 0)
      warn(problem.empty() ? "another process could not load " MPIMON_REORDER_SONAME "; nothing reordered"
                           : problem + "; nothing reordered",
           false);
    return false;
  }
  const std::string who = std::string("topo_") + MPIMON_VARIABLES_NAME;
  return entry(comm, settings().job_file.c_str(), settings().traffic, who.c_str(), settings().verbose ? 1 : 0, key) ==
         MPI_SUCCESS;
}

// `create` on a communicator holding old_comm's processes in key order, when reordering.
template <typename Create>
int create_reordered(ompi_communicator_t* old_comm, bool reorder, Create create) {
  int key = 0;
  if (!reorder || !reordering_key(old_comm, &key)) return create(old_comm);
  ompi_communicator_t* ordered = nullptr;
  int status = ompi_comm_split(old_comm, 0, key, &ordered, false);
  if (status != OMPI_SUCCESS) return status;
  status = create(ordered);
  ompi_comm_free(&ordered);
  return status;
}

int cart_create(mca_topo_base_module_t* topo, ompi_communicator_t* old_comm, int ndims, const int* dims,
                const int* periods, bool reorder, ompi_communicator_t** comm_topo) {
  return create_reordered(old_comm, reorder, [&](ompi_communicator_t* comm) {
    return mca_topo_base_cart_create(topo, comm, ndims, dims, periods, reorder, comm_topo);
  });
}

int graph_create(mca_topo_base_module_t* topo, ompi_communicator_t* old_comm, int nnodes, const int* index,
                 const int* edges, bool reorder, ompi_communicator_t** new_comm) {
  return create_reordered(old_comm, reorder, [&](ompi_communicator_t* comm) {
    return mca_topo_base_graph_create(topo, comm, nnodes, index, edges, reorder, new_comm);
  });
}

}  // namespace

mca_topo_base_module_t* new_module(uint32_t type) {
  // Zeroed, as topo/basic does: the framework fills the functions left null with its own.
  auto* module = static_cast<mca_topo_base_module_t*>(calloc(1, sizeof(mca_topo_base_module_t)));
  if (module == nullptr) return nullptr;
  OBJ_CONSTRUCT(module, mca_topo_base_module_t);
  module->type = type;
  if (type == OMPI_COMM_CART) module->topo.cart.cart_create = cart_create;
  if (type == OMPI_COMM_GRAPH) module->topo.graph.graph_create = graph_create;
  return module;
}

}  // namespace mpimon::topo
