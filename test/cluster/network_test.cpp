// A network with costs between emulated hosts (cluster.sh's MPIMON_HOSTS_NET): the
// queueing disciplines are on both ends of every link, a job runs over them, a rate makes
// a 1 MiB ping-pong across hosts slower (times printed, asserted only against the floor
// the rate itself sets, which load cannot lower), and bad text is refused before
// anything is created.
#include <gtest/gtest.h>

#include <regex>

#include "cluster.h"

using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_PATTERNS;
const std::string kScript = MPIMON_CLUSTER_SCRIPT;
constexpr long kMiB = 1 << 20;

// Seconds per round trip of `mpi_patterns pingpong <bytes> <round trips>` between host1
// and host2 (one rank on each).
double pingpong_seconds(const EmulatedCluster& cluster, long bytes, int round_trips) {
  const JobResult job = cluster.run_job(2, {kPatterns, "pingpong", std::to_string(bytes), std::to_string(round_trips)});
  EXPECT_EQ(job.exit_code, 0) << job.output;
  std::smatch m;
  static const std::regex line(R"(pingpong \d+ bytes: ([0-9.]+) s per round trip)");
  if (!std::regex_search(job.output, m, line)) {
    ADD_FAILURE() << "no pingpong line in:\n" << job.output;
    return -1;
  }
  return std::stod(m[1]);
}

}  // namespace

TEST(ClusterNetwork, ARateLimitedLinkSlowsA1MiBPingPongAcrossHosts2Hosts2Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  MPIMON_REQUIRE_CLUSTER_NETWORK("rate=100mbit");
  double free_seconds = 0, limited_seconds = 0;
  {
    EmulatedCluster free_network(2, 1, "");
    EXPECT_EQ(free_network.network_of(1).find("tbf"), std::string::npos) << free_network.network_of(1);
    free_seconds = pingpong_seconds(free_network, kMiB, 10);
  }
  {
    EmulatedCluster limited(2, 1, "rate=100mbit");
    for (int host = 0; host <= 2; ++host) {
      const std::string shown = limited.network_of(host);
      // Both ends of the link: what the host sends and what it receives.
      EXPECT_TRUE(std::regex_search(shown, std::regex("sends: qdisc tbf .*rate 100Mbit"))) << shown;
      EXPECT_TRUE(std::regex_search(shown, std::regex("receives: qdisc tbf .*rate 100Mbit"))) << shown;
    }
    limited_seconds = pingpong_seconds(limited, kMiB, 10);
  }
  std::printf("1 MiB ping-pong across hosts: %.4f s per round trip on a free network, %.4f s at 100 Mbit/s (%.1fx)\n",
              free_seconds, limited_seconds, limited_seconds / free_seconds);
  RecordProperty("free_seconds_per_round_trip", std::to_string(free_seconds));
  RecordProperty("limited_seconds_per_round_trip", std::to_string(limited_seconds));
  // The floor the rate sets, whatever the load: 2 x 1 MiB at 100 Mbit/s, less the buckets
  // (64 KiB + 1 ms at the rate on each of the two links per direction) = 0.146 s.
  EXPECT_GE(limited_seconds, 0.12);
}

TEST(ClusterNetwork, ADelayedLinkSlowsASmallPingPongAcrossHosts2Hosts2Ranks) {
  MPIMON_REQUIRE_CLUSTER();
  MPIMON_REQUIRE_CLUSTER_NETWORK("delay=2ms");
  EmulatedCluster delayed(2, 1, "delay=2ms");
  const std::string shown = delayed.network_of(1);
  EXPECT_TRUE(std::regex_search(shown, std::regex("sends: qdisc netem .*delay 2ms"))) << shown;
  EXPECT_TRUE(std::regex_search(shown, std::regex("receives: qdisc netem .*delay 2ms"))) << shown;
  const double seconds = pingpong_seconds(delayed, 8, 20);
  std::printf("8-byte ping-pong across hosts with 2 ms per link: %.4f s per round trip\n", seconds);
  // Each way crosses two links: at least 4 x 2 ms per round trip.
  EXPECT_GE(seconds, 0.0075);
}

TEST(ClusterNetwork, OneLinkCanBeGivenItsOwnRate2Hosts) {
  MPIMON_REQUIRE_CLUSTER();
  MPIMON_REQUIRE_CLUSTER_NETWORK("rate=1gbit");
  EmulatedCluster cluster(2, 1, "rate=1gbit");
  const JobResult changed =
      run_shell(new_test_folder(), shell_quote(kScript) + " net " + cluster.name() + " 2 rate=250mbit");
  ASSERT_EQ(changed.exit_code, 0) << changed.output;
  EXPECT_NE(cluster.network_of(1).find("rate 1Gbit"), std::string::npos) << cluster.network_of(1);
  EXPECT_NE(cluster.network_of(2).find("rate 250Mbit"), std::string::npos) << cluster.network_of(2);
  EXPECT_EQ(cluster.network_of(2).find("rate 1Gbit"), std::string::npos) << cluster.network_of(2);
  const JobResult job = cluster.run_job(2, {kPatterns, "hosts"});
  EXPECT_EQ(job.exit_code, 0) << job.output;
}

TEST(ClusterNetwork, BadTextIsRefusedBeforeAnythingIsCreated) {
  MPIMON_REQUIRE_CLUSTER();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rate=fast", "'rate=fast': expected a number followed by a unit"},
      {"rate=1GB", "'rate=1GB': expected a number followed by a unit"},
      {"delay=5", "'delay=5': expected a number followed by a unit"},
      {"delay=5mbit", "'delay=5mbit': the unit of a delay is us, ms or s, not 'mbit'"},
      {"jitter=1ms", "unknown key 'jitter'"},
      {"rate=1gbit rate=2gbit", "rate given twice"},
      {"rate=10kbit", "'rate=10kbit': a rate from 1mbit to 1tbit"},
      {"slow", "expected key=value words"},
  };
  for (const auto& [spec, message] : cases) {
    EXPECT_THROW(EmulatedCluster::network_unavailable_reason(spec), std::invalid_argument) << spec;
    const std::string name = "mpimon-cl-1.1-bad";
    const JobResult up = run_shell(
        new_test_folder(), "MPIMON_HOSTS_NET=" + shell_quote(spec) + " " + shell_quote(kScript) + " up " + name + " 2");
    EXPECT_EQ(up.exit_code, 2) << spec << ": " << up.output;
    EXPECT_NE(up.output.find("cluster.sh: MPIMON_HOSTS_NET: " + message), std::string::npos)
        << spec << ": " << up.output;
    EXPECT_EQ(run_shell(new_test_folder(), "ip netns list | grep -c -- " + name + " || true").output, "0\n") << spec;
  }
}
