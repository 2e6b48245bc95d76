// Checking the object of an MPI_T performance-variable handle before Open MPI's core
// reads it.
//
// Open MPI 4.1.4's MPI_T_pvar_handle_alloc reads the object through the pointer it is
// given (*(void**)obj_handle) and gives the result to the variable's bind callback; and
// if that callback fails, the core crashes (its handle destructor unlinks a list entry
// that was never linked). So an invalid object cannot be refused from the callback.
// check_bound_objects() redirects libmpi's one call of mca_base_pvar_handle_alloc (its
// GOT entry: the call from MPI_T_pvar_handle_alloc) through a check that, for variables
// bound to communicators, windows or files:
// - refuses with MPI_T_ERR_INVALID anything that is not a live object of the variable's
//   kind: MPI_COMM_NULL, MPI_WIN_NULL, MPI_FILE_NULL, a freed object, an object of another kind, any
//   other pointer (never read unchecked: see mpimon_mpi_object_named);
// - accepts the communicator itself as well as its address: Open MPI's own monitoring
//   tests and Debian's ompi_monitoring_prof.so pass MPI_COMM_WORLD, not &comm.
#pragma once

namespace mpimon::pvars {

// Idempotent. False if libmpi's entry was not found (another platform or linking); bind
// callbacks must then accept any object without failing (see live/pvars_ompi.cpp).
bool check_bound_objects();

}  // namespace mpimon::pvars
