#include "topology.h"

#include <hwloc.h>

#include <filesystem>
#include <memory>

namespace mpimon::placement {

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<std::remove_pointer_t<hwloc_topology_t>, TopologyDeleter>;

}  // namespace

MachineTree load_topology(const std::string& source) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw TopologyError("hwloc: cannot initialise a topology");
  Topology topology(raw);
  MachineTree result;
  if (source == "machine") {
    result.description = "this machine";
  } else if (std::filesystem::exists(source)) {
    if (hwloc_topology_set_xml(raw, source.c_str()) != 0)
      throw TopologyError(source + ": not an hwloc XML topology (hwloc_topology_set_xml failed)");
    result.description = "hwloc XML " + source;
  } else {
    if (hwloc_topology_set_synthetic(raw, source.c_str()) != 0)
      throw TopologyError("'" + source +
                          "': neither a file nor a valid synthetic topology (expected e.g. 'pack:2 core:4 pu:1')");
    result.description = "synthetic '" + source + "'";
  }
  if (hwloc_topology_load(raw) != 0) throw TopologyError(result.description + ": hwloc cannot load it");

  const int core_depth = hwloc_get_type_depth(raw, HWLOC_OBJ_CORE);
  if (core_depth < 0) throw TopologyError(result.description + ": has no cores");
  // Arities from the root to the cores; the tree must be regular at each level.
  int previous = 1;
  for (int depth = 1; depth <= core_depth; ++depth) {
    const int objects = hwloc_get_nbobjs_by_depth(raw, depth);
    if (objects % previous != 0)
      throw TopologyError(result.description + ": irregular at depth " + std::to_string(depth) + " (" +
                          std::to_string(objects) + " objects under " + std::to_string(previous) + ")");
    if (objects / previous > 1) result.tree.arities.push_back(objects / previous);
    previous = objects;
  }
  if (result.tree.arities.empty()) result.tree.arities.push_back(1);
  const int packages = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE);
  result.cores_per_package = result.tree.leaves() / std::max(1, packages);
  return result;
}

int bound_core() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return -1;
  Topology topology(raw);
  if (hwloc_topology_load(raw) != 0) return -1;
  std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> bound(hwloc_bitmap_alloc(), hwloc_bitmap_free);
  if (hwloc_get_cpubind(raw, bound.get(), HWLOC_CPUBIND_PROCESS) != 0) return -1;
  int found = -1;
  for (hwloc_obj_t core = nullptr; (core = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_CORE, core));) {
    if (!hwloc_bitmap_intersects(core->cpuset, bound.get())) continue;
    if (found >= 0 || !hwloc_bitmap_isincluded(bound.get(), core->cpuset)) return -1;  // spans several cores
    found = static_cast<int>(core->logical_index);
  }
  return found;
}

}  // namespace mpimon::placement
