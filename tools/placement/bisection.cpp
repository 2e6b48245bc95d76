#include "bisection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <random>

namespace mpimon::placement {

namespace {

// Compressed rows of the traffic inside the set, numbered locally.
struct Graph {
  std::vector<size_t> start;   // row v is links[start[v] .. start[v + 1])
  std::vector<Link> links;     // peers in local numbering
  std::vector<double> degree;  // traffic of v inside the set

  int size() const { return static_cast<int>(degree.size()); }
  std::span<const Link> row(int v) const { return {links.data() + start[v], start[v + 1] - start[v]}; }
  // Traffic between the two sides.
  double cut(const std::vector<char>& side) const {
    double c = 0;
    for (int v = 0; v < size(); ++v)
      for (const Link& l : row(v))
        if (l.peer > v && side[v] != side[l.peer]) c += l.weight;
    return c;
  }
};

// A max-heap of (priority, vertex) whose stale entries are skipped: an entry is live while
// its stamp equals the vertex's current stamp.
class LazyHeap {
 public:
  void push(double priority, int v, unsigned stamp) { heap_.push({priority, -static_cast<long>(++order_), v, stamp}); }
  // The live entry with the highest priority (ties: first pushed), or -1.
  int top(const std::vector<unsigned>& stamps, const std::vector<char>& locked) {
    while (!heap_.empty()) {
      const Entry& e = heap_.top();
      if (!locked[e.v] && stamps[e.v] == e.stamp) return e.v;
      heap_.pop();
    }
    return -1;
  }
  void pop() { heap_.pop(); }

