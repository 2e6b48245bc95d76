// Scotch's static mapping of the same traffic onto the same cluster tree (a "tleaf" target
// architecture: network levels, hosts, each host's tree, processes per core), the
// reference `mpimon place` compares its placement with.
#pragma once

#include <optional>
#include <string>

#include "cluster.h"

namespace mpimon::placement {

// Nothing, and why in *why_not, when the cluster is not a regular tree, which tleaf needs
// (hosts of one topology, each with slots = cores x the same processes per core, and full
// switches), when it has more than kScotchLeaves slots (Scotch's architecture and our
// check of its result grow with the slots, not with the job), or when Scotch fails.
constexpr long kScotchLeaves = 1L << 20;
std::optional<Mapping> scotch_placement(const Affinity& affinity, const Cluster& cluster,
                                        std::string* why_not = nullptr);

}  // namespace mpimon::placement
