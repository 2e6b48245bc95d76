// Placement quality, no MPI (bench/placement_quality.sh prints its tables):
//  1. ours against brute force: every mapping (or every host assignment, on hosts whose
//     cores are all 2 hops apart) enumerated literally, on random matrices of up to 12
//     processes; the costs must agree, the times are shown;
//  2. ours against mpirun's by-slot and round-robin and Scotch on random matrices and
//     shuffled 2-D stencils of 16-64 processes over 2-8 hosts: bytes crossing hosts and
//     hop-bytes summed over the trials, and how often ours was worse than each (never
//     expected on bytes crossing hosts).
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <string>

#include "exact.h"
#include "placement.h"
#include "scotch_mapping.h"

using namespace mpimon::placement;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Cluster hosts_of_shape(int hosts, const std::vector<int>& arities) {
  Cluster c;
  for (int h = 0; h < hosts; ++h) {
    Tree tree{arities};
    c.hosts.push_back({"h" + std::to_string(h), tree, tree.leaves(), {}});
  }
  return c;
}

Affinity random_affinity(int n, std::mt19937& random, int density_percent) {
  Affinity a(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (static_cast<int>(random() % 100) < density_percent) a.add(i, j, static_cast<double>(1 + random() % 1000));
  return a;
}

// A periodic 2-D stencil on a w x h grid, ranks numbered in a random order (an application
// whose rank order ignores its neighbours).
Affinity shuffled_stencil(int w, int h, std::mt19937& random) {
  std::vector<int> rank(w * h);
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), random);
  Affinity a(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      a.add(rank[y * w + x], rank[y * w + (x + 1) % w], 1000);
      a.add(rank[y * w + x], rank[((y + 1) % h) * w + x], 1000);
    }
  return a;
}

// Every mapping onto the cores of the cluster (one process per core), literally.
Cost every_mapping(const Affinity& a, const Cluster& c, long& count) {
  Mapping m(a.size());
  std::vector<std::vector<char>> used(c.hosts.size());
  for (size_t h = 0; h < c.hosts.size(); ++h) used[h].assign(c.hosts[h].cores(), 0);
  Cost best{1e300, 1e300};
  std::function<void(int)> next = [&](int p) {
    if (p == a.size()) {
      ++count;
      best = std::min(best, cost_of(a, c, m));
      return;
    }
    for (size_t h = 0; h < c.hosts.size(); ++h)
      for (int core = 0; core < c.hosts[h].cores(); ++core) {
        if (used[h][core]) continue;
        used[h][core] = 1;
        m[p] = {static_cast<int>(h), core};
        next(p + 1);
        used[h][core] = 0;
      }
  };
  next(0);
  return best;
}

// Every assignment of processes to flat hosts (all cores of a host 2 hops apart, so the
// cores do not matter), literally: hosts^n codes.
Cost every_host_assignment(const Affinity& a, const Cluster& c, long& count) {
  const int n = a.size(), hosts = static_cast<int>(c.hosts.size());
  long codes = 1;
  for (int p = 0; p < n; ++p) codes *= hosts;
  Cost best{1e300, 1e300};
  Mapping m(n);
  for (long code = 0; code < codes; ++code) {
    std::vector<int> used(hosts, 0);
    bool fits = true;
    long rest = code;
    for (int p = 0; p < n && fits; ++p, rest /= hosts) {
      const int h = static_cast<int>(rest % hosts);
      m[p] = {h, used[h]};
      fits = ++used[h] <= c.hosts[h].slots;
    }
    if (!fits) continue;
    ++count;
    best = std::min(best, cost_of(a, c, m));
  }
  return best;
}

