#include "host_plan.h"

#include "ompi_release_pmix.h"
#include "runtime/ompi_glue.h"

#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

#include "core_placement.h"

namespace mpimon::splittree {

namespace {

// This job's ranks on this host (PMIx "local peers"), in rank order.
std::vector<uint32_t> local_peers(std::string& problem) {
  const auto text =
      ompi_release::pmix::Query(true).string(ompi_release::pmix::kWildcardRank, ompi_release::pmix::kLocalPeers);
  std::vector<uint32_t> peers;
  if (text) {
    std::istringstream list(*text);
    for (std::string item; std::getline(list, item, ',');) peers.push_back(static_cast<uint32_t>(std::stoul(item)));
  } else {
    problem = "the launcher did not say which ranks share this host";
  }
  const uint32_t me = ompi_proc_local_proc->super.proc_name.vpid;
  if (std::find(peers.begin(), peers.end(), me) == peers.end()) peers.push_back(me);
  std::sort(peers.begin(), peers.end());
  return peers;
}

// The cpuset the launcher bound `vpid` to (hwloc list syntax), "" when not bound.
std::string binding_of(uint32_t vpid) {
  return ompi_release::pmix::Query(true).string(vpid, ompi_release::pmix::kCpuset).value_or("");
}

HostPlan compute() {
  HostPlan plan;
  const std::vector<uint32_t> peers = local_peers(plan.problem);
  plan.ranks_on_host = static_cast<int>(peers.size());
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
    plan.problem = "hwloc cannot read this machine's topology";
    return plan;
  }
  plan.cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  std::vector<std::vector<int>> rank_cores;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  for (uint32_t vpid : peers) {
    std::vector<int> covered;
    const std::string cpuset = binding_of(vpid);
    if (!cpuset.empty() && hwloc_bitmap_list_sscanf(set, cpuset.c_str()) == 0) {
      for (int c = 0; c < plan.cores; ++c)
        if (hwloc_bitmap_intersects(set, hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, c)->cpuset))
          covered.push_back(c);
    }
    rank_cores.push_back(covered);
  }
  hwloc_bitmap_free(set);
  const CorePlan cores = plan_progress_cores(plan.cores, rank_cores);
  plan.free_cores = cores.free_cores;
  const auto me = std::find(peers.begin(), peers.end(), ompi_proc_local_proc->super.proc_name.vpid) - peers.begin();
  if (static_cast<size_t>(me) < cores.thread_core.size()) {
    plan.thread_core = cores.thread_core[me];
    char* list = nullptr;
    hwloc_bitmap_list_asprintf(&list, hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, plan.thread_core)->cpuset);
    if (list != nullptr) plan.thread_cpuset = list;
    free(list);
  }
  hwloc_topology_destroy(topology);
  return plan;
}

}  // namespace

const HostPlan& host_plan() {
  static std::once_flag once;
  static HostPlan plan;
  std::call_once(once, [] { plan = compute(); });
  return plan;
}

}  // namespace mpimon::splittree
