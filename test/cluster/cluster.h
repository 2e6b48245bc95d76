// Several emulated hosts on this machine, for tests of what crosses a network.
//
// An EmulatedCluster is a set of network namespaces (test/cluster/cluster.sh): a launcher
// host where mpirun runs, and hosts 1..N, each with its own address (10.200.0.1<n>, on a
// subnet that exists only inside the cluster), its own hostname (host<n>, what
// MPI_Get_processor_name returns) and, on request, its own view of some folders. Ranks on
// different hosts talk over TCP, ranks on one host over shared memory, as on a cluster.
// mpirun reaches the hosts through an rsh agent that starts each remote daemon from a
// clean environment, as sshd does: what reaches a host is what mpirun puts on the
// daemon's command line (--mca and -x values, OMPI_MCA_* variables of mpirun's own
// environment).
//
// Lifetime: the constructor first removes clusters left by killed earlier runs (their
// creator process is gone), then creates this one under a name unique to this process
// and object; the destructor kills whatever still runs inside and removes every
// namespace, also when an assertion failed. SIGINT, SIGTERM and SIGHUP remove live
// clusters before the process dies; a SIGKILL (ctest's timeout) leaves them to the next
// run's clean-up and to the `cluster_reap` ctest fixture.
//
// Needs root (network, UTS and mount namespaces), iproute2 and util-linux. Start every
// test with MPIMON_REQUIRE_CLUSTER(): it skips with the reason where clusters cannot be
// emulated.
//
//   TEST(MyFeature, AcrossTwoHosts4Ranks) {
//     MPIMON_REQUIRE_CLUSTER();
//     EmulatedCluster cluster(2, /*slots per host=*/2);              // host1, host2
//     JobResult job = cluster.run_job(4, concat_arguments(monitoring_arguments(), {MPIMON_EXAMPLE, "ring"}));
//     ASSERT_EQ(job.exit_code, 0) << job.output;                     // ranks 0,1 on host1; 2,3 on host2
//     // job.folder: the job's working directory (dumps, job file), shared by all hosts
//   }
//
//   // A host that lacks a folder, or sees another folder's content in its place:
//   EmulatedCluster mixed({EmulatedHost(2), EmulatedHost(2).hide(MPIMON_PLUGIN_DIR)});
//   EmulatedCluster other({EmulatedHost(2), EmulatedHost(2).replace(MPIMON_PLUGIN_DIR, other_build)});
//
// A network with costs (cluster.sh's MPIMON_HOSTS_NET syntax): every host's link to the
// bridge gets a one-way delay and a rate, on both ends. By default a cluster takes
// MPIMON_HOSTS_NET from the environment (so `MPIMON_HOSTS_NET="rate=1gbit" ctest ...`
// runs every cluster test over that network); a test that needs one passes it:
//
//   MPIMON_REQUIRE_CLUSTER_NETWORK("rate=100mbit");                // skips where tc cannot
//   EmulatedCluster slow(2, 1, "rate=100mbit");
//   EmulatedCluster free_network(2, 1, "");                        // whatever the environment says
//
// One-sided communication across hosts: Open MPI 4.1.4's default OSC choice (rdma) fails
// MPI_Win_create over TCP (MPI_ERR_WIN, also without any monitoring), and so does 5.0's
// (ucx); osc_across_hosts() names the component that works (pt2pt on 4.1, rdma on 5.0):
// pass `--mca osc <it>,mpimon` (keep ours in an include list, or it is never opened), or,
// where a host may lack our plugin folder, osc_across_hosts_exclusion().
//
// Costs: creating a cluster takes about a second; a job over 2 hosts about 1.5 s. Hosts
// share this machine's cores: with more ranks than cores, run_job adds
// `--mca mpi_yield_when_idle 1` (without it Open MPI busy-polls and jobs crawl). Timing
// comparisons between emulated hosts measure TCP over veth against shared memory, nothing
// more: never assert timings.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpi_job.h"

