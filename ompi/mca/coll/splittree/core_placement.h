// Where the progress thread of each rank of a host goes: on a core no rank of the host
// is bound to, or, with none free, on the least loaded one. Pure: every rank of the host
// computes the same plan from the same bindings and takes its own line, so threads
// spread over the free cores without talking to each other.
#pragma once

#include <vector>

namespace mpimon::splittree {

struct CorePlan {
  std::vector<int> thread_core;  // per local rank: the core (index into the host's cores)
  int free_cores = 0;            // cores no rank is bound to
};

// `rank_cores[i]`: the cores local rank i's binding covers (empty: not bound, i.e. all).
// A rank covering c cores loads each of them by 1/c; each thread placed adds 1 to its
// core. Threads go, in local-rank order, to the least loaded core (ties: the lowest).
CorePlan plan_progress_cores(int cores, const std::vector<std::vector<int>>& rank_cores);

}  // namespace mpimon::splittree
