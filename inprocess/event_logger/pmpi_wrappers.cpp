// The MPI functions the event logger intercepts (the library's only exports,
// event_logger.map): MPI_Init, MPI_Init_thread and MPI_Finalize, and, as tables, the
// constructors and destructors of communicators and windows, whose objects get (and lose)
// their event handles when the events library ignores the every-object hint
// (handle_table.cpp).
#include "logger.h"

#define MEL_EXPORT extern "C" __attribute__((visibility("default")))

namespace mel = mpimon::mel;

namespace {

// MPI_Init and MPI_Init_thread: the logger's set-up around the real call. A failure of
// ours never fails the application's call: the logger stops, the application runs on.
template <typename PmpiInit>
int init_with_logger(int thread_level, PmpiInit&& pmpi_init) {
  try {
    mel::before_init(thread_level);
  } catch (...) {
  }
  const int rc = pmpi_init();
  if (rc == MPI_SUCCESS) {
    try {
      mel::after_init();
    } catch (...) {
      mel::disable(mel::logger());
    }
  }
  return rc;
}

}  // namespace

MEL_EXPORT int MPI_Init(int* argc, char*** argv) {
  return init_with_logger(MPI_THREAD_SINGLE, [&] { return PMPI_Init(argc, argv); });
}

MEL_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return init_with_logger(required, [&] { return PMPI_Init_thread(argc, argv, required, provided); });
}

MEL_EXPORT int MPI_Finalize(void) {
  try {
    mel::finish();
  } catch (...) {
  }
  return PMPI_Finalize();
}

// Constructors: the MPI function (without MPI_), its parameters, the arguments PMPI gets,
// the new object's address. Handles on the new object once it exists.
// clang-format off
#define MEL_COMMUNICATOR_CONSTRUCTORS(X)                                                                             \
  X(Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm), (comm, newcomm), newcomm)                                          \
  X(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm), (comm, info, newcomm), newcomm)          \
  X(Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request), (comm, newcomm, request), newcomm)         \
  X(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm), (comm, color, key, newcomm), newcomm)       \
  X(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm),                     \
    (comm, split_type, key, info, newcomm), newcomm)                                                                 \
  X(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm), (comm, group, newcomm), newcomm)              \
  X(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm), (comm, group, tag, newcomm),   \
    newcomm)                                                                                                         \
  X(Cart_create, (MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,                 \
                  MPI_Comm* comm_cart),                                                                              \
    (old_comm, ndims, dims, periods, reorder, comm_cart), comm_cart)                                                 \
  X(Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,                \
                   MPI_Comm* comm_graph),                                                                            \
    (comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph)                                               \
  X(Dist_graph_create, (MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[],      \
                        const int weights[], MPI_Info info, int reorder, MPI_Comm* newcomm),                         \
    (comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm), newcomm)                                \
  X(Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],   \
                                 int outdegree, const int destinations[], const int destweights[], MPI_Info info,    \
                                 int reorder, MPI_Comm* comm_dist_graph),                                            \
    (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,                \
     comm_dist_graph), comm_dist_graph)                                                                              \
  X(Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader, int tag,      \
                       MPI_Comm* newintercomm),                                                                      \
    (local_comm, local_leader, bridge_comm, remote_leader, tag, newintercomm), newintercomm)                         \
  X(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm), (intercomm, high, newintracomm),       \
    newintracomm)

#define MEL_WINDOW_CONSTRUCTORS(X)                                                                                   \
  X(Win_create, (void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win),             \
    (base, size, disp_unit, info, comm, win), win)                                                                   \
  X(Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win),        \
    (size, disp_unit, info, comm, baseptr, win), win)                                                                \
  X(Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win), \
    (size, disp_unit, info, comm, baseptr, win), win)                                                                \
  X(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win* win), (info, comm, win), win)

// Destructors: the MPI function (without MPI_), its one parameter's type and name.
// Handles first, while the object still exists.
#define MEL_DESTRUCTORS(X)              \
  X(Comm_free,       MPI_Comm*, comm)   \
  X(Comm_disconnect, MPI_Comm*, comm)   \
  X(Win_free,        MPI_Win*,  win)
// clang-format on

#define MEL_WRAP_CONSTRUCTOR(name, parameters, arguments, created, on_created) \
  MEL_EXPORT int MPI_##name parameters {                                       \
    const int rc = PMPI_##name arguments;                                      \
    if (rc == MPI_SUCCESS) on_created(created);                                \
    return rc;                                                                 \
  }
#define MEL_WRAP_COMMUNICATOR_CONSTRUCTOR(name, parameters, arguments, created) \
  MEL_WRAP_CONSTRUCTOR(name, parameters, arguments, created, mel::communicator_created)
#define MEL_WRAP_WINDOW_CONSTRUCTOR(name, parameters, arguments, created) \
  MEL_WRAP_CONSTRUCTOR(name, parameters, arguments, created, mel::window_created)
#define MEL_WRAP_DESTRUCTOR(name, type, object)        \
  MEL_EXPORT int MPI_##name(type object) {             \
    if (object != nullptr) mel::object_freed(*object); \
    return PMPI_##name(object);                        \
  }

MEL_COMMUNICATOR_CONSTRUCTORS(MEL_WRAP_COMMUNICATOR_CONSTRUCTOR)
MEL_WINDOW_CONSTRUCTORS(MEL_WRAP_WINDOW_CONSTRUCTOR)
MEL_DESTRUCTORS(MEL_WRAP_DESTRUCTOR)
