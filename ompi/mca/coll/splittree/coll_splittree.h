// coll/splittree: the split-tree nonblocking collectives (ibcast, ireduce, iallreduce,
// igather, iscatter) of Denis et al. (Euro-Par 2018), opt-in (coll_splittree_enable 1).
// The upper H - S levels of a binomial tree run on a progress thread bound to a core no
// rank of the host uses (else the least loaded), the lower S levels in the application's
// progress. A COLL component of its own, stacked like any other: Open MPI's modules
// provide everything else, and our monitoring module (priority 100) stacks on top.
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/mca/coll/coll.h>

#include <string>

namespace mpimon::splittree {

struct Settings {
  bool enabled = false;  // coll_splittree_enable
  int levels = -1;       // coll_splittree_levels: S, or -1 for the model's choice
  int priority = 50;     // coll_splittree_priority
  bool verbose = false;  // coll_splittree_verbose
  bool usable = false;   // enabled and MPI_THREAD_MULTIPLE
};
Settings& settings();

// A module for one intracommunicator.
mca_coll_base_module_t* new_module();

// One line on stderr, "coll_splittree: ..." (world rank 0 only for once_per_job).
void warn(const std::string& message, bool once_per_job);

}  // namespace mpimon::splittree
