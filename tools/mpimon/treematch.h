// Process placement on a tree-shaped machine (TreeMatch): group the processes that talk
// most, bottom-up along the topology tree, so that heavy traffic stays low in the tree.
//
// Pure C++: the topology is given by its arities from the root (e.g. {2, 4}: 2 packages
// of 4 cores); the hwloc-backed front end (machine, XML, synthetic strings) builds it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mpimon::placement {

// Symmetric traffic between processes (n x n, row-major); diagonal ignored.
class Affinity {
 public:
  explicit Affinity(int n) : n_(n), w_(static_cast<size_t>(n) * n, 0.0) {}
  int size() const { return n_; }
  double at(int i, int j) const { return w_[static_cast<size_t>(i) * n_ + j]; }
  // Adds `amount` between i and j in both directions (directed traffic: call once per
  // direction, as profile2mat's symmetrisation does with a factor 1/2 overall).
  void add(int i, int j, double amount);

 private:
  int n_;
  std::vector<double> w_;
};

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

// TreeMatch (never worse than the identity placement). Fewer processes than slots: the rest are idle virtual processes; process
// counts that do not divide the arities work the same way. Throws std::invalid_argument
// when the processes do not fit (more than leaves x oversubscription).
Placement treematch(const Affinity& affinity, const Tree& tree, const Options& options = {});

}  // namespace mpimon::placement