 private:
  struct Entry {
    double priority;
    long order;
    int v;
    unsigned stamp;
    bool operator<(const Entry& o) const { return priority != o.priority ? priority < o.priority : order < o.order; }
  };
  std::priority_queue<Entry> heap_;
  long order_ = 0;
};

// The traffic among `vertices`, numbered by their position; `local` (process -> position)
// is all -1 before and after.
Graph graph_of(const Affinity& affinity, std::span<const int> vertices, std::vector<int>& local) {
  const int m = static_cast<int>(vertices.size());
  for (int k = 0; k < m; ++k) local[vertices[k]] = k;
  Graph g;
  g.start.assign(m + 1, 0);
  g.degree.assign(m, 0);
  for (int k = 0; k < m; ++k) {
    for (const Link& l : affinity.partners(vertices[k]))
      if (local[l.peer] >= 0) {
        g.links.push_back({local[l.peer], l.weight});
        g.degree[k] += l.weight;
      }
    g.start[k + 1] = g.links.size();
  }
  for (int v : vertices) local[v] = -1;
  return g;
}

// Grows side A from `seed`: the next process is the one whose move adds the least
// traffic between the sides (2 x its traffic with A - its traffic in the set); the
// prefix with the smallest cut among the allowed sizes is kept.
std::vector<char> grow(const Graph& g, int seed, int min_a, int max_a) {
  const int m = g.size();
  std::vector<char> side(m, 0), locked(m, 0);
  std::vector<double> with_a(m, 0);
  std::vector<unsigned> stamps(m, 0);
  std::vector<int> order;
  LazyHeap heap;
  for (int v = 0; v < m; ++v) heap.push(-g.degree[v], v, 0);
  double now = 0, best = std::numeric_limits<double>::infinity();
  size_t best_length = 0;
  auto take = [&](int v) {
    side[v] = 1;
    locked[v] = 1;
    order.push_back(v);
    now += g.degree[v] - 2 * with_a[v];
    for (const Link& l : g.row(v))
      if (!locked[l.peer]) {
        with_a[l.peer] += l.weight;
        heap.push(2 * with_a[l.peer] - g.degree[l.peer], l.peer, ++stamps[l.peer]);
      }
    if (static_cast<int>(order.size()) >= min_a && now < best) best = now, best_length = order.size();
  };
  take(seed);
  while (static_cast<int>(order.size()) < max_a) {
    const int v = heap.top(stamps, locked);
    heap.pop();
    take(v);
  }
  std::fill(side.begin(), side.end(), 0);
  for (size_t k = 0; k < best_length; ++k) side[order[k]] = 1;
  return side;
}

// One Fiduccia-Mattheyses pass: moves every process at most once, best gain first, and
// keeps the best prefix of moves that ends within the size bounds. Moves may leave the
// bounds by one process on the way, or tight bounds (min_a == max_a) would allow none.
// Returns how many moves were kept (0: no improvement).
size_t refine_pass(const Graph& g, std::vector<char>& side, int& size_a, int min_a, int max_a) {
  const int m = g.size();
  const int patience = std::max(64, m / 16);  // moves without improvement before a pass stops
  std::vector<double> gain(m, 0);
  for (int v = 0; v < m; ++v)
    for (const Link& l : g.row(v)) gain[v] += side[v] != side[l.peer] ? l.weight : -l.weight;
  std::vector<char> locked(m, 0);
  std::vector<unsigned> stamps(m, 0);
  LazyHeap from[2];
  for (int v = 0; v < m; ++v) from[side[v] ? 1 : 0].push(gain[v], v, 0);
  std::vector<int> moves;
  double now = 0, best = 0;
  size_t best_moves = 0;
  int idle = 0;
  for (;;) {
    const int to_b = size_a - 1 >= min_a - 1 ? from[1].top(stamps, locked) : -1;
    const int to_a = size_a + 1 <= max_a + 1 ? from[0].top(stamps, locked) : -1;
    int v = to_b;
    if (v < 0 || (to_a >= 0 && gain[to_a] > gain[to_b])) v = to_a;
    if (v < 0) break;
    now -= gain[v];
    size_a += side[v] ? -1 : 1;
    side[v] ^= 1;
    locked[v] = 1;
    moves.push_back(v);
    for (const Link& l : g.row(v)) {
      if (locked[l.peer]) continue;
      gain[l.peer] += side[l.peer] == side[v] ? -2 * l.weight : 2 * l.weight;
      from[side[l.peer] ? 1 : 0].push(gain[l.peer], l.peer, ++stamps[l.peer]);
    }
    const bool within = size_a >= min_a && size_a <= max_a;
    if (within && now < best - 1e-9 * (1 + std::abs(best))) {
      best = now, best_moves = moves.size(), idle = 0;
    } else if (++idle > patience) {
      break;
    }
  }
  for (size_t k = moves.size(); k > best_moves; --k) {
    const int v = moves[k - 1];
    size_a += side[v] ? -1 : 1;
    side[v] ^= 1;
  }
  return best_moves;
}

// Fiduccia-Mattheyses passes until one improves nothing (12 at the most).
void refine(const Graph& g, std::vector<char>& side, int min_a, int max_a) {
  int size_a = static_cast<int>(std::count(side.begin(), side.end(), 1));
  for (int pass = 0; pass < 12; ++pass)
    if (refine_pass(g, side, size_a, min_a, max_a) == 0) break;
}

// The process farthest from `start` in hops (breadth-first; the last one reached).
int farthest_from(const Graph& g, int start) {
  std::vector<int> distance(g.size(), -1);
  std::queue<int> queue;
  distance[start] = 0;
  queue.push(start);
  int last = start;
  while (!queue.empty()) {
    last = queue.front();
    queue.pop();
    for (const Link& l : g.row(last))
      if (distance[l.peer] < 0) distance[l.peer] = distance[last] + 1, queue.push(l.peer);
  }
  return last;
}

// Seeds: the lowest rank (ranks are often laid out along the problem), a pseudo-peripheral
// process (a corner of a stencil), the quietest process, and a few pseudo-random ones on
// sets small enough for the extra tries to be cheap. Sorted, each once.
std::vector<int> seeds_of(const Graph& g) {
  const int m = g.size();
  std::vector<int> seeds{0};
  seeds.push_back(farthest_from(g, farthest_from(g, 0)));
  seeds.push_back(static_cast<int>(std::min_element(g.degree.begin(), g.degree.end()) - g.degree.begin()));
  if (m <= 4096) {
    std::mt19937 random(12345);
    for (int k = 0; k < 3; ++k) seeds.push_back(static_cast<int>(random() % m));
  }
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  return seeds;
}

}  // namespace

std::vector<char> Bisector::split(std::span<const int> vertices, int min_a, int max_a) {
  const int m = static_cast<int>(vertices.size());
  max_a = std::min(max_a, m);
  if (max_a >= m) return std::vector<char>(m, 1);  // everything fits on side A: nothing is cut
  if (min_a <= 0) return std::vector<char>(m, 0);  // or on side B
  const Graph g = graph_of(affinity_, vertices, local_);
  if (std::all_of(g.degree.begin(), g.degree.end(), [](double d) { return d == 0; })) {
    std::vector<char> in_a(m, 0);
    std::fill(in_a.begin(), in_a.begin() + max_a, 1);  // no traffic: fill A first, as by-slot does
    return in_a;
  }
  // Grown from each seed, refined; the smallest cut wins (ties: the first seed).
  std::vector<char> best_side;
  double best_cut = std::numeric_limits<double>::infinity();
  for (int seed : seeds_of(g)) {
    std::vector<char> side = grow(g, seed, min_a, max_a);
    refine(g, side, min_a, max_a);
    const double c = g.cut(side);
    if (c < best_cut) best_cut = c, best_side = std::move(side);
  }
  return best_side;
}

double Bisector::cut(std::span<const int> vertices, const std::vector<char>& in_a) {
  const int m = static_cast<int>(vertices.size());
  for (int k = 0; k < m; ++k) local_[vertices[k]] = k;
  double c = 0;
  for (int k = 0; k < m; ++k)
    for (const Link& l : affinity_.partners(vertices[k])) {
      const int j = local_[l.peer];
      if (j > k && in_a[j] != in_a[k]) c += l.weight;
    }
  for (int v : vertices) local_[v] = -1;
  return c;
}

}  // namespace mpimon::placement
