#include "exact.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_map>

namespace mpimon::placement {

namespace {

using Set = uint32_t;  // a set of processes, bit p = process p

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr Cost kImpossible{kInfinity, kInfinity};
// Subset steps before giving up (about a second); homogeneous clusters need far fewer.
constexpr long kStepBudget = 60'000'000;

int size_of(Set s) { return std::popcount(s); }
Set lowest(Set s) { return s & (~s + 1); }

// A subtree up to symmetry: two nodes of one shape have the same best cost for every set.
struct Shape {
  int capacity = 0;  // clamped to the job size: larger capacities constrain nothing
  bool is_host = false;
  bool is_core = false;
  bool shares_evenly = false;             // a host whose cores take an even share of its processes
  int cores = 1;                          // cores below (clamped to the job size)
  std::vector<std::pair<int, int>> runs;  // (child shape, how many such children), by shape id
};

class Search {
 public:
  Search(const Affinity& affinity, const Cluster& cluster)
      : n_(affinity.size()), tree_(cluster), shape_of_(tree_.nodes.size(), -1) {
    compute_boundaries(affinity);
    std::map<std::vector<int>, int> ids;  // shape key -> id
    std::vector<long> cores(tree_.nodes.size(), 1);
    for (int node = static_cast<int>(tree_.nodes.size()) - 1; node >= 0; --node) {  // children first
      const CapacityTree::Node& t = tree_.nodes[node];
      if (!t.children.empty()) cores[node] = 0;
      for (int c : t.children) cores[node] += cores[c];
      const bool even = t.is_host && cluster.hosts[t.host].shares_evenly();
      Shape shape{std::min(t.capacity, n_),
                  t.is_host,
                  t.children.empty(),
                  even,
                  static_cast<int>(std::min<long>(cores[node], n_)),
                  {}};
      std::map<int, int> children;
      for (int c : t.children)
        if (tree_.nodes[c].capacity > 0) ++children[shape_of_[c]];
      for (auto [child, count] : children) shape.runs.push_back({child, std::min(count, n_)});
      std::vector<int> key{shape.capacity, shape.is_host, shape.is_core, shape.shares_evenly, shape.cores};
      for (auto [child, count] : shape.runs) key.insert(key.end(), {child, count});
      auto [it, added] = ids.emplace(key, static_cast<int>(shapes_.size()));
      if (added) shapes_.push_back(shape);
      shape_of_[node] = it->second;
    }
  }

  std::optional<Mapping> run() {
    const Set all = n_ == 0 ? 0 : (Set{1} << n_) - 1;
    if (best(shape_of_[0], all, 0) == kImpossible || steps_ > kStepBudget) return std::nullopt;
    Mapping mapping(n_);
    assign(0, all, 0, mapping);
    return mapping;
  }

 private:
  struct Entry {
    Cost cost = kImpossible;
    Set choice = 0;
    bool done = false;
  };

  // boundary_[S] = traffic between S and the other processes.
  void compute_boundaries(const Affinity& affinity) {
    const size_t sets = size_t{1} << n_;
    std::vector<double> degree(n_, 0);
    boundary_.assign(sets, 0);
    for (int p = 0; p < n_; ++p) degree[p] = affinity.total(p);
    for (Set s = 1; s < sets; ++s) {
      const int p = std::countr_zero(s);
      const Set rest = s & (s - 1);
      double with_rest = 0;
      for (const Link& l : affinity.partners(p))
        if (rest >> l.peer & 1) with_rest += l.weight;
      boundary_[s] = boundary_[rest] + degree[p] - 2 * with_rest;
    }
  }

  // `share`: processes per core below an evenly sharing host (0: no such host above).
  Entry& slot(int kind, int shape, int index, int share, Set s) {
    std::vector<Entry>& table = tables_[static_cast<int64_t>(shape) << 32 | static_cast<int64_t>(share) << 24 |
                                        static_cast<int64_t>(index) << 1 | kind];
    if (table.empty()) table.resize(size_t{1} << n_);
    return table[s];
  }

  // The cost of the edge above a child of shape `c` that receives `s`.
  Cost edge(int c, Set s) const { return {shapes_[c].is_host ? boundary_[s] / 2 : 0.0, boundary_[s]}; }

  // The processes a subtree takes when each core takes at most `share` (0: no limit).
  int capacity(int shape, int share) const {
    const Shape& sh = shapes_[shape];
    return share == 0 ? sh.capacity : std::min(sh.capacity, share * sh.cores);
  }