namespace mpimon::test {

struct EmulatedHost {
  explicit EmulatedHost(int slots = 2) : slots(slots) {}
  // This host sees `folder` empty (a host lacking our plugin folder).
  EmulatedHost& hide(const std::string& folder) {
    hidden_folders.push_back(folder);
    return *this;
  }
  // This host sees the content of `replacement` at `folder`'s path (a host with another
  // version of our plugins installed at the same path).
  EmulatedHost& replace(const std::string& folder, const std::string& replacement) {
    replaced_folders.emplace_back(folder, replacement);
    return *this;
  }

  int slots;  // the hostfile's slots=
  std::vector<std::string> hidden_folders;
  std::vector<std::pair<std::string, std::string>> replaced_folders;  // {folder, replacement}
};

// The Slurm mode (slurm.sh, docs/slurm.md): a real Slurm over the hosts - slurmctld on
// the launcher, one slurmd per host (node name host<n>, CPUs = the host's slots), munge -
// and an ordinary user, mpimon-user, who submits the jobs (run_as_user). Hosts keep what
// they hide or replace: slurmd starts inside each host's mount namespace, so its job
// steps see the same folders. Up in about half a second.
//
//   TEST(MySlurm, Sbatch) {
//     MPIMON_REQUIRE_SLURM();
//     EmulatedCluster cluster({EmulatedHost(2), EmulatedHost(2)}, SlurmOptions{});
//     const auto folder = cluster.new_user_folder();                 // owned by mpimon-user
//     JobResult job = cluster.run_as_user(folder, "sbatch --wait -N2 --ntasks-per-node=2 job.sh");
//   }
struct SlurmOptions {
  int kill_wait_seconds = 30;  // KillWait: SIGTERM to SIGKILL after scancel or the time limit
};

// Options of one job; the defaults fit most tests.
struct ClusterJobOptions {
  Components components = Components::ours;  // ours: our plugin folder first in the component path
  int timeout_seconds = 120;                 // then mpirun is stopped: exit_code 124 (a hang)
  std::string hostfile = "hostfile";         // written into the job folder (relative: to it)
};

class EmulatedCluster {
 public:
  // Why hosts cannot be emulated on this machine (not root, no `ip`...), or "" if they can.
  static std::string unavailable_reason();

  // Why `network` (e.g. "delay=50us rate=1gbit") cannot be emulated here (the kernel lacks
  // netem or tbf, no tc), or "" if it can; a spec with bad text throws.
  static std::string network_unavailable_reason(const std::string& network);

  // Hosts 1..hosts.size(), described in order. `network`: the links' delay and rate;
  // nullopt: MPIMON_HOSTS_NET of the environment; "": a free network.
  explicit EmulatedCluster(const std::vector<EmulatedHost>& hosts,
                           const std::optional<std::string>& network = std::nullopt);
  // The same hosts running Slurm (see SlurmOptions above).
  EmulatedCluster(const std::vector<EmulatedHost>& hosts, const SlurmOptions& slurm,
                  const std::optional<std::string>& network = std::nullopt);
  // `hosts` identical hosts with `slots_per_host` slots each.
  EmulatedCluster(int hosts, int slots_per_host, const std::optional<std::string>& network = std::nullopt);
  ~EmulatedCluster();
  EmulatedCluster(const EmulatedCluster&) = delete;
  EmulatedCluster& operator=(const EmulatedCluster&) = delete;

  int host_count() const { return static_cast<int>(hosts_.size()); }
  // Host n (1-based), as the hostfile and rankfiles name it: its address, e.g.
  // "10.200.0.11".
  std::string address(int host) const;
  // Its hostname, e.g. "host1": what MPI_Get_processor_name returns there.
  std::string hostname(int host) const;
  // How the hostfile names it, and Open MPI in the job's node list (PMIx), hence in our
  // messages: its address on 4.1; its hostname on 5.0, whose PRRTE names hosts by what
  // their daemons report and matches rankfiles against those names only (a rankfile naming
  // a host by address is refused there, also when the hostfile did).
  std::string node_name(int host) const { return open_mpi_4_1() ? address(host) : hostname(host); }
  // "10.200.0.11 slots=2\n10.200.0.12 slots=2\n..." (mpirun's hostfile syntax; node_name()s).
  std::string hostfile_text() const;
  // The mpirun arguments that launch over these hosts (agent, interfaces, BTLs); run_job
  // adds them, with --hostfile.
  std::vector<std::string> launch_arguments() const;

