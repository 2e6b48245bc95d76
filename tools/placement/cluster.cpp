#include "cluster.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace mpimon::placement {

namespace {

// Capacities add up over hosts and switches: a hostfile of many hosts with millions of
// slots each must not overflow (more than INT_MAX places constrain nothing).
int add_capped(int a, int b) { return static_cast<int>(std::min<long long>(static_cast<long long>(a) + b, INT_MAX)); }

}  // namespace

int Host::capacity_of(int core) const {
  if (!core_capacity.empty()) return core_capacity[core];
  const int c = cores();
  return (slots + c - 1) / c;
}

int Host::capacity() const {
  int sum = 0;
  for (int core = 0; core < cores(); ++core) sum = add_capped(sum, capacity_of(core));
  return std::min(slots, sum);
}

bool Host::shares_evenly() const { return core_capacity.empty() && cores() > 0 && slots > cores(); }

int Host::share_of(int core, int k) const {
  if (!shares_evenly()) return capacity_of(core);
  return std::min(capacity_of(core), (k + cores() - 1) / cores());
}

int Cluster::capacity() const {
  int sum = 0;
  for (const Host& h : hosts) sum = add_capped(sum, h.capacity());
  return sum;
}

int Cluster::network_hops(int a, int b) const {
  if (a == b) return 0;
  for (size_t level = 0; level < network.size(); ++level) {
    a /= network[level];
    b /= network[level];
    if (a == b) return 2 * static_cast<int>(level + 1);
  }
  return 2 * static_cast<int>(network.size() + 1);
}

int Cluster::hops(Location a, Location b) const {
  if (a.host == b.host) return hosts[a.host].tree.hops(a.core, b.core);
  return static_cast<int>(hosts[a.host].tree.arities.size() + hosts[b.host].tree.arities.size()) +
         network_hops(a.host, b.host);
}

void Cluster::check(const Mapping& mapping) const {
  std::vector<std::vector<int>> used(hosts.size());
  std::vector<int> on_host(hosts.size(), 0);
  for (size_t p = 0; p < mapping.size(); ++p) {
    const Location l = mapping[p];
    if (l.host < 0 || l.host >= static_cast<int>(hosts.size()) || l.core < 0 || l.core >= hosts[l.host].cores())
      throw std::invalid_argument("process " + std::to_string(p) + " mapped outside the cluster");
    if (used[l.host].empty()) used[l.host].assign(hosts[l.host].cores(), 0);
    if (++used[l.host][l.core] > hosts[l.host].capacity_of(l.core) || ++on_host[l.host] > hosts[l.host].slots)
      throw std::invalid_argument("process " + std::to_string(p) + ": host " + hosts[l.host].name + " core " +
                                  std::to_string(l.core) + " is full");
  }
}

Cost cost_of(const Affinity& affinity, const Cluster& cluster, const Mapping& mapping) {
  Cost cost;
  for (int i = 0; i < affinity.size(); ++i)
    for (const Link& l : affinity.partners(i)) {
      if (l.peer < i) continue;
      const Location a = mapping[i], b = mapping[l.peer];
      if (a.host != b.host) cost.crossing_bytes += l.weight;
      cost.hop_bytes += l.weight * cluster.hops(a, b);
    }
  return cost;
}

namespace {

// The cores of a host's k processes in mpirun's order: cores in order, each filled to
// its share (capacity_of, or an even share of the k processes) before the next; an even
// share gives its remainder to the first cores (k = 5 on 4 cores: 0, 0, 1, 2, 3).
std::vector<int> fill_cores(const Host& host, int k) {
  std::vector<int> cores;
  cores.reserve(k);
  const int c = host.cores();
  if (host.shares_evenly()) {
    for (int core = 0; core < c && static_cast<int>(cores.size()) < k; ++core)
      for (int i = 0; i < k / c + (core < k % c ? 1 : 0); ++i) cores.push_back(core);
    return cores;
  }
  for (int core = 0; core < c && static_cast<int>(cores.size()) < k; ++core)
    for (int i = 0; i < host.capacity_of(core) && static_cast<int>(cores.size()) < k; ++i) cores.push_back(core);
  return cores;
}

// Gives each process of `host_of` its core: the hosts' processes in rank order, by fill_cores.
Mapping with_cores(const Cluster& cluster, const std::vector<int>& host_of) {
  std::vector<int> count(cluster.hosts.size(), 0);
  for (int h : host_of) ++count[h];
  std::vector<std::vector<int>> cores(cluster.hosts.size());
  std::vector<int> next(cluster.hosts.size(), 0);
  Mapping mapping;
  mapping.reserve(host_of.size());
  for (int h : host_of) {
    if (cores[h].empty()) cores[h] = fill_cores(cluster.hosts[h], count[h]);
    mapping.push_back({h, cores[h][next[h]++]});
  }
  return mapping;
}

void check_fits(const Cluster& cluster, int processes) {
  if (processes > cluster.capacity())
    throw std::invalid_argument(std::to_string(processes) + " processes do not fit in the " +
                                std::to_string(cluster.capacity()) + " slots of " +
                                std::to_string(cluster.hosts.size()) + " host(s)");
}

}  // namespace

