// The one way our components tell the user something: one line on stderr, written with a
// single write so that lines of several ranks never interleave (PRRTE forwards stderr as
// it comes). Every component prefixes its lines with its own name ("mpimon",
// "topo_monitoring", "coll_splittree"); what is the same on every rank (an MCA value, the
// installation) is said once per job, by world rank 0. Pure: no MPI, usable before
// MPI_Init. Contract: never throws, never fails the caller.
#pragma once

#include <string>
#include <string_view>

namespace mpimon {

enum class WarningScope {
  every_process,  // what this process alone saw (its file could not be written, ...)
  once_per_job,   // the same on every rank: only world rank 0 says it
};

// This process's world rank as the launcher announced it in the environment
// (OMPI_COMM_WORLD_RANK under mpirun, PMIX_RANK under a PMIx launcher such as
// `srun --mpi=pmix`), or -1 when neither is set (a singleton).
int launcher_world_rank();

// "<source>: <message>\n" on stderr, in one write; with once_per_job, only from world
// rank 0 or a process whose rank is unknown.
void warn_line(std::string_view source, std::string_view message, WarningScope scope);

}  // namespace mpimon
