// Process placement on one host's tree (TreeMatch): group the processes that talk most,
// bottom-up along the topology tree, so that heavy traffic stays low in the tree.
//
// Pure C++: the topology is given by its arities from the root (e.g. {2, 4}: 2 packages
// of 4 cores); the hwloc-backed front end (machine, XML, synthetic strings) builds it.
// TreeMatch groups with a dense matrix of the processes it places: the cluster-wide
// placement (placement.h) calls it per host, on at most kTreeMatchLimit processes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "affinity.h"

namespace mpimon::placement {

// Largest process count TreeMatch is run on (its grouping matrix is dense: 32 MiB here).
constexpr int kTreeMatchLimit = 2048;

struct Tree {
  std::vector<int> arities;  // from the root; leaves = product
  int leaves() const;
  // Tree edges between two leaves: 2 x (levels below their lowest common ancestor).
  int hops(int leaf_a, int leaf_b) const;
};

// placement[p] = leaf (core) of process p.
using Placement = std::vector<int>;

// Sum over process pairs of traffic x hops ("hop-bytes" when the traffic is bytes).
double hop_cost(const Affinity& affinity, const Tree& tree, const Placement& placement);
// Traffic that crosses the top level (between different root children).
double top_level_cut(const Affinity& affinity, const Tree& tree, const Placement& placement);

Placement identity_placement(int processes);
// Process p on leaf p / oversubscription.
Placement oversubscribed_identity(int processes, int oversubscription);
// Consecutive processes on different root children (round-robin across the top level).
Placement round_robin_placement(int processes, const Tree& tree);

struct Options {
  int oversubscription = 1;  // processes a leaf may host
  // Called with (level done, levels) as grouping proceeds: long computations show progress.
  std::function<void(int, int)> progress;
};

// TreeMatch (never worse than the identity placement). Fewer processes than slots: the
// rest are idle virtual processes; process counts that do not divide the arities work the
// same way. Throws std::invalid_argument when the processes do not fit (more than leaves x
// oversubscription) or exceed kTreeMatchLimit.
Placement treematch(const Affinity& affinity, const Tree& tree, const Options& options = {});
// Pairwise-swap hill climbing on a placement (leaves keep their process counts): swap two
// processes on different leaves while it lowers hop_cost. Up to kTreeMatchLimit processes.
void refine_by_swaps(const Affinity& affinity, const Tree& tree, Placement& placement);

}  // namespace mpimon::placement