  // mpirun -np <ranks> over the hosts, in a new folder: writes the hostfile there, runs
  // `mpirun --hostfile <hostfile> -np <ranks> <launch arguments> [--mca
  // mpi_yield_when_idle 1] <arguments...>` on the launcher host. Ranks are placed by slot
  // (ranks 0..slots-1 on host1, ...) unless the arguments say otherwise (e.g. --rankfile).
  JobResult run_job(int ranks, const std::vector<std::string>& arguments, const ClusterJobOptions& options = {}) const;
  // The same in an existing folder (e.g. to rerun with a rankfile written there).
  JobResult run_job_in(const std::filesystem::path& folder, int ranks, const std::vector<std::string>& arguments,
                       const ClusterJobOptions& options = {}) const;
  // Any shell command on the launcher host, in `folder` (stdout and stderr together).
  JobResult run_on_launcher(const std::filesystem::path& folder, const std::string& command,
                            int timeout_seconds = 120) const;

  // The queueing disciplines on both ends of host `host`'s link (0: the launcher's), as
  // `tc qdisc show` prints them: "host 1 sends: qdisc tbf ...\nhost 1 receives: ...".
  std::string network_of(int host) const;

  const std::string& name() const { return name_; }

  // Slurm mode only (slurm_cluster.cpp).
  // Why Slurm cannot run over emulated hosts here (hosts cannot be emulated, a package is
  // missing), or "" if it can.
  static std::string slurm_unavailable_reason();
  // The ordinary user Slurm jobs are submitted by.
  static std::string user_name() { return "mpimon-user"; }
  // A new test folder owned by that user (a job's working directory).
  std::filesystem::path new_user_folder() const;
  // A shell command as that user on the launcher host (a login node), in `folder`, with a
  // login-like environment (HOME, USER, PATH, SLURM_CONF); stdout and stderr together.
  // After `timeout_seconds` the command is stopped (exit code 124).
  JobResult run_as_user(const std::filesystem::path& folder, const std::string& command,
                        int timeout_seconds = 120) const;
  // The ids of the jobs Slurm knows (running, and ended in the last 5 minutes), oldest first.
  std::vector<std::string> slurm_job_ids() const;

 private:
  void create(const std::optional<std::string>& network, const std::optional<SlurmOptions>& slurm);

  std::string name_;
  std::vector<EmulatedHost> hosts_;
  bool slurm_ = false;
};

// The osc component that creates windows between emulated hosts (see the top of this
// file): pt2pt on 4.1; 5.0 removed it, and its rdma works over the TCP BTL there.
inline std::string osc_across_hosts() { return open_mpi_4_1() ? "pt2pt" : "rdma"; }
// The exclusion list that leaves it (and ours) chosen, Open MPI's own monitoring excluded.
// For jobs where a host may lack our plugin folder: an include list naming ours fails the
// job there (Open MPI's "A requested component was not found", before our code runs).
inline std::string osc_across_hosts_exclusion() { return open_mpi_4_1() ? "^rdma,monitoring" : "^ucx,monitoring"; }

}  // namespace mpimon::test

// Skips the current test, with the reason, where hosts cannot be emulated.
#define MPIMON_REQUIRE_CLUSTER()                                                                     \
  do {                                                                                               \
    if (const std::string why = ::mpimon::test::EmulatedCluster::unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "emulated hosts unavailable: " << why;                                         \
  } while (0)

// Skips the current test, with the reason, where Slurm cannot run over emulated hosts.
#define MPIMON_REQUIRE_SLURM()                                                                             \
  do {                                                                                                     \
    if (const std::string why = ::mpimon::test::EmulatedCluster::slurm_unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "Slurm over emulated hosts unavailable: " << why;                                    \
  } while (0)

// Skips the current test, with the reason, where this network cannot be emulated.
#define MPIMON_REQUIRE_CLUSTER_NETWORK(network)                                                                     \
  do {                                                                                                              \
    if (const std::string why = ::mpimon::test::EmulatedCluster::network_unavailable_reason(network); !why.empty()) \
      GTEST_SKIP() << "network '" << (network) << "' unavailable: " << why;                                         \
  } while (0)
