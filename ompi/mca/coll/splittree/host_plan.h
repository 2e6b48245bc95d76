// This host as the split tree sees it: the job's ranks here, the cores none of them is
// bound to, and the core this process's progress thread goes to (core_placement.h).
// Read from what the launcher told Open MPI (PMIx: the local peers and the cpuset each
// was bound to; no communication) and from hwloc.
#pragma once

#include <string>

namespace mpimon::splittree {

struct HostPlan {
  int ranks_on_host = 1;      // this job's ranks on this host
  int cores = 0;              // the host's cores (hwloc)
  int free_cores = 0;         // cores no rank of this host is bound to
  int thread_core = -1;       // the progress thread's core (hwloc logical index), -1: unknown
  std::string thread_cpuset;  // its PUs, hwloc list syntax ("" : do not bind)
  std::string problem;        // why the plan is partial, if it is
};

// Computed once (later calls return the same plan).
const HostPlan& host_plan();

}  // namespace mpimon::splittree
