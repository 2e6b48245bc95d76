// The MPI objects MPI_T handle allocations name, checked without trusting them: a
// communicator, window or file is live when Open MPI's own table of live communicators,
// windows or files holds its address, so an object is recognised before any of its memory is
// read, and freed objects, MPI_COMM_NULL, MPI_WIN_NULL and objects of the wrong kind are
// refused. Used by MPI_T_event_handle_alloc (api.cpp) and by our performance variables
// (ompi/mca/common/monitoring/live/pvars_ompi.cpp).
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include <ompi/runtime/mpiruntime.h>
#include <ompi_config.h>
#include <opal/class/opal_pointer_array.h>

#include "events_internal.h"

// Exported by libmpi (ompi/communicator/communicator.h, ompi/win/win.h, ompi/file/file.h);
// only their addresses and the tables are used here, so the types stay opaque.
struct ompi_predefined_communicator_t;
struct ompi_predefined_win_t;
struct ompi_predefined_file_t;
extern "C" {
extern opal_pointer_array_t ompi_mpi_communicators;  // indexed by context id
extern opal_pointer_array_t ompi_mpi_windows;        // indexed by Fortran index
extern opal_pointer_array_t ompi_file_f_to_c_table;  // indexed by Fortran index
extern ompi_predefined_communicator_t ompi_mpi_comm_world, ompi_mpi_comm_self, ompi_mpi_comm_null;
extern ompi_predefined_win_t ompi_mpi_win_null;
extern ompi_predefined_file_t ompi_mpi_file_null;
}

namespace mpimon::events {
namespace {

// The table is empty before MPI_Init builds it and after MPI_Finalize destroys it (its
// size is then 0), so reading it is always safe. O(table size): allocations only.
bool in_table(opal_pointer_array_t& table, const void* object) {
  const int n = opal_pointer_array_get_size(&table);
  for (int i = 0; i < n; ++i)
    if (opal_pointer_array_get_item(&table, i) == object) return true;
  return false;
}

// Reads the pointer-sized value at `address` without faulting when it is not readable
// memory: through the kernel (process_vm_readv on ourselves, or a pipe where that system
// call is not allowed), which reports EFAULT instead of a signal.
bool read_pointer(const void* address, const void** value) {
  iovec local{value, sizeof *value};
  iovec remote{const_cast<void*>(address), sizeof *value};
  const ssize_t n = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
  if (n == static_cast<ssize_t>(sizeof *value)) return true;
  if (n < 0 && errno == EFAULT) return false;
  static std::mutex pipe_mutex;
  static int fds[2] = {-1, -1};
  std::lock_guard lock(pipe_mutex);
  if (fds[0] < 0 && ::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::memcpy(value, address, sizeof *value);  // no checked way left: the standard's contract
    return true;
  }
  if (::write(fds[1], address, sizeof *value) != static_cast<ssize_t>(sizeof *value)) return false;
  return ::read(fds[0], value, sizeof *value) == static_cast<ssize_t>(sizeof *value);
}

}  // namespace

bool object_is_live(int bind, const void* object) {
  if (object == nullptr) return false;
  switch (bind) {
    case MPI_T_BIND_MPI_COMM:
      return object != &ompi_mpi_comm_null && in_table(ompi_mpi_communicators, object);
    case MPI_T_BIND_MPI_WIN:
      return object != &ompi_mpi_win_null && in_table(ompi_mpi_windows, object);
    case MPI_T_BIND_MPI_FILE:
      return object != &ompi_mpi_file_null && in_table(ompi_file_f_to_c_table, object);
    default:
      return true;  // kinds our layers never bind to: not checked
  }
}

bool predefined_before_init(int bind, const void* object) {
  return bind == MPI_T_BIND_MPI_COMM && ompi_mpi_state < OMPI_MPI_STATE_INIT_COMPLETED &&
         (object == &ompi_mpi_comm_world || object == &ompi_mpi_comm_self);
}

const void* object_named(int bind, const void* obj_handle, bool accept_predefined_before_init) {
  if (obj_handle == nullptr) return nullptr;
  const auto live = [&](const void* object) {
    return object_is_live(bind, object) || (accept_predefined_before_init && predefined_before_init(bind, object));
  };
  // The handle itself (Open MPI's monitoring tests and profiling library pass
  // MPI_COMM_WORLD, not &comm): a variable's address is never a live object's.
  if (live(obj_handle)) return obj_handle;
  const void* value = nullptr;
  if (!read_pointer(obj_handle, &value)) return nullptr;
  return live(value) ? value : nullptr;
}

}  // namespace mpimon::events

extern "C" {

int mpimon_mpi_object_is_live(int bind, const void* object) { return mpimon::events::object_is_live(bind, object); }

const void* mpimon_mpi_object_named(int bind, const void* obj_handle) {
  return mpimon::events::object_named(bind, obj_handle, false);
}

}  // extern "C"
