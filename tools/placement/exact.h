// The optimal placement of a small job: the mapping with the lowest Cost (bytes crossing
// hosts, then hop-bytes) among all mappings of the processes onto the cluster's cores.
//
// Exhaustive, but not by trying the n! orders: the cost is a sum over the tree's edges of
// the traffic crossing each edge (hop-bytes), and over hosts of the traffic leaving them
// (crossing bytes), so the best cost of a subtree depends only on the set of processes it
// receives. A dynamic programme over process subsets (bitmasks) computes, bottom-up, the
// best way to spread each subset over a node's children; subtrees of the same shape
// (identical hosts, identical cores...) share one table, and children of one shape take
// their sets in a canonical order, so symmetric mappings are never enumerated twice.
// A host with more slots than cores shares them evenly (Host::shares_evenly): below it,
// the tables also depend on the processes per core its set allows.
// Cost: about (distinct subtree shapes) x 3^n steps.
#pragma once

#include <optional>

#include "affinity.h"
#include "cluster.h"

namespace mpimon::placement {

constexpr int kExactLimit = 12;  // processes

// The optimal mapping, or nothing when the job has more than kExactLimit processes, does
// not fit, or the cluster has so many distinct subtree shapes that the search would exceed
// its step budget (heterogeneous clusters of hundreds of hosts).
std::optional<Mapping> exact_placement(const Affinity& affinity, const Cluster& cluster);

}  // namespace mpimon::placement
