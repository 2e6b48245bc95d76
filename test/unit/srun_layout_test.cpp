// A placement as srun applies it (tools/placement/srun_layout.h).
#include <gtest/gtest.h>

#include "srun_layout.h"

namespace mpimon::placement {
namespace {

Cluster two_hosts() {
  Cluster cluster;
  cluster.hosts.resize(2);
  cluster.hosts[0].name = "host1";
  cluster.hosts[1].name = "host2";
  return cluster;
}

TEST(SrunLayout, HostsInTaskOrderAndOneCpuListWhenEveryNodeWantsTheSame) {
  // Ranks 0 and 3 on host1, 1 and 2 on host2; each node's lower rank on core 1.
  const SrunLayout layout = srun_layout(two_hosts(), {{0, 1}, {1, 1}, {1, 0}, {0, 0}});
  EXPECT_EQ(layout.hostfile, "host1\nhost2\nhost2\nhost1\n");
  EXPECT_EQ(layout.map_cpu, "1,0");
  EXPECT_EQ(layout.why_no_map_cpu, "");
}

TEST(SrunLayout, ANodeWithFewerTasksUsesTheListsBeginning) {
  const SrunLayout layout = srun_layout(two_hosts(), {{0, 2}, {1, 2}, {0, 0}, {0, 1}});
  EXPECT_EQ(layout.map_cpu, "2,0,1");
}

TEST(SrunLayout, DifferentListsSayWhyAndBindNothing) {
  const SrunLayout layout = srun_layout(two_hosts(), {{0, 0}, {0, 1}, {1, 1}, {1, 0}});
  EXPECT_EQ(layout.hostfile, "host1\nhost1\nhost2\nhost2\n");
  EXPECT_EQ(layout.map_cpu, "");
  EXPECT_EQ(layout.why_no_map_cpu,
            "srun binds with one CPU list for every node, but the tasks of host1 want cores 0,1 and those of host2 "
            "cores 1,0");
}

}  // namespace
}  // namespace mpimon::placement
