// The layout of a running job, as mpimon_reorder() learns it: each process reports its
// host, the core it is bound to and its host's topology; the processes that exist become a
// cluster whose slots are exactly those processes, and a placement of the application's
// logical ranks onto it becomes one key per process for MPI_Comm_split.
#pragma once

#include <string>
#include <vector>

#include "cluster.h"

namespace mpimon::placement {

struct ProcessReport {
  std::string host;          // MPI_Get_processor_name
  int core = -1;             // bound core (logical index), -1 unbound
  std::vector<int> arities;  // its host's tree
};

struct RunningJob {
  Cluster cluster;  // hosts in order of their first process; core capacities = processes there
  Mapping current;  // process -> where it runs
};

// Unbound processes (or bound to a core their host's tree does not have) are counted on
// their host's cores the way by-slot binding would put them: the k-th unbound process of a
// host on core k / ceil(unbound / cores). Placement decides their host exactly; within the
// host, the operating system may move them anyway.
RunningJob running_job(const std::vector<ProcessReport>& processes);

// key[p]: the logical rank process p takes, so that logical rank i runs at placed[i].
// A process stays its own logical rank when the placement leaves that rank where the
// process already runs (no permutation for no gain).
std::vector<int> keys_for(const Mapping& placed, const Mapping& current);

}  // namespace mpimon::placement
