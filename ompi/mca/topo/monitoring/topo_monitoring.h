// topo/monitoring: zero-code reordering. An application that creates a Cartesian or graph
// communicator with reorder = 1 gets its ranks placed by a previous run's measured
// traffic over where this run's processes really are, when the user names that run's job
// file (topo_monitoring_job_file); without one, the component declines and Open MPI's
// default (topo/basic: no reordering) applies, at no cost. Reference: docs/placement.md.
//
// The placement itself (job-file reader, placement core) lives in libmpimon_reorder.so,
// loaded with dlopen on the first reordering that needs it (inprocess/reorder/
// mpimon_reorder_topo.h): nothing of it enters a process that does not ask for it.
// Distributed graphs are declined (see topo_monitoring_component.cpp).
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/mca/topo/topo.h>

#include <string>

namespace mpimon::topo {

struct Settings {
  std::string job_file;  // empty: decline every communicator
  int traffic = 0;       // MPIMON_REORDER_ALL, _EXTERNAL or _INTERNAL
  bool verbose = false;
};
const Settings& settings();

// Prints one line on stderr, from MPI_COMM_WORLD rank 0 only when `once_per_job`.
void warn(const std::string& message, bool once_per_job);

// A module for a Cartesian or graph communicator: cart_create / graph_create reorder when
// asked to; every other function is Open MPI's base one (filled in by the framework).
mca_topo_base_module_t* new_module(uint32_t type);

}  // namespace mpimon::topo
