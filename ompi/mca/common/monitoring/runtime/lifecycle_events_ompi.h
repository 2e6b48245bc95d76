// Open MPI main's ompi.mpi.initialization / ompi.mpi.finalization events
// (ompi_lifecycle_events.h), raised from our runtime's MPI_Init and MPI_Finalize hooks:
// where main raises them, at the end of MPI_Init and the start of MPI_Finalize.
#pragma once

namespace mpimon {

// Looks the two types up and mirrors their listeners (once, when the runtime starts).
void watch_lifecycle_events();
// `provided`: the thread support MPI_Init(_thread) gives.
void raise_initialization(int provided, bool threaded);
void raise_finalization(bool threaded);

}  // namespace mpimon