  // An evenly sharing host receiving s gives each core at most ceil(|s| / cores).
  int share_below(int shape, Set s, int share) const {
    const Shape& sh = shapes_[shape];
    return sh.shares_evenly ? (size_of(s) + sh.cores - 1) / sh.cores : share;
  }

  Cost best(int shape, Set s, int share) {
    const Shape& sh = shapes_[shape];
    share = share_below(shape, s, share);
    if (size_of(s) > capacity(shape, share)) return kImpossible;
    if (sh.is_core || s == 0) return {};
    return split(shape, 0, s, share);
  }

  // The best way to give `rest` to the runs r, r+1, ... of `shape`'s children.
  Cost split(int shape, int r, Set rest, int share) {
    const auto& runs = shapes_[shape].runs;
    if (r == static_cast<int>(runs.size())) return rest == 0 ? Cost{} : kImpossible;
    Entry& e = slot(0, shape, r, share, rest);
    if (e.done) return e.cost;
    int later = 0;
    for (size_t k = r + 1; k < runs.size(); ++k) later += runs[k].second * capacity(runs[k].first, share);
    const auto [child, count] = runs[r];
    const int room = count * capacity(child, share);
    Entry found;
    // Every subset of `rest` (the empty one last) for this run.
    for (Set u = rest;; u = (u - 1) & rest) {
      ++steps_;
      if (size_of(u) <= room && size_of(rest ^ u) <= later) {
        Cost c = bins(child, count, u, share);
        if (c != kImpossible) c += split(shape, r + 1, rest ^ u, share);
        if (c < found.cost) found.cost = c, found.choice = u;
      }
      if (u == 0 || steps_ > kStepBudget) break;
    }
    found.done = true;
    return (slot(0, shape, r, share, rest) = found).cost;
  }

  // The best way to spread `s` over `count` interchangeable children of shape `child`: the
  // first takes the lowest process and any others, so each partition is seen once.
  Cost bins(int child, int count, Set s, int share) {
    if (s == 0) return {};
    if (count == 0) return kImpossible;
    Entry& e = slot(1, child, count, share, s);
    if (e.done) return e.cost;
    const Set low = lowest(s), others = s ^ low;
    Entry found;
    for (Set sub = others;; sub = (sub - 1) & others) {
      ++steps_;
      const Set t = sub | low;
      if (size_of(t) <= capacity(child, share)) {
        Cost c = best(child, t, share);
        if (c != kImpossible) {
          c += edge(child, t);
          c += bins(child, count - 1, s ^ t, share);
          if (c < found.cost) found.cost = c, found.choice = t;
        }
      }
      if (sub == 0 || steps_ > kStepBudget) break;
    }
    found.done = true;
    return (slot(1, child, count, share, s) = found).cost;
  }

  // Follows the recorded choices down the concrete tree.
  void assign(int node, Set s, int share, Mapping& mapping) {
    const CapacityTree::Node& t = tree_.nodes[node];
    if (t.children.empty()) {
      for (Set rest = s; rest; rest &= rest - 1) mapping[std::countr_zero(rest)] = {t.host, t.core};
      return;
    }
    const int shape = shape_of_[node];
    share = share_below(shape, s, share);
    const auto& runs = shapes_[shape].runs;
    Set rest = s;
    for (size_t r = 0; r < runs.size(); ++r) {
      const auto [child_shape, count] = runs[r];
      Set u = slot(0, shape, static_cast<int>(r), share, rest).choice;
      rest ^= u;
      int remaining = count;
      for (int c : t.children) {
        if (u == 0) break;
        if (tree_.nodes[c].capacity == 0 || shape_of_[c] != child_shape) continue;
        const Set part = slot(1, child_shape, remaining--, share, u).choice;
        assign(c, part, share, mapping);
        u ^= part;
      }
    }
  }

  int n_;
  CapacityTree tree_;
  std::vector<int> shape_of_;  // node -> shape
  std::vector<Shape> shapes_;
  std::vector<double> boundary_;
  std::unordered_map<int64_t, std::vector<Entry>> tables_;
  long steps_ = 0;
};

}  // namespace

std::optional<Mapping> exact_placement(const Affinity& affinity, const Cluster& cluster) {
  if (affinity.size() > kExactLimit || affinity.size() > cluster.capacity()) return std::nullopt;
  return Search(affinity, cluster).run();
}

}  // namespace mpimon::placement
