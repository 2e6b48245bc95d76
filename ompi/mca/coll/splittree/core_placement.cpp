#include "core_placement.h"

#include <cstddef>

namespace mpimon::splittree {

CorePlan plan_progress_cores(int cores, const std::vector<std::vector<int>>& rank_cores) {
  CorePlan plan;
  if (cores <= 0) return plan;
  std::vector<double> load(cores, 0.0);
  for (const std::vector<int>& covered : rank_cores) {
    int valid = 0;
    for (int c : covered) valid += c >= 0 && c < cores;
    if (valid == 0) {  // not bound: it may run anywhere
      for (double& l : load) l += 1.0 / cores;
      continue;
    }
    for (int c : covered)
      if (c >= 0 && c < cores) load[c] += 1.0 / valid;
  }
  for (double l : load) plan.free_cores += l == 0.0;
  for (std::size_t i = 0; i < rank_cores.size(); ++i) {
    int best = 0;
    for (int c = 1; c < cores; ++c)
      if (load[c] < load[best] - 1e-9) best = c;
    plan.thread_core.push_back(best);
    load[best] += 1.0;
  }
  return plan;
}

}  // namespace mpimon::splittree
