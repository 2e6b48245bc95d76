#include "treematch.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace mpimon::placement {

int Tree::leaves() const {
  int product = 1;
  for (int a : arities) product *= a;
  return product;
}

int Tree::hops(int a, int b) const {
  // Walk up from the leaves: at each level the index divides by that level's arity.
  int levels = 0;
  for (auto it = arities.rbegin(); it != arities.rend() && a != b; ++it) {
    a /= *it;
    b /= *it;
    ++levels;
  }
  return 2 * levels;
}

double hop_cost(const Affinity& affinity, const Tree& tree, const Placement& placement) {
  double cost = 0;
  for (int i = 0; i < affinity.size(); ++i)
    for (const Link& l : affinity.partners(i))
      if (l.peer > i) cost += l.weight * tree.hops(placement[i], placement[l.peer]);
  return cost;
}

double top_level_cut(const Affinity& affinity, const Tree& tree, const Placement& placement) {
  const int per_child = tree.leaves() / (tree.arities.empty() ? 1 : tree.arities.front());
  double cut = 0;
  for (int i = 0; i < affinity.size(); ++i)
    for (const Link& l : affinity.partners(i))
      if (l.peer > i && placement[i] / per_child != placement[l.peer] / per_child) cut += l.weight;
  return cut;
}

Placement identity_placement(int processes) {
  Placement p(processes);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

Placement round_robin_placement(int processes, const Tree& tree) {
  const int top = tree.arities.empty() ? 1 : tree.arities.front();
  const int per_child = tree.leaves() / top;
  Placement p(processes);
  for (int i = 0; i < processes; ++i) p[i] = (i % top) * per_child + (i / top) % per_child;
  return p;
}

namespace {

// One grouping attempt: seeds chosen by `seed_rank` (the unassigned entity with the
// highest rank seeds the next group), grown greedily by affinity, then pairwise swaps
// while they reduce the traffic between groups.
std::vector<std::vector<int>> group_from(const std::vector<std::vector<double>>& w, int arity,
                                         const std::vector<double>& seed_rank, const std::vector<double>& tie_rank) {
  const int m = static_cast<int>(w.size());
  const int groups = m / arity;
  std::vector<int> group_of(m, -1);
  std::vector<std::vector<int>> members(groups);
  for (int g = 0; g < groups; ++g) {
    int seed = -1;
    for (int i = 0; i < m; ++i)
      if (group_of[i] < 0 && (seed < 0 || seed_rank[i] > seed_rank[seed])) seed = i;
    group_of[seed] = g;
    members[g].push_back(seed);
    while (static_cast<int>(members[g].size()) < arity) {
      int best = -1;
      double best_affinity = -1;
      for (int x = 0; x < m; ++x) {
        if (group_of[x] >= 0) continue;
        double a = 0;
        for (int y : members[g]) a += w[x][y];
        if (a > best_affinity || (a == best_affinity && tie_rank[x] > tie_rank[best])) best_affinity = a, best = x;
      }
      group_of[best] = g;
      members[g].push_back(best);
    }
  }
  // affinity[x][g]: traffic between x and the members of group g.
  std::vector<std::vector<double>> affinity(m, std::vector<double>(groups, 0));
  for (int x = 0; x < m; ++x)
    for (int y = 0; y < m; ++y) affinity[x][group_of[y]] += w[x][y];
  for (int pass = 0; pass < 20; ++pass) {
    bool improved = false;
    for (int x = 0; x < m; ++x) {
      for (int y = x + 1; y < m; ++y) {
        const int a = group_of[x], b = group_of[y];
        if (a == b) continue;
        const double gain = affinity[x][b] - affinity[x][a] + affinity[y][a] - affinity[y][b] - 2 * w[x][y];
        if (gain <= 1e-9) continue;
        for (int z = 0; z < m; ++z) {
          affinity[z][a] += w[z][y] - w[z][x];
          affinity[z][b] += w[z][x] - w[z][y];
        }
        std::swap(*std::find(members[a].begin(), members[a].end(), x),
                  *std::find(members[b].begin(), members[b].end(), y));
        group_of[x] = b;
        group_of[y] = a;
        improved = true;
      }
    }
    if (!improved) break;
  }
  return members;
}

double cut_of(const std::vector<std::vector<double>>& w, const std::vector<std::vector<int>>& groups) {
  double inside = 0, all = 0;
  for (const auto& row : w)
    for (double v : row) all += v;
  for (const auto& g : groups)
    for (int x : g)
      for (int y : g) inside += w[x][y];
  return all - inside;
}

// Splits entities 0..m-1 into groups of `arity` maximising the traffic inside groups.
// Greedy growth with local swaps depends on where groups start: a few seed orders are
// tried (busiest first, quietest first — corners of a stencil —, index order and its
// reverse) and the smallest cut kept.
std::vector<std::vector<int>> group(const std::vector<std::vector<double>>& w, int arity) {
  const int m = static_cast<int>(w.size());
  std::vector<double> busiest(m, 0), quietest(m), first(m), last(m);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j) busiest[i] += w[i][j];
    quietest[i] = -busiest[i];
    first[i] = -i;
    last[i] = i;
  }
  std::vector<std::vector<int>> best;
  double best_cut = 0;
  auto attempt = [&](const std::vector<double>& seeds, const std::vector<double>& ties) {
    auto groups = group_from(w, arity, seeds, ties);
    const double cut = cut_of(w, groups);
    if (best.empty() || cut < best_cut) best = std::move(groups), best_cut = cut;
  };
  for (const auto* order : {&busiest, &quietest, &first, &last}) attempt(*order, first);
  // Symmetric patterns (stencils) are full of ties, and index order breaks them into
  // rows: a few fixed pseudo-random tie orders find the blocks.
  std::mt19937 random(12345);
  std::uniform_real_distribution<double> uniform(0, 1);
  const int tries = m <= 256 ? 8 : 2;
  for (int t = 0; t < tries; ++t) {
    std::vector<double> ties(m);
    for (double& v : ties) v = uniform(random);
    attempt(quietest, ties);
  }
  return best;
}

}  // namespace

