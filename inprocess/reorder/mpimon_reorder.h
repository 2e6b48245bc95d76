/* mpimon_reorder: rank reordering inside a running application (C API; Fortran: the
 * `mpimon` module, mpimon_reorder.f90). Reference: docs/placement.md.
 *
 * Reads this job's monitored traffic on `comm` - what this process sent to each rank of
 * it, through mpimon's performance variables (run under mpimon with pml_monitoring_enable
 * >= 1) - and where each process of `comm` really runs: its host (MPI_Get_processor_name)
 * and the core it is bound to (hwloc). It then places the application's logical ranks
 * onto these processes with the placement of `mpimon place` (bytes crossing hosts first,
 * then hop-bytes; optimal up to 12 processes) and returns a new communicator with the
 * same processes, so that rank i of it runs where logical rank i is best run. Nothing
 * moves when no placement is strictly better: then rank i of it is rank i of `comm`.
 * Collective over `comm`; rank 0 gathers O(processes + non-zero traffic entries).
 *
 *   traffic:  what the placement is made from (mpimon_reorder_by):
 *             MPIMON_REORDER_ALL       everything this process sent, collectives decomposed
 *                                      into their point-to-point messages: E + I (the default,
 *                                      mpimon_reorder)
 *             MPIMON_REORDER_EXTERNAL  the application's own point-to-point messages (E,
 *                                      pml_monitoring_messages_size; Open MPI's example)
 *             MPIMON_REORDER_INTERNAL  the messages of collectives only (I,
 *                                      pml_monitoring_internal_messages_size)
 *             counted since MPI_Init, or since the last mpimon_reorder_mark() on `comm`
 *             (a phase: mark, run the phase, reorder).
 *   topology: NULL or "" for each host's own hwloc topology, or an hwloc synthetic
 *             description ("pack:2 core:4 pu:1") or XML file for every host (bindings are
 *             read as logical core numbers in it).
 * Unbound processes (no binding, or bound to more than one core, as mpirun's default
 * binding to a package does beyond 2 processes) count on their host's cores in rank order,
 * as by-slot binding would put them: their host is placed exactly, their core is only a
 * model. Set MPIMON_REORDER_VERBOSE=1 for one line on rank 0's stderr with the bytes
 * crossing hosts and the hop-bytes before and after.
 *
 * Returns MPI_SUCCESS, or MPI_ERR_OTHER with *reordered = MPI_COMM_NULL and one line on
 * rank 0's stderr (monitoring off, a topology that cannot be loaded); MPI_ERR_ARG for an
 * unknown `traffic`.
 */
#ifndef MPIMON_REORDER_H
#define MPIMON_REORDER_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIMON_REORDER_ALL 0
#define MPIMON_REORDER_EXTERNAL 1
#define MPIMON_REORDER_INTERNAL 2

/* By all the traffic (MPIMON_REORDER_ALL). */
int mpimon_reorder(MPI_Comm comm, const char* topology, MPI_Comm* reordered);

/* By the traffic chosen. */
int mpimon_reorder_by(MPI_Comm comm, const char* topology, int traffic, MPI_Comm* reordered);

/* Starts a phase on `comm`: later reorderings of `comm` count only what this process
 * sends from now on. Local (no communication); call it on every process of `comm`.
 * Returns MPI_ERR_OTHER when monitoring is off. */
int mpimon_reorder_mark(MPI_Comm comm);

/* The same with Fortran handles, for the Fortran binding. */
int mpimon_reorder_fortran(MPI_Fint comm, const char* topology, MPI_Fint* reordered);
int mpimon_reorder_by_fortran(MPI_Fint comm, const char* topology, int traffic, MPI_Fint* reordered);
int mpimon_reorder_mark_fortran(MPI_Fint comm);

#ifdef __cplusplus
}
#endif

#endif
