// Topologies for placement through hwloc: synthetic descriptions, XML files, this machine.
#include <gtest/gtest.h>

#include <hwloc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "topology.h"

namespace mpimon::placement {
namespace {

TEST(Topology, SyntheticDescriptionGivesTheArities) {
  const MachineTree m = load_topology("pack:2 core:4 pu:1");
  EXPECT_EQ(m.tree.arities, (std::vector<int>{2, 4}));
  EXPECT_EQ(m.cores_per_package, 4);
}

TEST(Topology, SyntheticTreesUpTo1024CoresPlaceEveryProcess) {
  const MachineTree m = load_topology("pack:4 numa:4 l3:8 core:8 pu:2");
  EXPECT_EQ(m.tree.arities, (std::vector<int>{4, 4, 8, 8}));
  EXPECT_EQ(m.tree.leaves(), 1024);
  Affinity ring(1024);
  for (int i = 0; i < 1024; ++i) ring.add(i, (i + 1) % 1024, 10);
  const Placement p = treematch(ring, m.tree);
  std::vector<int> leaves(p);
  std::sort(leaves.begin(), leaves.end());
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(leaves[i], i);
}

TEST(Topology, XmlFileIsLoaded) {
  hwloc_topology_t t;
  hwloc_topology_init(&t);
  hwloc_topology_set_synthetic(t, "pack:2 core:3 pu:1");
  hwloc_topology_load(t);
  const std::string path = (std::filesystem::temp_directory_path() / "mpimon-topology-test.xml").string();
  ASSERT_EQ(hwloc_topology_export_xml(t, path.c_str(), 0), 0);
  hwloc_topology_destroy(t);
  const MachineTree m = load_topology(path);
  std::filesystem::remove(path);
  EXPECT_EQ(m.tree.arities, (std::vector<int>{2, 3}));
}

TEST(Topology, ThisMachineHasAtLeastOneCore) { EXPECT_GE(load_topology("machine").tree.leaves(), 1); }

TEST(Topology, MalformedInputSaysWhy) {
  try {
    load_topology("pack:2 bogus:3");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("neither a file nor a valid synthetic topology"), std::string::npos);
  }
  const std::string path = (std::filesystem::temp_directory_path() / "mpimon-not-xml.xml").string();
  { std::ofstream(path) << "not xml\n"; }
  EXPECT_THROW(load_topology(path), TopologyError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace mpimon::placement