// Grouping level by level cannot undo an early choice that a later level makes costly (on
// large regular grids its blocks can end up no better than row-major order); swaps see the
// whole tree. Gains are computed from each process's traffic list, so a pass costs
// O(n^2 x degree): hence the limit (a few passes at 1024 processes take well under a second).
void refine_by_swaps(const Affinity& affinity, const Tree& tree, Placement& placement) {
  const int n = affinity.size();
  if (n > kTreeMatchLimit) return;
  // Cost change of moving x from leaf `from` to leaf `to`, ignoring its traffic with `skip`.
  auto move_delta = [&](int x, int from, int to, int skip) {
    double delta = 0;
    for (const auto& [z, weight] : affinity.partners(x)) {
      if (z == skip) continue;
      delta += weight * (tree.hops(to, placement[z]) - tree.hops(from, placement[z]));
    }
    return delta;
  };
  for (int pass = 0; pass < 8; ++pass) {
    bool improved = false;
    for (int x = 0; x < n; ++x) {
      if (affinity.partners(x).empty()) continue;
      for (int y = x + 1; y < n; ++y) {
        const int px = placement[x], py = placement[y];
        if (px == py) continue;
        const double delta = move_delta(x, px, py, y) + move_delta(y, py, px, x);
        if (delta < -1e-9 * (1 + std::abs(delta))) {
          placement[x] = py;
          placement[y] = px;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
}

Placement oversubscribed_identity(int processes, int oversubscription) {
  Placement p(processes);
  for (int i = 0; i < processes; ++i) p[i] = i / std::max(1, oversubscription);
  return p;
}

Placement treematch(const Affinity& affinity, const Tree& tree, const Options& options) {
  const int n = affinity.size();
  std::vector<int> arities = tree.arities;
  if (options.oversubscription > 1) arities.push_back(options.oversubscription);
  int slots = 1;
  for (int a : arities) slots *= a;
  if (n > slots)
    throw std::invalid_argument(std::to_string(n) + " processes do not fit on " + std::to_string(tree.leaves()) +
                                " cores x oversubscription " + std::to_string(options.oversubscription));
  if (slots > kTreeMatchLimit)
    throw std::invalid_argument("TreeMatch groups at most " + std::to_string(kTreeMatchLimit) + " slots, not " +
                                std::to_string(slots));

  // Level by level from the bottom: entities (processes, padded with idle ones, then
  // groups) are grouped by the level's arity; `contents[e]` lists the slots-order
  // processes of entity e.
  std::vector<std::vector<double>> w(slots, std::vector<double>(slots, 0));
  for (int i = 0; i < n; ++i)
    for (const Link& l : affinity.partners(i)) w[i][l.peer] = l.weight;
  std::vector<std::vector<int>> contents(slots);
  for (int e = 0; e < slots; ++e) contents[e] = {e};
  const int levels = static_cast<int>(arities.size());
  for (int level = levels - 1; level >= 0; --level) {
    const auto groups = group(w, arities[level]);
    std::vector<std::vector<int>> next_contents;
    for (const auto& g : groups) {
      std::vector<int> c;
      for (int e : g) c.insert(c.end(), contents[e].begin(), contents[e].end());
      next_contents.push_back(std::move(c));
    }
    std::vector<std::vector<double>> next(groups.size(), std::vector<double>(groups.size(), 0));
    for (size_t a = 0; a < groups.size(); ++a)
      for (size_t b = 0; b < groups.size(); ++b)
        if (a != b)
          for (int x : groups[a])
            for (int y : groups[b]) next[a][b] += w[x][y];
    w = std::move(next);
    contents = std::move(next_contents);
    if (options.progress) options.progress(levels - level, levels);
  }
  // The single remaining entity lists the processes in slot order.
  Placement placement(n);
  const std::vector<int>& order = contents.front();
  for (int slot = 0; slot < slots; ++slot)
    if (order[slot] < n) placement[order[slot]] = slot / std::max(1, options.oversubscription);
  // A heuristic: never return worse than the identity placement; then local swaps.
  const Placement identity = oversubscribed_identity(n, options.oversubscription);
  if (hop_cost(affinity, tree, identity) < hop_cost(affinity, tree, placement)) placement = identity;
  refine_by_swaps(affinity, tree, placement);
  return placement;
}

}  // namespace mpimon::placement
