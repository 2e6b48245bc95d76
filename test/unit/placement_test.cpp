// The placement core over a cluster: distances, mpirun's mappings, the exact placement
// against literal enumeration, and the hierarchical placement against its references.
#include <gtest/gtest.h>

#include <bit>

#include <algorithm>
#include <climits>
#include <functional>
#include <random>

#include "bisection.h"
#include "exact.h"
#include "placement.h"

namespace mpimon::placement {
namespace {

Host host(const std::string& name, std::vector<int> arities, int slots) {
  return {name, Tree{std::move(arities)}, slots, {}};
}

Affinity random_affinity(int n, std::mt19937& random, int density_percent = 30) {
  Affinity a(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (static_cast<int>(random() % 100) < density_percent) a.add(i, j, static_cast<double>(1 + random() % 1000));
  return a;
}

// Whether every evenly sharing host of a complete mapping gives no core more than its share.
bool shared_evenly(const Cluster& c, const std::vector<std::vector<int>>& used, const std::vector<int>& on_host) {
  for (size_t h = 0; h < c.hosts.size(); ++h)
    for (int core = 0; core < c.hosts[h].cores(); ++core)
      if (used[h][core] > c.hosts[h].share_of(core, on_host[h])) return false;
  return true;
}

// Every mapping of the processes onto the cluster, one by one (capacities and even
// sharing respected).
Cost enumerated_optimum(const Affinity& a, const Cluster& c) {
  Mapping m(a.size());
  std::vector<std::vector<int>> used(c.hosts.size());
  std::vector<int> on_host(c.hosts.size(), 0);
  for (size_t h = 0; h < c.hosts.size(); ++h) used[h].assign(c.hosts[h].cores(), 0);
  Cost best{1e300, 1e300};
  std::function<void(int)> next = [&](int p) {
    if (p == a.size()) {
      if (shared_evenly(c, used, on_host)) best = std::min(best, cost_of(a, c, m));
      return;
    }
    for (size_t h = 0; h < c.hosts.size(); ++h) {
      if (on_host[h] == c.hosts[h].slots) continue;
      for (int core = 0; core < c.hosts[h].cores(); ++core) {
        if (used[h][core] == c.hosts[h].capacity_of(core)) continue;
        ++used[h][core], ++on_host[h];
        m[p] = {static_cast<int>(h), core};
        next(p + 1);
        --used[h][core], --on_host[h];
      }
    }
  };
  next(0);
  return best;
}

TEST(Cluster, HopsThroughHostTreesAndTheNetwork) {
  Cluster c{{host("a", {2, 2}, 4), host("b", {2, 2}, 4), host("c", {2, 2}, 4), host("d", {2, 2}, 4)}, {}};
  EXPECT_EQ(c.hops({0, 1}, {0, 1}), 0);
  EXPECT_EQ(c.hops({0, 0}, {0, 1}), 2);
  EXPECT_EQ(c.hops({0, 0}, {0, 3}), 4);
  EXPECT_EQ(c.hops({0, 0}, {3, 0}), 2 + 2 + 2);  // up two levels, switch, down two levels
  c.network = {2};                               // two switches of two hosts under a top switch
  EXPECT_EQ(c.hops({0, 0}, {1, 0}), 6);
  EXPECT_EQ(c.hops({0, 0}, {2, 0}), 8);
  c.network = {3};  // uneven: a, b, c on one switch, d alone on another
  EXPECT_EQ(c.hops({0, 0}, {2, 0}), 6);
  EXPECT_EQ(c.hops({2, 0}, {3, 0}), 8);
}

TEST(Cluster, BySlotAndRoundRobinAsMpirunMapsThem) {
  // a: 3 slots on 2 cores (2 processes may share a core), b: 2 slots on 4 cores.
  const Cluster c{{host("a", {2}, 3), host("b", {4}, 2)}, {}};
  EXPECT_EQ(by_slot(c, 5), (Mapping{{0, 0}, {0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  EXPECT_EQ(round_robin_by_host(c, 5), (Mapping{{0, 0}, {1, 0}, {0, 0}, {1, 1}, {0, 1}}));
  EXPECT_THROW(by_slot(c, 6), std::invalid_argument);
  EXPECT_THROW(c.check({{0, 0}, {0, 0}, {0, 0}}), std::invalid_argument);  // 3 on a core of capacity 2
  EXPECT_THROW(c.check({{1, 0}, {1, 1}, {1, 2}}), std::invalid_argument);  // 3 on a host of 2 slots
}

TEST(Cluster, HugeSlotCountsDoNotOverflowTheCapacities) {
  // A hostfile may give every host millions of slots: their sum saturates, nothing wraps.
  const Cluster c{{host("a", {2}, 2'000'000'000), host("b", {2}, 2'000'000'000), host("c", {1}, 1)}, {}};
  EXPECT_EQ(c.capacity(), INT_MAX);
  Affinity a(3);
  a.add(0, 2, 10);
  const Placed placed = place(a, c, {by_slot(c, 3), round_robin_by_host(c, 3)});
  EXPECT_EQ(cost_of(a, c, placed.mapping).crossing_bytes, 0);
}

TEST(Cluster, HostsWithMoreSlotsThanCoresShareThemEvenly) {
  // mpirun never puts two processes on a core while another core of the host is idle.
  const Cluster c{{host("a", {4}, 100), host("b", {2}, 2)}, {}};
  EXPECT_EQ(by_slot(c, 2), (Mapping{{0, 0}, {0, 1}}));
  EXPECT_EQ(by_slot(c, 5), (Mapping{{0, 0}, {0, 0}, {0, 1}, {0, 2}, {0, 3}}));
  EXPECT_EQ(round_robin_by_host(c, 4), (Mapping{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
  // Two heavy partners: the best is one host, two cores (2 hops), never one core (0 hops).
  Affinity a(2);
  a.add(0, 1, 1000);
  const auto exact = exact_placement(a, c);
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ((*exact)[0].host, (*exact)[1].host);
  EXPECT_NE((*exact)[0].core, (*exact)[1].core);
  // 6 processes on host a: 2 on two cores, 1 on the others (4 pairs of partners).
  Affinity pairs(6);
  for (int p = 0; p < 6; p += 2) pairs.add(p, p + 1, 100);
  const Cluster one{{host("a", {4}, 100)}, {}};
  for (const Mapping& m : {*exact_placement(pairs, one), place(pairs, one, {by_slot(one, 6)}).mapping}) {
    std::vector<int> per_core(4, 0);
    for (const Location& l : m) ++per_core[l.core];
    EXPECT_EQ(*std::max_element(per_core.begin(), per_core.end()), 2);
  }
  // The heuristic path (beyond 12 processes) shares evenly too: 16 processes on 8 cores.
  Affinity ring(16);
  for (int p = 0; p < 16; ++p) ring.add(p, (p + 1) % 16, 10);
  const Cluster big{{host("a", {2, 4}, 1000)}, {}};
  std::vector<int> per_core(8, 0);
  for (const Location& l : place(ring, big, {by_slot(big, 16)}).mapping) ++per_core[l.core];
  EXPECT_EQ(per_core, std::vector<int>(8, 2));
}

TEST(Cluster, CostCountsCrossingBytesAndHopBytes) {
  const Cluster c{{host("a", {2}, 2), host("b", {2}, 2)}, {}};
  Affinity a(4);
  a.add(0, 1, 10);  // same host, different cores: 2 hops
  a.add(1, 2, 5);   // different hosts: 1 + 1 + 2 hops
  a.add(2, 1, 5);
  const Cost cost = cost_of(a, c, {{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  EXPECT_EQ(cost.crossing_bytes, 10);
  EXPECT_EQ(cost.hop_bytes, 10 * 2 + 10 * 4);
  EXPECT_LT((Cost{1, 100}), (Cost{2, 0})) << "crossing bytes first";
}

TEST(ExactPlacement, EqualsEnumerationOfEveryMapping) {
  std::mt19937 random(3);
  const std::vector<Cluster> clusters{
      {{host("a", {2}, 2), host("b", {2}, 2), host("c", {2}, 2)}, {}},  // identical hosts
      {{host("a", {2, 2}, 4), host("b", {3}, 2)}, {}},                  // different hosts, b partly used
      {{host("a", {2}, 4), host("b", {2}, 3)}, {}},                     // more slots than cores
      {{host("a", {2, 2}, 12), host("b", {2}, 2)}, {}},                 // 3 per core at most, shared evenly
      {{host("a", {2}, 2), host("b", {2}, 2), host("c", {2}, 2), host("d", {2}, 2)}, {2}},  // two switches
  };
  for (size_t k = 0; k < clusters.size(); ++k)
    for (int n : {4, 6}) {
      const Affinity a = random_affinity(n, random, 50);
      const auto exact = exact_placement(a, clusters[k]);
      ASSERT_TRUE(exact.has_value());
      clusters[k].check(*exact);
      EXPECT_EQ(cost_of(a, clusters[k], *exact), enumerated_optimum(a, clusters[k])) << "cluster " << k << ", n " << n;
    }
}

TEST(ExactPlacement, OptimalOnTwelveProcessesAgainstEveryHostAssignment) {
  // Flat hosts of one process per core: every pair on a host is 2 hops apart, so the
  // optimum is the best of the 3^12 assignments of processes to hosts, enumerated here.
  std::mt19937 random(5);
  const Cluster c{{host("a", {4}, 4), host("b", {4}, 4), host("c", {4}, 4)}, {}};
  for (int trial = 0; trial < 3; ++trial) {
    const Affinity a = random_affinity(12, random, 25);
    Cost best{1e300, 1e300};
    Mapping m(12);
    for (int code = 0; code < 531441; ++code) {
      std::vector<int> used(3, 0);
      bool fits = true;
      for (int p = 0, rest = code; p < 12; ++p, rest /= 3) {
        m[p] = {rest % 3, used[rest % 3]};
        fits = fits && ++used[rest % 3] <= 4;
      }
      if (fits) best = std::min(best, cost_of(a, c, m));
    }
    const Placed ours = place(a, c, {by_slot(c, 12), round_robin_by_host(c, 12)});
    EXPECT_EQ(ours.cost, best) << "trial " << trial;
    EXPECT_NE(ours.method, Placed::Method::heuristic);
  }
}

TEST(ExactPlacement, ThreeHiddenGroupsOfFourLandOnThreeHosts) {
  const std::vector<int> group{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2};  // rank % 3
  Affinity a(12);
  for (int i = 0; i < 12; ++i)
    for (int j = i + 1; j < 12; ++j)
      if (group[i] == group[j]) a.add(i, j, 100);
  a.add(0, 1, 1);  // a little traffic between groups
  const Cluster c{{host("a", {2, 2}, 4), host("b", {2, 2}, 4), host("c", {2, 2}, 4)}, {}};
  const Placed ours = place(a, c, {by_slot(c, 12)});
  EXPECT_EQ(ours.method, Placed::Method::optimal);
  EXPECT_EQ(ours.cost.crossing_bytes, 1);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(ours.mapping[i].host, ours.mapping[group[i]].host) << i;
  EXPECT_GT(cost_of(a, c, by_slot(c, 12)).crossing_bytes, 1000);
}

TEST(Placement, KeepsBySlotWhenNothingIsStrictlyBetter) {
  Affinity ring(8);
  for (int i = 0; i + 1 < 8; ++i) ring.add(i, i + 1, 50);
  const Cluster c{{host("a", {4}, 4), host("b", {4}, 4)}, {}};
  const Mapping slot_order = by_slot(c, 8);
  const Placed ours = place(ring, c, {slot_order, round_robin_by_host(c, 8)});
  EXPECT_EQ(ours.method, Placed::Method::baseline);
  EXPECT_EQ(ours.mapping, slot_order);
  EXPECT_EQ(ours.cost, cost_of(ring, c, slot_order));
}

TEST(Placement, NeverWorseThanBySlotOrRoundRobinOnRandomMatrices) {
  std::mt19937 random(11);
  int strictly_better = 0, cases = 0;
  for (int hosts : {2, 3, 4, 8})
    for (int n : {16, 24, 32, 48, 64}) {
      Cluster c;
      // Hosts of 2 to 16 slots on 2 or 4 cores, enough for the job.
      while (c.capacity() < n)
        c.hosts.push_back(
            host("h" + std::to_string(c.hosts.size()), {random() % 2 ? 2 : 4}, 2 + static_cast<int>(random() % 15)));
      if (static_cast<int>(c.hosts.size()) < hosts)
        for (int h = static_cast<int>(c.hosts.size()); h < hosts; ++h)
          c.hosts.push_back(host("x" + std::to_string(h), {2}, 2));
      const Affinity a = random_affinity(n, random, 15);
      const Mapping slot = by_slot(c, n), robin = round_robin_by_host(c, n);
      const Placed ours = place(a, c, {slot, robin});
      c.check(ours.mapping);
      const Cost s = cost_of(a, c, slot), r = cost_of(a, c, robin);
      EXPECT_LE(ours.cost.crossing_bytes, s.crossing_bytes) << n << " on " << c.hosts.size();
      EXPECT_LE(ours.cost.crossing_bytes, r.crossing_bytes) << n << " on " << c.hosts.size();
      EXPECT_LE(ours.cost, s);
      EXPECT_LE(ours.cost, r);
      strictly_better += ours.cost < s;
      ++cases;
    }
  EXPECT_GT(strictly_better, cases / 2) << "random traffic: the placement should usually beat by-slot";
}

TEST(Placement, WithOnlyTheCurrentLayoutStillNeverWorseThanRoundRobin) {
  // A running job's placement (mpimon_reorder, the topology component) gives only where the
  // processes run; mpirun's round-robin competes anyway. Open MPI's binary tree of 16
  // (rank r on level l = floor(log2(r + 1)) has children r + 2^l and r + 2^(l+1)) on 4
  // hosts of 4, and random matrices.
  Affinity tree(16);
  for (int r = 0; r < 16; ++r) {
    const int level_width = std::bit_floor(static_cast<unsigned>(r + 1));
    for (int child : {r + level_width, r + 2 * level_width})
      if (child < 16) tree.add(r, child, 100);
  }
  const Cluster c{{host("a", {4}, 4), host("b", {4}, 4), host("c", {4}, 4), host("d", {4}, 4)}, {}};
  const Placed alone = place(tree, c, {by_slot(c, 16)});
  EXPECT_LE(alone.cost.crossing_bytes, cost_of(tree, c, round_robin_by_host(c, 16)).crossing_bytes);
  std::mt19937 random(5);
  for (int n : {16, 32, 48}) {
    const Affinity a = random_affinity(n, random, 10);
    const Cluster d{{host("a", {4}, n / 4), host("b", {4}, n / 4), host("c", {4}, n / 4), host("d", {4}, n / 4)}, {}};
    const Placed ours = place(a, d, {by_slot(d, n)});
    EXPECT_LE(ours.cost.crossing_bytes, cost_of(a, d, round_robin_by_host(d, n)).crossing_bytes) << n;
  }
}

TEST(Placement, ThreeDimensionalStencilOnSixteenHostsCutsLessThanSlabs) {
  // 16 x 16 x 16 processes, 6 neighbours each, on 16 hosts of 256 slots (2 x 16 cores).
  const int side = 16, n = side * side * side;
  std::vector<Traffic> traffic;
  for (int r = 0; r < n; ++r) {
    const int x = r / (side * side), y = r / side % side, z = r % side;
    for (auto [dx, dy, dz] : {std::tuple{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}) {
      const int peer = (x + dx) % side * side * side + (y + dy) % side * side + (z + dz) % side;
      traffic.push_back({r, peer, 1000});
      traffic.push_back({peer, r, 1000});
    }
  }
  const Affinity a(n, std::move(traffic));
  Cluster c;
  for (int h = 0; h < 16; ++h) c.hosts.push_back(host("h" + std::to_string(h), {2, 16}, 256));
  const Mapping slot = by_slot(c, n);
  const Placed ours = place(a, c, {slot, round_robin_by_host(c, n)});
  c.check(ours.mapping);
  // By-slot cuts the (periodic) cube into 16 slabs of one plane: 16 boundaries of 256
  // links carrying 2 x 1000 bytes.
  EXPECT_EQ(cost_of(a, c, slot).crossing_bytes, 16.0 * 256 * 2000);
  EXPECT_LT(ours.cost.crossing_bytes, cost_of(a, c, slot).crossing_bytes * 0.8);
  std::printf("stencil 16^3 on 16 hosts: by-slot %.0f, ours %.0f bytes crossing\n", cost_of(a, c, slot).crossing_bytes,
              ours.cost.crossing_bytes);
}

TEST(Bisector, GridSplitsAlongAStraightLineWithinTheSizeBounds) {
  Affinity grid(64);  // 8 x 8
  for (int r = 0; r < 8; ++r)
    for (int col = 0; col < 8; ++col) {
      if (col + 1 < 8) grid.add(r * 8 + col, r * 8 + col + 1, 10);
      if (r + 1 < 8) grid.add(r * 8 + col, (r + 1) * 8 + col, 10);
    }
  std::vector<int> all(64);
  for (int i = 0; i < 64; ++i) all[i] = i;
  Bisector bisector(grid);
  const std::vector<char> halves = bisector.split(all, 32, 32);
  EXPECT_EQ(std::count(halves.begin(), halves.end(), 1), 32);
  EXPECT_EQ(bisector.cut(all, halves), 80);  // 8 edges of 10
  const std::vector<char> loose = bisector.split(all, 8, 56);
  const auto in_a = std::count(loose.begin(), loose.end(), 1);
  EXPECT_GE(in_a, 8);
  EXPECT_LE(in_a, 56);
  EXPECT_LE(bisector.cut(all, loose), 80);
  EXPECT_EQ(bisector.split(all, 0, 64), std::vector<char>(64, 1)) << "everything fits on side A";
}

TEST(Affinity, SparseRowsMergeBothDirections) {
  const Affinity a(5, {{0, 1, 10}, {1, 0, 5}, {3, 3, 7}, {4, 2, 1}});
  EXPECT_EQ(a.at(0, 1), 15);
  EXPECT_EQ(a.at(1, 0), 15);
  EXPECT_EQ(a.at(3, 3), 0) << "self traffic never leaves the process";
  EXPECT_EQ(a.at(2, 4), 1);
  EXPECT_EQ(a.links(), 4u);
  EXPECT_EQ(a.total(1), 15);
  EXPECT_THROW(Affinity(2, {{0, 2, 1}}), std::out_of_range);
}

}  // namespace
}  // namespace mpimon::placement

#include "running_job.h"

namespace mpimon::placement {
namespace {

TEST(RunningJob, HostsInOrderCoresFromBindingsUnboundInRankOrder) {
  // a: processes 0 (core 1), 2 (core 1), 3 (unbound); b: 1 and 4 unbound on 2 cores.
  const RunningJob job = running_job({{"a", 1, {2}}, {"b", -1, {2}}, {"a", 1, {2}}, {"a", -1, {2}}, {"b", -1, {2}}});
  ASSERT_EQ(job.cluster.hosts.size(), 2u);
  EXPECT_EQ(job.cluster.hosts[0].name, "a");
  EXPECT_EQ(job.cluster.hosts[0].slots, 3);
  EXPECT_EQ(job.cluster.hosts[0].core_capacity, (std::vector<int>{1, 2}));
  EXPECT_EQ(job.cluster.hosts[1].core_capacity, (std::vector<int>{1, 1}));
  EXPECT_EQ(job.current, (Mapping{{0, 1}, {1, 0}, {0, 1}, {0, 0}, {1, 1}}));
  job.cluster.check(job.current);
  // A core the given tree does not have counts as unbound.
  EXPECT_EQ(running_job({{"a", 7, {2}}}).current, (Mapping{{0, 0}}));
}

TEST(RunningJob, KeysKeepProcessesWhosePlaceDoesNotChange) {
  const Mapping current{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  EXPECT_EQ(keys_for(current, current), (std::vector<int>{0, 1, 2, 3}));
  // Logical ranks 1 and 2 swap hosts: processes 1 and 2 take each other's rank.
  EXPECT_EQ(keys_for({{0, 0}, {1, 0}, {0, 1}, {1, 1}}, current), (std::vector<int>{0, 2, 1, 3}));
  // Two processes on one core: the one already there keeps its rank.
  const Mapping shared{{0, 0}, {0, 0}, {1, 0}};
  EXPECT_EQ(keys_for({{1, 0}, {0, 0}, {0, 0}}, shared), (std::vector<int>{2, 1, 0}));
}

TEST(RunningJob, PartnersApartOnTwoHostsComeTogether) {
  // 8 processes, 4 per host, partners w and w+4 on different hosts.
  std::vector<ProcessReport> reports;
  for (int p = 0; p < 8; ++p) reports.push_back({p < 4 ? "h1" : "h2", p % 4, {4}});
  const RunningJob job = running_job(reports);
  Affinity a(8);
  for (int w = 0; w < 4; ++w) a.add(w, w + 4, 65536), a.add(w + 4, w, 65536);
  EXPECT_EQ(cost_of(a, job.cluster, job.current).crossing_bytes, 8 * 65536);
  const Placed placed = place(a, job.cluster, {job.current});
  EXPECT_EQ(placed.cost.crossing_bytes, 0);
  const std::vector<int> key = keys_for(placed.mapping, job.current);
  std::vector<int> process_of(8);
  for (int p = 0; p < 8; ++p) process_of[key[p]] = p;
  for (int w = 0; w < 4; ++w) EXPECT_EQ(process_of[w] / 4, process_of[w + 4] / 4) << "logical partners " << w;
}

}  // namespace
}  // namespace mpimon::placement
