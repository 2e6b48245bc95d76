#include "placement.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <span>
#include <stdexcept>

#include "bisection.h"
#include "exact.h"
#include "treematch.h"

namespace mpimon::placement {

namespace {

// Recursive capacitated bisection down a CapacityTree: a node's children are split into two
// runs of about equal capacity, the processes bisected between the runs, and so on, down
// to the hosts (stop_at_hosts) or to the cores. Records the node each process ends on.
class TopDown {
 public:
  TopDown(const Affinity& affinity, const CapacityTree& tree, bool stop_at_hosts)
      : tree_(tree), bisector_(affinity), stop_at_hosts_(stop_at_hosts), node_of_(affinity.size(), -1) {}

  std::vector<int> run() {
    std::vector<int> all(node_of_.size());
    std::iota(all.begin(), all.end(), 0);
    place(0, all);
    return node_of_;
  }

 private:
  void place(int node, const std::vector<int>& processes) {
    if (processes.empty()) return;
    const CapacityTree::Node& t = tree_.nodes[node];
    if (t.children.empty() || (stop_at_hosts_ && t.is_host)) {
      for (int p : processes) node_of_[p] = node;
      return;
    }
    std::vector<int> children;
    for (int c : t.children)
      if (tree_.nodes[c].capacity > 0) children.push_back(c);
    place_among(children, processes);
  }

  void place_among(std::span<const int> children, const std::vector<int>& processes) {
    if (processes.empty()) return;
    if (children.size() == 1) return place(children.front(), processes);
    // Two runs of children with about half the capacity each.
    std::vector<long> prefix{0};
    for (int c : children) prefix.push_back(prefix.back() + tree_.nodes[c].capacity);
    size_t half = 1;
    for (size_t h = 1; h < children.size(); ++h)
      if (std::labs(2 * prefix[h] - prefix.back()) < std::labs(2 * prefix[half] - prefix.back())) half = h;
    const long capacity_a = prefix[half], capacity_b = prefix.back() - prefix[half];
    const long m = static_cast<long>(processes.size());
    const std::vector<char> in_a = bisector_.split(processes, static_cast<int>(std::max(0L, m - capacity_b)),
                                                   static_cast<int>(std::min(capacity_a, m)));
    std::vector<int> a, b;
    for (size_t k = 0; k < processes.size(); ++k) (in_a[k] ? a : b).push_back(processes[k]);
    place_among(children.first(half), a);
    place_among(children.subspan(half), b);
  }

