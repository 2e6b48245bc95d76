// Who talks to whom, as placement sees it: symmetric traffic between processes, stored
// sparsely (one sorted list of partners per process), so memory grows with the pairs that
// communicate, never with processes squared.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace mpimon::placement {

struct Link {
  int peer = 0;
  double weight = 0;  // traffic between the two processes, both directions together
};

// Directed traffic from `from` to `to` (bytes), as read from a dump.
struct Traffic {
  int from = 0;
  int to = 0;
  double amount = 0;
};

class Affinity {
 public:
  explicit Affinity(int processes) : rows_(processes) {}
  // All traffic at once: O(non-zeros x log) instead of one sorted insertion per add().
  Affinity(int processes, std::vector<Traffic> traffic);

  int size() const { return static_cast<int>(rows_.size()); }
  // Adds `amount` between i and j (both directions: call once per direction for directed
  // traffic, as profile2mat's symmetrisation does with a factor 1/2 overall). Self-traffic
  // is ignored: it never leaves the process.
  void add(int i, int j, double amount);
  double at(int i, int j) const;  // binary search in i's partners
  std::span<const Link> partners(int i) const { return rows_[i]; }
  // Sum of i's traffic with everyone.
  double total(int i) const;
  size_t links() const;  // stored (i, j) entries, both directions counted

 private:
  std::vector<std::vector<Link>> rows_;  // sorted by peer
};

}  // namespace mpimon::placement