Mapping by_slot(const Cluster& cluster, int processes) {
  check_fits(cluster, processes);
  std::vector<int> host_of;
  host_of.reserve(processes);
  for (size_t h = 0; h < cluster.hosts.size() && static_cast<int>(host_of.size()) < processes; ++h)
    for (int k = 0; k < cluster.hosts[h].capacity() && static_cast<int>(host_of.size()) < processes; ++k)
      host_of.push_back(static_cast<int>(h));
  return with_cores(cluster, host_of);
}

Mapping round_robin_by_host(const Cluster& cluster, int processes) {
  check_fits(cluster, processes);
  std::vector<int> placed(cluster.hosts.size(), 0);
  std::vector<int> host_of;
  host_of.reserve(processes);
  // Round after round over the hosts that still have room: O(processes + hosts) in all.
  std::vector<int> open;
  for (size_t h = 0; h < cluster.hosts.size(); ++h)
    if (cluster.hosts[h].capacity() > 0) open.push_back(static_cast<int>(h));
  while (static_cast<int>(host_of.size()) < processes) {
    std::vector<int> still_open;
    for (int h : open) {
      if (static_cast<int>(host_of.size()) == processes) break;
      host_of.push_back(h);
      if (++placed[h] < cluster.hosts[h].capacity()) still_open.push_back(h);
    }
    open = std::move(still_open);
  }
  return with_cores(cluster, host_of);
}

CapacityTree::CapacityTree(const Cluster& cluster) {
  const int host_count = static_cast<int>(cluster.hosts.size());
  nodes.emplace_back();  // the top switch
  // Switch levels, top down: level l groups `members[l]` nodes of the level below.
  std::vector<int> groups_per_level{host_count};  // [0] = hosts
  for (int size : cluster.network) groups_per_level.push_back((groups_per_level.back() + size - 1) / size);
  // parents[g] = node of group g at the current level, starting with the root for the top.
  std::vector<int> parents;
  const int levels = static_cast<int>(cluster.network.size());
  for (int level = levels; level >= 1; --level) {
    std::vector<int> next(groups_per_level[level]);
    for (int g = 0; g < groups_per_level[level]; ++g) {
      const int parent = level == levels ? 0 : parents[g / cluster.network[level]];
      next[g] = static_cast<int>(nodes.size());
      nodes[parent].children.push_back(next[g]);
      nodes.emplace_back();
    }
    parents = std::move(next);
  }
  host_node.resize(host_count);
  for (int h = 0; h < host_count; ++h) {
    const Host& host = cluster.hosts[h];
    const int parent = levels == 0 ? 0 : parents[h / cluster.network[0]];
    host_node[h] = static_cast<int>(nodes.size());
    nodes[parent].children.push_back(host_node[h]);
    nodes.emplace_back();
    nodes.back().host = h;
    nodes.back().is_host = true;
    // The host's tree, level by level; the last level's nodes are the cores, numbered in
    // order, which is the hwloc logical order of a regular tree.
    std::vector<int> level_nodes{host_node[h]};
    for (int arity : host.tree.arities) {
      std::vector<int> below;
      for (int parent_node : level_nodes)
        for (int c = 0; c < arity; ++c) {
          below.push_back(static_cast<int>(nodes.size()));
          nodes[parent_node].children.push_back(below.back());
          nodes.emplace_back();
          nodes.back().host = h;
        }
      level_nodes = std::move(below);
    }
    for (size_t core = 0; core < level_nodes.size(); ++core) {
      Node& leaf = nodes[level_nodes[core]];
      leaf.core = static_cast<int>(core);
      leaf.capacity = host.capacity_of(static_cast<int>(core));
    }
  }
  // Capacities bottom-up: children always come after their parent.
  for (int n = static_cast<int>(nodes.size()) - 1; n >= 0; --n) {
    Node& node = nodes[n];
    if (node.children.empty()) continue;
    node.capacity = 0;
    for (int c : node.children) node.capacity = add_capped(node.capacity, nodes[c].capacity);
    if (node.is_host) node.capacity = std::min(node.capacity, cluster.hosts[node.host].slots);
  }
}

}  // namespace mpimon::placement
