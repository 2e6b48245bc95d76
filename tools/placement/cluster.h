// The machine a job is placed on: hosts (each with its own topology tree and a number of
// slots) joined by a network tree, and the costs of a mapping of processes onto it.
//
// Distances: two processes on the same core are 0 hops apart; on one host, the edges of
// the host's tree between their cores (Tree::hops); on different hosts, up from each core
// to its host (one edge per level of its tree), plus the network: host -> switch -> host
// is 2 hops, each switch level above the lowest switch common to both hosts adds 2.
// "Hop-bytes" is the sum over process pairs of traffic x hops; "bytes crossing hosts" the
// traffic between processes on different hosts.
#pragma once

#include <compare>
#include <string>
#include <vector>

#include "affinity.h"
#include "treematch.h"

namespace mpimon::placement {

// Where a process runs: a host of the cluster and a core (leaf index, i.e. the logical
// core number) of that host's tree.
struct Location {
  int host = 0;
  int core = 0;
  bool operator==(const Location&) const = default;
};
using Mapping = std::vector<Location>;  // process -> location

struct Host {
  std::string name;
  Tree tree;      // the host's topology, root to cores
  int slots = 0;  // processes it takes at most (a hostfile's slots)
  // Processes each core takes at most; empty: ceil(slots / cores) on every core, the way
  // mpirun shares cores when a host has more slots than cores.
  std::vector<int> core_capacity;

  int cores() const { return tree.leaves(); }
  int capacity_of(int core) const;
  int capacity() const;  // min(slots, sum of the cores' capacities)
  // Whether its cores are shared evenly: no core_capacity given and more slots than cores.
  // Then a host running k processes gives no core more than ceil(k / cores) of them, as
  // mpirun spreads them (no two processes on a core while another core is idle).
  bool shares_evenly() const;
  // Processes per core when the host runs k processes: ceil(k / cores) if it shares
  // evenly, else capacity_of(core).
  int share_of(int core, int k) const;
};

struct Cluster {
  std::vector<Host> hosts;
  // Switch levels from the hosts up: hosts per lowest switch, then switches per switch of
  // the next level, ...; groups follow the host order, the last group of a level may be
  // smaller, and one top switch joins what is left. Empty: all hosts on one switch.
  std::vector<int> network;

  int capacity() const;
  int hops(Location a, Location b) const;
  // Hops between two hosts through the network (2 on one switch).
  int network_hops(int host_a, int host_b) const;
  // Throws std::invalid_argument when a mapping puts a process outside the cluster or
  // more processes on a core or host than it takes.
  void check(const Mapping& mapping) const;
};

// The placement objective, compared lexicographically: bytes crossing hosts first (the
// network is the bottleneck placement is for), then hop-bytes.
struct Cost {
  double crossing_bytes = 0;
  double hop_bytes = 0;
  auto operator<=>(const Cost&) const = default;
  Cost& operator+=(const Cost& other) {
    crossing_bytes += other.crossing_bytes;
    hop_bytes += other.hop_bytes;
    return *this;
  }
};
Cost cost_of(const Affinity& affinity, const Cluster& cluster, const Mapping& mapping);

// mpirun's default (--map-by slot): the hosts' slots in order, host after host; on a host,
// its k-th process on core k / ceil(slots / cores) (cores in order, shared when a host
// has more slots than cores).
Mapping by_slot(const Cluster& cluster, int processes);
// mpirun --map-by node: process i on the i-th host round-robin, skipping full hosts.
Mapping round_robin_by_host(const Cluster& cluster, int processes);

// The cluster as one tree whose leaves are cores with capacities: the root is the top
// switch, then the switch levels, the hosts, and each host's tree. The exact and the
// partitioning placements work on it.
struct CapacityTree {
  struct Node {
    int capacity = 0;           // processes the subtree takes
    std::vector<int> children;  // node indices; empty for cores
    int host = -1;              // the host the node belongs to (-1 above the hosts)
    int core = -1;              // for cores: the core's leaf index in its host
    bool is_host = false;       // the node of a whole host
  };
  std::vector<Node> nodes;     // nodes[0] is the root
  std::vector<int> host_node;  // host -> its node

  explicit CapacityTree(const Cluster& cluster);
};

}  // namespace mpimon::placement
