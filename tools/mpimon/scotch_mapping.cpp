#include "scotch_mapping.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include <scotch.h>
}

namespace mpimon::placement {

namespace {

// The tleaf levels from the root, or nothing when the cluster is not a regular tree.
std::optional<std::vector<SCOTCH_Num>> regular_levels(const Cluster& cluster) {
  const Host& first = cluster.hosts.front();
  const int per_core = first.capacity_of(0);
  for (const Host& h : cluster.hosts) {
    if (h.tree.arities != first.tree.arities || h.slots != h.cores() * per_core) return std::nullopt;
    for (int core = 0; core < h.cores(); ++core)
      if (h.capacity_of(core) != per_core) return std::nullopt;
  }
  std::vector<SCOTCH_Num> levels;  // bottom-up first, reversed below
  int groups = static_cast<int>(cluster.hosts.size());
  for (int size : cluster.network) {
    if (groups % size != 0) return std::nullopt;  // a partly filled switch
    levels.push_back(size);
    groups /= size;
  }
  levels.push_back(groups);
  std::reverse(levels.begin(), levels.end());
  levels.insert(levels.end(), first.tree.arities.begin(), first.tree.arities.end());
  std::erase(levels, 1);  // a single host, a one-core host: no choice at that level
  if (levels.empty()) levels.push_back(1);
  return levels;
}

}  // namespace

namespace {

Mapping map_with_scotch(const Affinity& affinity, const Cluster& cluster, const std::vector<SCOTCH_Num>& levels) {
  const int n = affinity.size();
  const int per_core = cluster.hosts.front().capacity_of(0);
  const int cores = cluster.hosts.front().cores();
  // Links cost what our hops count: 2 per level below the common ancestor; processes
  // sharing a core (the last level when several share one) are nearly free.
  std::vector<SCOTCH_Num> sizes = levels, links;
  const int depth = static_cast<int>(sizes.size());
  for (int level = 0; level < depth; ++level) links.push_back(20 * (depth - level));
  if (per_core > 1) {
    sizes.push_back(per_core);
    links.push_back(1);
  }

  double max = 0;
  for (int i = 0; i < n; ++i)
    for (const Link& l : affinity.partners(i)) max = std::max(max, l.weight);
  // CSR graph of the non-zero traffic, weights scaled to integers (at least 1).
  std::vector<SCOTCH_Num> vertices{0}, edges, weights;
  for (int i = 0; i < n; ++i) {
    for (const Link& l : affinity.partners(i)) {
      edges.push_back(l.peer);
      weights.push_back(static_cast<SCOTCH_Num>(std::max(1.0, l.weight / max * 1e6)));
    }
    vertices.push_back(static_cast<SCOTCH_Num>(edges.size()));
  }
  SCOTCH_Graph graph;
  SCOTCH_Arch arch;
  SCOTCH_Strat strategy;
  if (SCOTCH_graphInit(&graph) != 0) throw std::runtime_error("Scotch: cannot initialise a graph");
  SCOTCH_archInit(&arch);
  SCOTCH_stratInit(&strategy);
  struct Cleanup {
    SCOTCH_Graph* g;
    SCOTCH_Arch* a;
    SCOTCH_Strat* s;
    ~Cleanup() {
      SCOTCH_stratExit(s);
      SCOTCH_archExit(a);
      SCOTCH_graphExit(g);
    }
  } cleanup{&graph, &arch, &strategy};
  if (SCOTCH_graphBuild(&graph, 0, n, vertices.data(), nullptr, nullptr, nullptr, static_cast<SCOTCH_Num>(edges.size()),
                        edges.data(), weights.data()) != 0)
    throw std::runtime_error("Scotch: cannot build the traffic graph");
  if (SCOTCH_archTleaf(&arch, static_cast<SCOTCH_Num>(sizes.size()), sizes.data(), links.data()) != 0)
    throw std::runtime_error("Scotch: cannot build the tree architecture");
  std::vector<SCOTCH_Num> parts(n, 0);
  if (n > 0 && SCOTCH_graphMap(&graph, &arch, &strategy, parts.data()) != 0)
    throw std::runtime_error("Scotch: mapping failed");
  // Scotch balances loads but may still stack processes on a leaf: move extras to free ones.
  const long slots = static_cast<long>(cluster.hosts.size()) * cores * per_core;
  std::vector<char> used(slots, 0);
  std::vector<long> leaf(n);
  std::vector<int> extras;
  for (int p = 0; p < n; ++p) {
    if (parts[p] >= 0 && parts[p] < slots && !used[parts[p]]) {
      used[parts[p]] = 1;
      leaf[p] = parts[p];
    } else {
      extras.push_back(p);
    }
  }
  long free_leaf = 0;
  for (int p : extras) {
    while (used[free_leaf]) ++free_leaf;
    used[free_leaf] = 1;
    leaf[p] = free_leaf;
  }
  Mapping mapping(n);
  for (int p = 0; p < n; ++p)
    mapping[p] = {static_cast<int>(leaf[p] / (cores * per_core)),
                  static_cast<int>(leaf[p] % (cores * per_core) / per_core)};
  return mapping;
}

}  // namespace

std::optional<Mapping> scotch_placement(const Affinity& affinity, const Cluster& cluster, std::string* why_not) {
  auto say = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return std::nullopt;
  };
  const std::optional<std::vector<SCOTCH_Num>> levels = regular_levels(cluster);
  if (!levels)
    return say("its tree architecture needs hosts of one topology, slots a multiple of their cores and full switches");
  const Host& first = cluster.hosts.front();
  if (static_cast<long>(cluster.hosts.size()) * first.cores() * first.capacity_of(0) > kScotchLeaves)
    return say("not run on more than " + std::to_string(kScotchLeaves) + " slots in all");
  try {
    return map_with_scotch(affinity, cluster, *levels);
  } catch (const std::runtime_error& e) {
    return say(e.what());
  }
}

}  // namespace mpimon::placement
