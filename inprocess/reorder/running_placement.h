// Placing a communicator's logical ranks onto the processes that run it, collectively:
// what mpimon_reorder() (traffic from this run's performance variables) and the topology
// component (traffic from a previous run's job file) share.
//
// Every process of `comm` reports where it runs - its host (MPI_Get_processor_name), the
// core it is bound to and its host's tree (hwloc, or `topology` for every host) - and the
// traffic it knows, as (from, to, bytes) between ranks of `comm`: its own row when each
// process measured its own, everything on rank 0 when rank 0 read it from a file. Rank 0
// gathers O(processes + non-zero entries), places with the placement core of `mpimon
// place` (tools/placement: bytes crossing hosts first, then hop-bytes; optimal up to 12
// processes; the current layout kept unless strictly beaten) and scatters one key per
// process: the logical rank it takes, for MPI_Comm_split(comm, 0, key, ...).
//
// Failures are agreed on before any placement: each process passes what went wrong on its
// side (or nothing); if any did, every process returns the same error, rank 0 having
// printed one line "<who>: <the first problem>; nothing reordered" (rank 0's own problem
// when it has one), and no process changes rank.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "affinity.h"

namespace mpimon::reorder {

struct Problem {
  bool failed = false;
  std::string text;  // what went wrong on this process, said by rank 0 when it is rank 0's
};

struct RunningPlacement {
  int status = MPI_SUCCESS;  // MPI_SUCCESS or MPI_ERR_OTHER (then key == rank)
  int key = 0;               // the logical rank this process takes
  std::string summary;       // rank 0: processes, hosts, crossing bytes and hop-bytes before -> after
};

// Collective over `comm` (an intracommunicator). `topology`: NULL or "" for each host's
// own (hwloc), else a synthetic description or an XML file for every host.
RunningPlacement place_on_running_processes(MPI_Comm comm, const char* topology, const char* who,
                                            const Problem& problem, std::vector<placement::Traffic> known);

}  // namespace mpimon::reorder
