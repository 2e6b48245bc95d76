#include "scotch_mapping.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

extern "C" {
#include <scotch.h>
}

namespace mpimon::placement {

Placement scotch_placement(const Affinity& affinity, const Tree& tree, int oversubscription) {
  const int n = affinity.size();
  double max = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) max = std::max(max, affinity.at(i, j));
  // CSR graph of the non-zero traffic, weights scaled to integers (at least 1).
  std::vector<SCOTCH_Num> vertices{0}, edges, weights;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j || affinity.at(i, j) <= 0) continue;
      edges.push_back(j);
      weights.push_back(static_cast<SCOTCH_Num>(std::max(1.0, affinity.at(i, j) / max * 1e6)));
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
  // The tree: arities from the root (plus the oversubscription level); a link costs more
  // the closer it is to the root.
  std::vector<SCOTCH_Num> sizes(tree.arities.begin(), tree.arities.end()), links;
  if (oversubscription > 1) sizes.push_back(oversubscription);
  for (size_t level = 0; level < sizes.size(); ++level) links.push_back(static_cast<SCOTCH_Num>(sizes.size() - level) * 10);
  if (SCOTCH_archTleaf(&arch, static_cast<SCOTCH_Num>(sizes.size()), sizes.data(), links.data()) != 0)
    throw std::runtime_error("Scotch: cannot build the tree architecture");
  std::vector<SCOTCH_Num> parts(n, 0);
  if (n > 0 && SCOTCH_graphMap(&graph, &arch, &strategy, parts.data()) != 0)
    throw std::runtime_error("Scotch: mapping failed");
  // Scotch balances loads but may still stack processes: move extras to free slots.
  int slots = 1;
  for (SCOTCH_Num s : sizes) slots *= s;
  std::vector<int> used(slots, 0);
  Placement placement(n);
  std::vector<int> extras;
  for (int p = 0; p < n; ++p) {
    if (parts[p] >= 0 && parts[p] < slots && used[parts[p]] == 0) {
      used[parts[p]] = 1;
      placement[p] = static_cast<int>(parts[p]);
    } else {
      extras.push_back(p);
    }
  }
  int free_slot = 0;
  for (int p : extras) {
    while (used[free_slot]) ++free_slot;
    used[free_slot] = 1;
    placement[p] = free_slot;
  }
  for (int& leaf : placement) leaf /= std::max(1, oversubscription);
  return placement;
}

}  // namespace mpimon::placement