void brute_force_table() {
  std::printf(
      "| processes | cluster | brute force | mappings tried | ours = brute force | brute force (s) | ours (s) |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|\n");
  struct Case {
    int n;
    int hosts;
    std::vector<int> arities;
    bool flat;
    const char* name;
  };
  const std::vector<Case> cases{
      {8, 2, {2, 2}, false, "2 hosts x 'pack:2 core:2'"},
      {9, 3, {3}, true, "3 hosts x 3 cores"},
      {12, 3, {4}, true, "3 hosts x 4 cores"},
      {12, 4, {3}, true, "4 hosts x 3 cores"},
      {12, 2, {6}, true, "2 hosts x 6 cores"},
  };
  std::mt19937 random(11);
  constexpr int kTrials = 5;
  for (const Case& k : cases) {
    const Cluster c = hosts_of_shape(k.hosts, k.arities);
    int equal = 0;
    long tried = 0;
    double brute_time = 0, ours_time = 0;
    for (int t = 0; t < kTrials; ++t) {
      const Affinity a = random_affinity(k.n, random, 30);
      long count = 0;
      auto start = std::chrono::steady_clock::now();
      const Cost brute = k.flat ? every_host_assignment(a, c, count) : every_mapping(a, c, count);
      brute_time += seconds_since(start);
      tried = count;
      start = std::chrono::steady_clock::now();
      const Placed ours = place(a, c, {by_slot(c, k.n), round_robin_by_host(c, k.n)});
      ours_time += seconds_since(start);
      equal += ours.cost == brute;
    }
    std::printf("| %d | %s | %s | %ld | %d of %d | %.3f | %.4f |\n", k.n, k.name,
                k.flat ? "every host assignment" : "every mapping", tried, equal, kTrials, brute_time / kTrials,
                ours_time / kTrials);
  }
}

void references_table() {
  std::printf(
      "\n| job | trials | by-slot crossing | round-robin crossing | Scotch crossing | ours crossing | "
      "by-slot hop-bytes | ours hop-bytes | ours worse (crossing / hop-bytes) | ours (s) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
  std::mt19937 random(17);
  for (const bool stencil : {false, true}) {
    double slot_cross = 0, rr_cross = 0, scotch_cross = 0, ours_cross = 0, slot_hop = 0, ours_hop = 0, time = 0;
    int trials = 0, worse_cross = 0, worse_hop = 0, scotch_runs = 0;
    for (int hosts : {2, 4, 8})
      for (int n : {16, 32, 64}) {
        if (n < hosts * 2) continue;
        const int cores_per_host = (n + hosts - 1) / hosts;
        const Cluster c = hosts_of_shape(hosts, {2, (cores_per_host + 1) / 2});
        for (int t = 0; t < 3; ++t) {
          const Affinity a = stencil ? shuffled_stencil(n / 4, 4, random) : random_affinity(n, random, 10);
          const Mapping slot = by_slot(c, n), rr = round_robin_by_host(c, n);
          const auto start = std::chrono::steady_clock::now();
          const Placed ours = place(a, c, {slot, rr});
          time += seconds_since(start);
          const Cost s = cost_of(a, c, slot), r = cost_of(a, c, rr);
          slot_cross += s.crossing_bytes, rr_cross += r.crossing_bytes, ours_cross += ours.cost.crossing_bytes;
          slot_hop += s.hop_bytes, ours_hop += ours.cost.hop_bytes;
          worse_cross += ours.cost.crossing_bytes > std::min(s.crossing_bytes, r.crossing_bytes);
          worse_hop += ours.cost > std::min(s, r);
          if (const auto scotch = scotch_placement(a, c)) {
            scotch_cross += cost_of(a, c, *scotch).crossing_bytes;
            ++scotch_runs;
          }
          ++trials;
        }
      }
    std::printf(
        "| %s, 16-64 processes over 2-8 hosts | %d | %.0f | %.0f | %.0f (%d runs) | %.0f | %.0f | %.0f | %d / %d "
        "| %.3f |\n",
        stencil ? "2-D stencil, ranks shuffled" : "random, 10% of pairs", trials, slot_cross, rr_cross, scotch_cross,
        scotch_runs, ours_cross, slot_hop, ours_hop, worse_cross, worse_hop, time / trials);
  }
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows as they come
  brute_force_table();
  references_table();
  return 0;
}
