// Splitting a set of processes in two with capacities: side A takes between min_a and
// max_a of them, side B the rest, with as little traffic between the sides as possible.
// The step the heuristic placement repeats down the cluster tree (placement.cpp).
//
// Greedy growth from a few seeds (side A grows by the process whose move adds the least
// traffic between the sides, and the best size in [min_a, max_a] is kept), then
// Fiduccia-Mattheyses passes (single moves by best gain within the size bounds, rolled
// back to the best point). Sparse throughout: O(links x log n) per pass, no n x n storage.
#pragma once

#include <span>
#include <vector>

#include "affinity.h"

namespace mpimon::placement {

class Bisector {
 public:
  explicit Bisector(const Affinity& affinity) : affinity_(affinity), local_(affinity.size(), -1) {}
  // in_a[k] says whether vertices[k] goes to side A. Requires 0 <= min_a <= max_a and
  // vertices.size() - max_a <= what B takes, i.e. min_a = max(0, size - B's capacity).
  std::vector<char> split(std::span<const int> vertices, int min_a, int max_a);
  // Traffic between the two sides of a split.
  double cut(std::span<const int> vertices, const std::vector<char>& in_a);

 private:
  const Affinity& affinity_;
  std::vector<int> local_;  // process -> index in the current set, -1 outside
};

}  // namespace mpimon::placement
