#include "srun_layout.h"

#include <algorithm>
#include <vector>

namespace mpimon::placement {

namespace {

std::string joined(const std::vector<int>& numbers) {
  std::string text;
  for (size_t i = 0; i < numbers.size(); ++i) text += (i ? "," : "") + std::to_string(numbers[i]);
  return text;
}

}  // namespace

SrunLayout srun_layout(const Cluster& cluster, const Mapping& mapping) {
  SrunLayout layout;
  // Each node's cores in the order of its tasks' ranks: Slurm numbers a node's local
  // tasks by their global ids.
  std::vector<std::vector<int>> cores_of(cluster.hosts.size());
  for (const Location& l : mapping) {
    layout.hostfile += cluster.hosts[l.host].name + "\n";
    cores_of[l.host].push_back(l.core);
  }
  // The longest list must begin every other one.
  size_t longest = 0;
  for (size_t h = 0; h < cores_of.size(); ++h)
    if (cores_of[h].size() > cores_of[longest].size()) longest = h;
  for (size_t h = 0; h < cores_of.size(); ++h) {
    const std::vector<int>& mine = cores_of[h];
    if (std::equal(mine.begin(), mine.end(), cores_of[longest].begin())) continue;
    layout.why_no_map_cpu = "srun binds with one CPU list for every node, but the tasks of " +
                            cluster.hosts[longest].name + " want cores " + joined(cores_of[longest]) +
                            " and those of " + cluster.hosts[h].name + " cores " + joined(mine);
    return layout;
  }
  layout.map_cpu = joined(cores_of[longest]);
  return layout;
}

}  // namespace mpimon::placement
