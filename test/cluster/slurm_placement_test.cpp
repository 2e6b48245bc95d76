// A placement srun applies (docs/slurm.md "Placement with srun"): `mpimon place
// --slurm-hostfile` writes the hosts of the ranks for srun --distribution=arbitrary and
// prints the --cpu-bind=map_cpu: list; a step launched with them under the real Slurm runs
// each rank on the host and core the placement chose (read back from the ranks and from
// srun's --cpu-bind=verbose). Measured on the paper's binary-tree reduce over 4 nodes:
// bytes crossing nodes per reduce for Slurm's default layout (block), --distribution=cyclic
// and ours.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "cluster.h"
#include "crossing.h"

using namespace mpimon::test;

namespace {

namespace fs = std::filesystem;

const std::string kEnvScript = MPIMON_ENV_SCRIPT;
const std::string kReorderPatterns = MPIMON_REORDER_PATTERNS;
constexpr int kNodes = 4, kPerNode = 2, kRanks = kNodes * kPerNode;

// Every step of the test in one allocation: a monitored reduce in Slurm's default layout,
// the placement, then 1 + 1 and 1 + 3 reduces in each layout (their difference is two
// reduces: start, end and the first reduce cancel). A step whose rank dies ends at once
// (--kill-on-bad-exit), one that hangs after 60 s: a failure, never a 240 s wait.
std::string steps_script() {
  std::string s = "#!/bin/sh\nset -e\n. " + kEnvScript +
                  "\n"
                  "export OMPI_MCA_pml_monitoring_enable=2 OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
                  "OMPI_MCA_coll_tuned_reduce_algorithm=4 OMPI_MCA_mpi_yield_when_idle=1\n"
                  "step() { name=$1; k=$2; shift 2; OMPI_MCA_pml_monitoring_job_file=$name.$k.txt timeout 60 srun "
                  "--kill-on-bad-exit=1 --mpi=pmix -n " +
                  std::to_string(kRanks) + " \"$@\" " + kReorderPatterns +
                  " treereduce 65536 $k > $name.$k.out 2>&1; }\n";
  s += "step monitored 0\n";
  std::string hostfile;
  for (int n = 1; n <= kNodes; ++n)
    hostfile += "host" + std::to_string(n) + " slots=" + std::to_string(kPerNode) + "\\n";
  s += "printf '" + hostfile + "' > hf\n";
  s +=
      "mpimon place monitored.0.txt --hostfile hf --category internal --rankfile rf --slurm-hostfile shf > place.out\n";
  s += "bind=$(sed -n 's/.*--cpu-bind=map_cpu:\\([0-9,]*\\).*/\\1/p' place.out)\n";
  s += "for k in 1 3; do\n"
       "  step default $k\n"
       "  step cyclic $k --distribution=cyclic\n"
       "  SLURM_HOSTFILE=$PWD/shf step ours $k --distribution=arbitrary ${bind:+--cpu-bind=verbose,map_cpu:$bind}\n"
       "done\n";
  return s;
}

uint64_t crossing_per_reduce(const fs::path& folder, const std::string& layout) {
  uint64_t crossing[2];
  for (int i = 0; i < 2; ++i) {
    const std::string name = layout + "." + (i == 0 ? "1" : "3");
    const auto hosts = hosts_of(read_text(folder / (name + ".out")));
    EXPECT_EQ(hosts.size(), static_cast<size_t>(kRanks)) << read_text(folder / (name + ".out"));
    if (hosts.size() != kRanks) return ~0ull;
    crossing[i] = crossing_bytes(folder / (name + ".txt"), hosts, true);
  }
  return (crossing[1] - crossing[0]) / 2;
}

}  // namespace

// Disabled (2026-11-28): on 4 emulated Slurm nodes about half of the runs lose a step: Open
// MPI 4.1.4's TCP BTL says "connect() to 10.200.0.11 failed: Operation now in progress
// (115)" and a rank segfaults at address 0 (only libc's frame printed), whatever the layout
// (default, cyclic or ours). Not diagnosed; the 2-node Slurm tests do not show it.
// docs/slurm.md, "Known problems". Run it with --gtest_also_run_disabled_tests.
TEST(SlurmPlacement, DISABLED_SrunAppliesTheHostsAndCoresMpimonPlaceWrites4Nodes8Ranks) {
  MPIMON_REQUIRE_SLURM();
  EmulatedCluster cluster(std::vector<EmulatedHost>(kNodes, EmulatedHost(kPerNode)), SlurmOptions{});
  const fs::path folder = cluster.new_user_folder();
  std::ofstream(folder / "steps.sh") << steps_script();
  const JobResult run = cluster.run_as_user(folder,
                                            "salloc --nodes=" + std::to_string(kNodes) +
                                                " --ntasks-per-node=" + std::to_string(kPerNode) +
                                                " sh steps.sh; rc=$?; cat place.out; exit $rc",
                                            240);
  ASSERT_EQ(run.exit_code, 0) << run.output;

  // Each rank of our layout ran on the host of its SLURM_HOSTFILE line and, bound by
  // srun, on the core of the rankfile's line (the same placement).
  std::ifstream hostfile(folder / "shf"), rankfile(folder / "rf");
  const auto hosts = hosts_of(read_text(folder / "ours.3.out"));
  const std::string verbose = read_text(folder / "ours.3.out");
  static const std::regex entry(R"(rank (\d+)=(\S+) slot=(\d+))");
  std::string host, line;
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_TRUE(std::getline(hostfile, host)) << read_text(folder / "shf");
    ASSERT_TRUE(std::getline(rankfile, line)) << read_text(folder / "rf");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, entry)) << line;
    EXPECT_EQ(std::stoi(m[1]), r);
    EXPECT_EQ(m[2], host) << "rank " << r;
    EXPECT_EQ(hosts.at(r), host) << "rank " << r;
    // "cpu-bind=MAP  - host1, task  3  1 [1234]: mask 0x2 set"
    char mask[32];
    std::snprintf(mask, sizeof mask, "0x%llx", 1ull << std::stoi(m[3]));
    const std::regex bound("cpu-bind=MAP +- " + host + ", task +" + std::to_string(r) + " +\\d+ \\[\\d+\\]: mask " +
                           mask + " set");
    EXPECT_TRUE(std::regex_search(verbose, bound)) << "rank " << r << " not bound to core " << m[3] << ":\n" << verbose;
  }

  const uint64_t block = crossing_per_reduce(folder, "default");
  const uint64_t cyclic = crossing_per_reduce(folder, "cyclic");
  const uint64_t ours = crossing_per_reduce(folder, "ours");
  std::printf(
      "binary-tree reduce of 256 KiB, %d Slurm nodes x %d: bytes crossing nodes per reduce: Slurm's default "
      "(block) %llu, --distribution=cyclic %llu, mpimon place %llu\n",
      kNodes, kPerNode, static_cast<unsigned long long>(block), static_cast<unsigned long long>(cyclic),
      static_cast<unsigned long long>(ours));
  // The tree's 7 edges carry the same bytes; 2 ranks per node keep at most 3 of them
  // inside a node (a maximum matching of the tree), which round-robin happens to reach too.
  EXPECT_LT(ours, block) << run.output;
  EXPECT_LE(ours, cyclic) << run.output;
  EXPECT_EQ(ours, 4u * 262144) << run.output;
}
