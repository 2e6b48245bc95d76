// The emulated cluster itself: hosts with their own names and addresses, TCP between
// hosts, folders a host lacks, and namespaces that never outlive their test.
#include <gtest/gtest.h>

#include <cctype>

#include "cluster.h"

using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;
const std::string kScript = MPIMON_CLUSTER_SCRIPT;

std::string namespaces_named(const std::string& prefix) {
  return run_shell(new_test_folder(),
                   "ip netns list | awk '{print $1}' | grep -F -- " + shell_quote(prefix) + " || true")
      .output;
}

}  // namespace

TEST(ClusterHarness, RanksRunOnTheirHostsAndTalkOverTcpBetweenThem2Hosts4Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 2);
  const JobResult job = cluster.run_job(4, {"--mca", "btl_base_verbose", "100", kPatterns, "hosts"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  // By slot: ranks 0,1 on host1, 2,3 on host2.
  for (int r = 0; r < 4; ++r)
    EXPECT_NE(job.output.find("rank " + std::to_string(r) + ": host " + cluster.hostname(r < 2 ? 1 : 2)),
              std::string::npos)
        << job.output;
  // The ring 0->1->2->3->0: 1->2 and 3->0 cross hosts (tcp), 0->1 and 2->3 stay (shared
  // memory: vader on 4.1, sm on 5.0).
  const std::string shared_memory = open_mpi_4_1() ? "vader" : "sm";
  EXPECT_NE(job.output.find("Using tcp btl for send to [["), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("Using " + shared_memory + " btl for send to [["), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("on node " + cluster.node_name(2)), std::string::npos) << job.output;
}

TEST(ClusterHarness, AHostCanLackAFolderOrSeeAnotherInItsPlace3Hosts) {
  MPIMON_REQUIRE_CLUSTER();
  const auto folder = new_test_folder();
  const auto other = new_test_folder();
  run_shell(folder, "touch here.txt");
  run_shell(other, "touch other.txt");
  EmulatedCluster cluster({EmulatedHost(1), EmulatedHost(1).hide(folder.string()),
                           EmulatedHost(1).replace(folder.string(), other.string())});
  // Not an MPI program: mpirun starts `sh` on each host.
  const JobResult job =
      cluster.run_job(3, {"sh", "-c", "echo \"$(hostname): $(ls " + folder.string() + " | tr '\\n' ' ')\""});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("host1: here.txt"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("host2: \n"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("host3: other.txt"), std::string::npos) << job.output;
  // Only inside that host's namespaces: this machine still sees the folder as it is.
  EXPECT_TRUE(std::filesystem::exists(folder / "here.txt"));
}

TEST(ClusterHarness, RemovesItsNamespacesAndWhatRunsThereWhenDestroyed) {
  MPIMON_REQUIRE_CLUSTER();
  std::string name, pids;
  {
    EmulatedCluster cluster(2, 1);
    name = cluster.name();
    EXPECT_NE(namespaces_named(name + "-h2"), "");
    // Something still running on a host when the test ends is killed with it.
    run_shell(new_test_folder(), "(" + shell_quote(kScript) + " run " + name + " sleep 3600 >/dev/null 2>&1 &) ; true");
    pids = run_shell(new_test_folder(), "for i in $(seq 50); do p=$(ip netns pids " + name +
                                            "-h0); [ -n \"$p\" ] && echo $p && break; sleep 0.1; done")
               .output;
    while (!pids.empty() && std::isspace(static_cast<unsigned char>(pids.back()))) pids.pop_back();  // one line
    ASSERT_NE(pids, "");
  }
  EXPECT_EQ(namespaces_named(name), "");
  EXPECT_FALSE(std::filesystem::exists("/run/mpimon-cluster/" + name));
  // Gone, or a zombie its (reparented) parent has not reaped yet.
  const std::string state = run_shell(new_test_folder(), "ps -o stat= -p " + pids + " || true").output;
  EXPECT_TRUE(state.empty() || state[0] == 'Z') << pids << ": " << state;
}

TEST(ClusterHarness, ClustersOfAKilledRunAreReapedOthersKept) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster live(1, 1);
  // A run killed before its clean-up: its creator (a shell) is gone.
  const JobResult killed =
      run_shell(new_test_folder(), "sh -c 'n=mpimon-cl-$(" + shell_quote(kScript) + " owner $$)-k; echo $n; " +
                                       shell_quote(kScript) + " up $n 1 >/dev/null; kill -9 $$'");
  const std::string orphan = killed.output.substr(0, killed.output.find('\n'));
  ASSERT_NE(namespaces_named(orphan + "-h1"), "") << killed.output;
  const JobResult reap = run_shell(new_test_folder(), shell_quote(kScript) + " reap");
  EXPECT_EQ(reap.exit_code, 0) << reap.output;
  EXPECT_NE(reap.output.find("removing " + orphan), std::string::npos) << reap.output;
  EXPECT_EQ(namespaces_named(orphan), "");
  EXPECT_NE(namespaces_named(live.name() + "-h1"), "");  // a live run's cluster stays
}

TEST(ClusterHarness, AJobThatHangsIsStoppedAtItsTimeout2Hosts) {
  MPIMON_REQUIRE_CLUSTER();
  EmulatedCluster cluster(2, 1);
  const JobResult job = cluster.run_job(2, {"sleep", "600"}, {.timeout_seconds = 5});
  EXPECT_EQ(job.exit_code, 124) << job.output;
}

// Run only by the next test, in a child process: holds a cluster until killed.
TEST(ClusterHarness, DISABLED_HoldsAClusterUntilKilled) {
  EmulatedCluster cluster(1, 1);
  std::printf("holding %s\n", cluster.name().c_str());
  std::fflush(stdout);
  ::sleep(120);
}

TEST(ClusterHarness, AnInterruptedRunRemovesItsClusters) {
  MPIMON_REQUIRE_CLUSTER();
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto folder = new_test_folder();
  // The child prints the cluster's name; SIGTERM once it is up.
  const std::string log = shell_quote((folder / "child.log").string());
  const JobResult child = run_shell(
      folder,
      "{ " + shell_quote(self) +
          " --gtest_filter=ClusterHarness.DISABLED_HoldsAClusterUntilKilled --gtest_also_run_disabled_tests > " + log +
          " 2>&1 & pid=$!; for i in $(seq 100); do grep -q '^holding' " + log +
          " && break; sleep 0.1; done; kill -TERM $pid; wait $pid; echo \"status $?\"; cat " + log + "; }");
  const size_t at = child.output.find("holding ");
  ASSERT_NE(at, std::string::npos) << child.output;
  const std::string name = child.output.substr(at + 8, child.output.find('\n', at) - at - 8);
  EXPECT_NE(child.output.find("status 143"), std::string::npos) << child.output;  // died of SIGTERM
  EXPECT_EQ(namespaces_named(name), "") << child.output;
}
