/* The one entry point of libmpimon_reorder that the topology component (ompi/mca/topo/
 * monitoring) loads, with dlopen, only when it is asked to reorder by a job file: the
 * reader and the placement core never enter a process that does not ask for them.
 * Internal to mpimon (the name carries its version: change both sides together).
 *
 * Collective over `comm` (an intracommunicator). Rank 0 reads `job_file`, a previous run
 * of this program with as many processes, and takes the traffic between the processes of
 * `comm` (by MPI_COMM_WORLD rank: logical rank i of the result is the process that was
 * rank i of `comm` in that run) of the kind `traffic` (MPIMON_REORDER_ALL, _EXTERNAL,
 * _INTERNAL); every process reports where it runs; rank 0 places and each process gets
 * its key (the logical rank it takes). A job file that cannot be read, of another size or
 * of another program: one line on rank 0's stderr "<who>: ...; nothing reordered", and
 * MPI_ERR_OTHER on every process (key = its rank). `verbose`: rank 0 also prints the
 * placement's summary line on success.
 */
#ifndef MPIMON_REORDER_TOPO_H
#define MPIMON_REORDER_TOPO_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIMON_REORDER_TOPO_ENTRY "mpimon_reorder_keys_from_job_file_v1"

typedef int (*mpimon_reorder_keys_from_job_file_fn)(MPI_Comm comm, const char* job_file, int traffic, const char* who,
                                                    int verbose, int* key);

int mpimon_reorder_keys_from_job_file_v1(MPI_Comm comm, const char* job_file, int traffic, const char* who, int verbose,
                                         int* key);

#ifdef __cplusplus
}
#endif

#endif
