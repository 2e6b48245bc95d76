// Scotch's static mapping of the same traffic onto the same cluster tree (a "tleaf" target
// architecture: network levels, hosts, each host's tree, processes per core), the
// reference `mpimon place` compares its placement with.
#pragma once

#include <optional>

#include "cluster.h"

namespace mpimon::placement {

// Nothing when the cluster is not a regular tree, which tleaf needs: hosts of one topology,
// each with slots = cores x the same processes per core, and full switches. Throws
// std::runtime_error when Scotch fails.
std::optional<Mapping> scotch_placement(const Affinity& affinity, const Cluster& cluster);

}  // namespace mpimon::placement
