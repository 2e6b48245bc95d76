// Machine topologies for placement, through hwloc: this machine, an hwloc XML file, or a
// synthetic description such as "pack:2 core:4 pu:1". Turned into the tree TreeMatch
// uses: the arities from the root down to the cores (levels of arity 1 dropped).
#pragma once

#include <stdexcept>
#include <string>

#include "treematch.h"

namespace mpimon::placement {

struct MachineTree {
  Tree tree;
  std::string description;  // what was loaded, for messages
  int cores_per_package = 1;
};

class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source`: "machine", a path to an hwloc XML file, or a synthetic description. Throws
// TopologyError saying what could not be loaded and why.
MachineTree load_topology(const std::string& source);

// The logical index of the core this process is bound to on this machine (hwloc's cpubind),
// or -1 when its binding does not fall within one core: unbound, bound to a package or to
// several cores.
int bound_core();

}  // namespace mpimon::placement
