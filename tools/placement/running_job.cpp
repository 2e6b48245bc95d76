#include "running_job.h"

#include <map>
#include <stdexcept>

namespace mpimon::placement {

RunningJob running_job(const std::vector<ProcessReport>& processes) {
  RunningJob job;
  std::map<std::string, int> host_of_name;
  std::vector<std::vector<int>> unbound;  // per host: processes without a usable core
  job.current.resize(processes.size());
  for (size_t p = 0; p < processes.size(); ++p) {
    const ProcessReport& r = processes[p];
    auto [it, added] = host_of_name.emplace(r.host, static_cast<int>(job.cluster.hosts.size()));
    if (added) {
      Host host{r.host, Tree{r.arities}, 0, {}};
      if (host.tree.arities.empty()) host.tree.arities.push_back(1);
      host.core_capacity.assign(host.cores(), 0);
      job.cluster.hosts.push_back(std::move(host));
      unbound.emplace_back();
    }
    Host& host = job.cluster.hosts[it->second];
    ++host.slots;
    job.current[p].host = it->second;
    if (r.core >= 0 && r.core < host.cores()) {
      job.current[p].core = r.core;
      ++host.core_capacity[r.core];
    } else {
      unbound[it->second].push_back(static_cast<int>(p));
    }
  }
  for (size_t h = 0; h < unbound.size(); ++h) {
    Host& host = job.cluster.hosts[h];
    const int count = static_cast<int>(unbound[h].size());
    const int per_core = (count + host.cores() - 1) / host.cores();
    for (int k = 0; k < count; ++k) {
      job.current[unbound[h][k]].core = k / per_core;
      ++host.core_capacity[k / per_core];
    }
  }
  return job;
}

std::vector<int> keys_for(const Mapping& placed, const Mapping& current) {
  const size_t n = current.size();
  if (placed.size() != n) throw std::invalid_argument("a placement for another number of processes");
  std::vector<int> key(n, -1);
  // Processes waiting at each location, in rank order.
  std::map<std::pair<int, int>, std::vector<int>> waiting;
  for (size_t i = 0; i < n; ++i)
    if (placed[i] == current[i]) key[i] = static_cast<int>(i);  // stays
  for (size_t p = n; p-- > 0;)
    if (key[p] < 0) waiting[{current[p].host, current[p].core}].push_back(static_cast<int>(p));
  for (size_t i = 0; i < n; ++i) {
    if (placed[i] == current[i]) continue;
    auto& free = waiting[{placed[i].host, placed[i].core}];
    if (free.empty()) throw std::invalid_argument("the placement puts more ranks somewhere than processes run there");
    key[free.back()] = static_cast<int>(i);
    free.pop_back();
  }
  return key;
}

}  // namespace mpimon::placement
