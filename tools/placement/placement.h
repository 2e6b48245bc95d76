// The placement core, shared by `mpimon place` and mpimon_reorder(): maps the processes of
// a job onto a cluster (cluster.h) so that the Cost - bytes crossing hosts, then hop-bytes -
// is as low as it can find, and never higher than the reference mappings it is given.
//
//   - Up to kExactLimit processes: the optimum (exact.h).
//   - Beyond: hierarchical. The processes are first partitioned onto the hosts, top down
//     along the network tree, by capacitated bisection (bisection.h); then each host's
//     processes are placed on its cores: the best of that host's optimum (when it holds at
//     most kExactLimit of them), the same bisection down its tree, and TreeMatch
//     (treematch.h, up to kTreeMatchLimit processes), followed by pairwise swaps. The host
//     assignments of the references, and mpirun's by-slot and round-robin ones, are also
//     placed within their hosts and compete.
//   - The first reference is the baseline (mpirun's by-slot order for a new job, the
//     current layout for a running one): it is returned unchanged unless a mapping is
//     strictly better, so ranks are never permuted for no gain.
// Sparse throughout: time and memory grow with processes and links, never processes squared.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "affinity.h"
#include "cluster.h"

namespace mpimon::placement {

struct PlacementOptions {
  std::function<void(const std::string&)> progress;  // told about each stage of long runs
};

struct Placed {
  enum class Method { optimal, heuristic, baseline };
  Mapping mapping;
  Cost cost;
  Method method = Method::baseline;  // baseline: nothing was strictly better
};

// Throws std::invalid_argument when the processes do not fit the cluster or a reference is
// not a valid mapping; `references` must hold at least the baseline.
Placed place(const Affinity& affinity, const Cluster& cluster, const std::vector<Mapping>& references,
             const PlacementOptions& options = {});

// Keeps each process on its host (host_of[p]) and places it on that host's cores.
Mapping place_within_hosts(const Affinity& affinity, const Cluster& cluster, const std::vector<int>& host_of);

// The hosts of a mapping, per process.
std::vector<int> hosts_of(const Mapping& mapping);

}  // namespace mpimon::placement
