/* mpimon_reorder: rank reordering inside a running application (C API).
 *
 * Reads this job's monitored point-to-point traffic on `comm` (the performance variable
 * pml_monitoring_messages_size: run under mpimon with pml_monitoring_enable >= 1),
 * computes a placement with TreeMatch over the machine topology, and returns a new
 * communicator with the same processes, reordered so that rank i of it is best run on
 * core i. Collective over `comm`.
 *
 *   topology: NULL for this machine's hwloc topology (one level per host above it when
 *             the job spans several hosts), or an hwloc synthetic description
 *             ("pack:2 core:4 pu:1") or XML file for all hosts.
 * Returns MPI_SUCCESS, or an MPI error code (then *reordered is MPI_COMM_NULL); with the
 * monitoring variable unavailable, the error is MPI_ERR_OTHER and nothing is reordered.
 */
#ifndef MPIMON_REORDER_H
#define MPIMON_REORDER_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int mpimon_reorder(MPI_Comm comm, const char* topology, MPI_Comm* reordered);

#ifdef __cplusplus
}
#endif

#endif