  const CapacityTree& tree_;
  Bisector bisector_;
  bool stop_at_hosts_;
  std::vector<int> node_of_;
};

bool uniform_cores(const Host& host) {
  for (int core = 1; core < host.cores(); ++core)
    if (host.capacity_of(core) != host.capacity_of(0)) return false;
  return true;
}

// The cores of one host's processes (local numbering), best of the methods that apply.
Placement place_on_host(const Affinity& local, const Host& host) {
  Cluster alone{{host}, {}};
  if (auto optimum = exact_placement(local, alone)) {
    Placement cores;
    for (const Location& l : *optimum) cores.push_back(l.core);
    return cores;
  }
  const CapacityTree tree(alone);
  const std::vector<int> nodes = TopDown(local, tree, false).run();
  Placement best;
  for (int node : nodes) best.push_back(tree.nodes[node].core);
  const int per_core = host.capacity_of(0);
  if (uniform_cores(host) && static_cast<long>(host.cores()) * per_core <= kTreeMatchLimit) {
    Options options;
    options.oversubscription = per_core;
    const Placement grouped = treematch(local, host.tree, options);
    if (hop_cost(local, host.tree, grouped) < hop_cost(local, host.tree, best)) best = grouped;
  }
  refine_by_swaps(local, host.tree, best);
  return best;
}

void check_reference(const Cluster& cluster, const Mapping& reference, int processes) {
  if (static_cast<int>(reference.size()) != processes)
    throw std::invalid_argument("a reference mapping has " + std::to_string(reference.size()) + " processes, not " +
                                std::to_string(processes));
  cluster.check(reference);
}

}  // namespace

std::vector<int> hosts_of(const Mapping& mapping) {
  std::vector<int> hosts;
  hosts.reserve(mapping.size());
  for (const Location& l : mapping) hosts.push_back(l.host);
  return hosts;
}

Mapping place_within_hosts(const Affinity& affinity, const Cluster& cluster, const std::vector<int>& host_of) {
  const int n = affinity.size();
  std::vector<std::vector<int>> members(cluster.hosts.size());
  for (int p = 0; p < n; ++p) members[host_of[p]].push_back(p);
  std::vector<int> local(n, -1);
  Mapping mapping(n);
  for (size_t h = 0; h < members.size(); ++h) {
    const std::vector<int>& on_host = members[h];
    if (on_host.empty()) continue;
    for (size_t k = 0; k < on_host.size(); ++k) local[on_host[k]] = static_cast<int>(k);
    std::vector<Traffic> inside;
    for (int p : on_host)
      for (const Link& l : affinity.partners(p))
        if (l.peer > p && local[l.peer] >= 0) inside.push_back({local[p], local[l.peer], l.weight});
    const Affinity host_affinity(static_cast<int>(on_host.size()), std::move(inside));
    // An evenly sharing host: each core takes at most its share of these processes.
    Host host = cluster.hosts[h];
    if (host.shares_evenly()) {
      const int k = static_cast<int>(on_host.size());
      std::vector<int> shares;
      for (int core = 0; core < host.cores(); ++core) shares.push_back(host.share_of(core, k));
      host.core_capacity = std::move(shares);
    }
    const Placement cores = place_on_host(host_affinity, host);
    for (size_t k = 0; k < on_host.size(); ++k) mapping[on_host[k]] = {static_cast<int>(h), cores[k]};
    for (int p : on_host) local[p] = -1;
  }
  return mapping;
}

Placed place(const Affinity& affinity, const Cluster& cluster, const std::vector<Mapping>& references,
             const PlacementOptions& options) {
  const int n = affinity.size();
  if (n > cluster.capacity())
    throw std::invalid_argument(std::to_string(n) + " processes do not fit in the " +
                                std::to_string(cluster.capacity()) + " slots of " +
                                std::to_string(cluster.hosts.size()) + " host(s)");
  if (references.empty()) throw std::invalid_argument("placement needs a baseline mapping");
  for (const Mapping& r : references) check_reference(cluster, r, n);
  const auto started = std::chrono::steady_clock::now();
  auto report = [&](const std::string& stage) {
    if (!options.progress) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    char text[32];
    std::snprintf(text, sizeof text, " (%.1f s)", seconds);
    options.progress(stage + text);
  };

  Placed best;
  if (auto optimum = exact_placement(affinity, cluster)) {
    best = {*optimum, cost_of(affinity, cluster, *optimum), Placed::Method::optimal};
  } else {
    const CapacityTree tree(cluster);
    std::vector<std::vector<int>> assignments;
    {
      const std::vector<int> nodes = TopDown(affinity, tree, true).run();
      std::vector<int> hosts(n);
      for (int p = 0; p < n; ++p) hosts[p] = tree.nodes[nodes[p]].host;
      assignments.push_back(std::move(hosts));
    }
    report("processes partitioned onto the hosts");
    for (const Mapping& r : references) assignments.push_back(hosts_of(r));
    // mpirun's two host assignments compete even when the caller's references do not hold
    // them (a running job's only reference is where it runs): never worse than either.
    assignments.push_back(hosts_of(by_slot(cluster, n)));
    assignments.push_back(hosts_of(round_robin_by_host(cluster, n)));
    // Bytes crossing hosts depend on the hosts alone: only the assignments with the fewest
    // are worth placing within their hosts.
    std::vector<double> crossing;
    for (const std::vector<int>& hosts : assignments) {
      double c = 0;
      for (int p = 0; p < n; ++p)
        for (const Link& l : affinity.partners(p))
          if (l.peer > p && hosts[p] != hosts[l.peer]) c += l.weight;
      crossing.push_back(c);
    }
    const double fewest = *std::min_element(crossing.begin(), crossing.end());
    for (size_t k = 0; k < assignments.size(); ++k) {
      if (crossing[k] > fewest ||
          std::find(assignments.begin(), assignments.begin() + k, assignments[k]) != assignments.begin() + k)
        continue;
      Mapping m = place_within_hosts(affinity, cluster, assignments[k]);
      const Cost c = cost_of(affinity, cluster, m);
      if (best.mapping.empty() || c < best.cost) best = {std::move(m), c, Placed::Method::heuristic};
    }
    report("processes placed within their hosts");
  }
  const Cost baseline = cost_of(affinity, cluster, references.front());
  if (!(best.cost < baseline)) return {references.front(), baseline, Placed::Method::baseline};
  return best;
}

}  // namespace mpimon::placement
