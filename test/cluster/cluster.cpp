#include "cluster.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace mpimon::test {

namespace fs = std::filesystem;

namespace {

const std::string kScript = MPIMON_CLUSTER_SCRIPT;

// Live clusters, for the signal handler: fixed slots of preformatted names (the handler
// may only fork, exec and wait).
constexpr int kMaxLive = 16;
char live_names[kMaxLive][128];
std::atomic<bool> live_used[kMaxLive];
std::mutex live_mutex;

void remove_live_clusters(int signal_number) {
  for (int i = 0; i < kMaxLive; ++i) {
    if (!live_used[i].load()) continue;
    const pid_t child = ::fork();
    if (child == 0) {
      char* argv[] = {const_cast<char*>(kScript.c_str()), const_cast<char*>("down"), live_names[i], nullptr};
      ::execv(kScript.c_str(), argv);
      ::_exit(127);
    }
    if (child > 0) ::waitpid(child, nullptr, 0);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

int remember_live(const std::string& name) {
  std::lock_guard<std::mutex> lock(live_mutex);
  static bool handlers_installed = [] {
    for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, remove_live_clusters);
    return true;
  }();
  (void)handlers_installed;
  for (int i = 0; i < kMaxLive; ++i) {
    if (live_used[i].load()) continue;
    std::snprintf(live_names[i], sizeof live_names[i], "%s", name.c_str());
    live_used[i].store(true);
    return i;
  }
  return -1;
}

void forget_live(const std::string& name) {
  std::lock_guard<std::mutex> lock(live_mutex);
  for (int i = 0; i < kMaxLive; ++i)
    if (live_used[i].load() && name == live_names[i]) live_used[i].store(false);
}

// Runs the cluster script (after environment assignments); throws with its output if it fails.
std::string script_with(const std::string& environment, const std::string& arguments) {
  const JobResult r = run_shell(fs::temp_directory_path(), environment + shell_quote(kScript) + " " + arguments);
  if (r.exit_code != 0) throw std::runtime_error(kScript + " " + arguments + " failed: " + r.output);
  return r.output;
}

std::string script(const std::string& arguments) { return script_with("", arguments); }

std::string new_cluster_name(const std::string& tag) {
  static std::atomic<int> sequence{0};
  std::string owner = script("owner " + std::to_string(::getpid()));
  while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
  return "mpimon-cl-" + owner + "-" + tag + std::to_string(sequence++);
}

}  // namespace

std::string EmulatedCluster::unavailable_reason() {
  static const std::string reason = [] {
    const JobResult r = run_shell(fs::temp_directory_path(), shell_quote(kScript) + " check");
    std::string text = r.exit_code == 0 ? "" : r.output;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (r.exit_code != 0 && text.empty()) text = "cluster.sh check failed (exit " + std::to_string(r.exit_code) + ")";
    return text;
  }();
  return reason;
}

std::string EmulatedCluster::network_unavailable_reason(const std::string& network) {
  const JobResult r = run_shell(fs::temp_directory_path(), shell_quote(kScript) + " net-check " + shell_quote(network));
  if (r.exit_code == 2) throw std::invalid_argument(r.output);
  std::string text = r.exit_code == 0 ? "" : r.output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

EmulatedCluster::EmulatedCluster(int hosts, int slots_per_host, const std::optional<std::string>& network)
    : EmulatedCluster(std::vector<EmulatedHost>(hosts, EmulatedHost(slots_per_host)), network) {}

EmulatedCluster::EmulatedCluster(const std::vector<EmulatedHost>& hosts, const std::optional<std::string>& network)
    : hosts_(hosts) {
  create(network, std::nullopt);
}

EmulatedCluster::EmulatedCluster(const std::vector<EmulatedHost>& hosts, const SlurmOptions& slurm,
                                 const std::optional<std::string>& network)
    : hosts_(hosts), slurm_(true) {
  create(network, slurm);
}

void EmulatedCluster::create(const std::optional<std::string>& network, const std::optional<SlurmOptions>& slurm) {
  if (hosts_.empty()) throw std::invalid_argument("an emulated cluster needs at least one host");
  script("reap");  // namespaces left by killed earlier runs
  name_ = new_cluster_name(slurm ? "slurm" : "t");
  remember_live(name_);
  try {
    const std::string environment = network ? "MPIMON_HOSTS_NET=" + shell_quote(*network) + " " : "";
    script_with(environment, "up " + name_ + " " + std::to_string(hosts_.size()));
    for (int n = 1; n <= host_count(); ++n) {
      for (const std::string& folder : hosts_[n - 1].hidden_folders)
        script("hide " + name_ + " " + std::to_string(n) + " " + shell_quote(folder));
      for (const auto& [folder, replacement] : hosts_[n - 1].replaced_folders)
        script("bind " + name_ + " " + std::to_string(n) + " " + shell_quote(replacement) + " " + shell_quote(folder));
    }
    if (slurm) {  // after the hosts' folders: each slurmd starts inside its host's view
      std::string cpus;
      for (const EmulatedHost& host : hosts_) cpus += " " + std::to_string(host.slots);
      script_with("MPIMON_SLURM_KILLWAIT=" + std::to_string(slurm->kill_wait_seconds) + " ", "slurm " + name_ + cpus);
    }
  } catch (...) {
    run_shell(fs::temp_directory_path(), shell_quote(kScript) + " down " + name_);
    forget_live(name_);
    throw;
  }
}

EmulatedCluster::~EmulatedCluster() {
  run_shell(fs::temp_directory_path(), shell_quote(kScript) + " down " + name_);
  forget_live(name_);
}

std::string EmulatedCluster::address(int host) const {
  if (host < 1 || host > host_count()) throw std::out_of_range("no host " + std::to_string(host));
  return "10.200.0." + std::to_string(10 + host);
}

std::string EmulatedCluster::hostname(int host) const {
  if (host < 1 || host > host_count()) throw std::out_of_range("no host " + std::to_string(host));
  return "host" + std::to_string(host);
}

std::string EmulatedCluster::network_of(int host) const {
  if (host < 0 || host > host_count()) throw std::out_of_range("no host " + std::to_string(host));
  return script("net-show " + name_ + " " + std::to_string(host));
}

std::string EmulatedCluster::hostfile_text() const {
  std::string text;
  for (int n = 1; n <= host_count(); ++n) text += node_name(n) + " slots=" + std::to_string(hosts_[n - 1].slots) + "\n";
  return text;
}

std::vector<std::string> EmulatedCluster::launch_arguments() const {
  const std::string agent = kScript + " agent " + name_;
  const std::string subnet = "10.200.0.0/24";
  // The launcher's options: 4.1's ORTE reads them as MCA variables, 5.0's PRRTE as its
  // own (--prtemca, ssh instead of rsh); cluster.sh mpirun-args says the same for scripts.
  std::vector<std::string> launcher;
  if (open_mpi_4_1())
    launcher = {"--mca", "plm_rsh_agent", agent, "--mca", "oob_tcp_if_include", subnet};
  else
    launcher = {"--prtemca", "plm_ssh_agent", agent, "--prtemca", "oob_tcp_if_include", subnet};
  const std::string shared_memory = open_mpi_4_1() ? "vader" : "sm";
  return concat_arguments(launcher,
                          {"--mca", "btl_tcp_if_include", subnet, "--mca", "btl", "self," + shared_memory + ",tcp"});
}

JobResult EmulatedCluster::run_job(int ranks, const std::vector<std::string>& arguments,
                                   const ClusterJobOptions& options) const {
  return run_job_in(new_test_folder(), ranks, arguments, options);
}

JobResult EmulatedCluster::run_job_in(const fs::path& folder, int ranks, const std::vector<std::string>& arguments,
                                      const ClusterJobOptions& options) const {
  std::ofstream(folder / options.hostfile) << hostfile_text();
  std::vector<std::string> all = {"--hostfile", options.hostfile, "-np", std::to_string(ranks)};
  all = concat_arguments(all, launch_arguments());
  // The hosts share this machine's cores: busy-polling ranks would starve each other.
  if (ranks > static_cast<int>(std::thread::hardware_concurrency()))
    all = concat_arguments(all, {"--mca", "mpi_yield_when_idle", "1"});
  all = concat_arguments(all, arguments);
  std::string command = component_environment(options.components);
  // By slot, as the hostfile's slots say. 5.0's PRRTE maps by core once a policy names
  // only :oversubscribe (what run_shell sets for one host), and then fills host1 with
  // every rank; 4.1 fills the hosts in order by default.
  if (!open_mpi_4_1()) command += " PRTE_MCA_rmaps_default_mapping_policy=slot:oversubscribe";
  command += " " MPIRUN_EXECUTABLE;
  for (const std::string& a : all) command += " " + shell_quote(a);
  return run_on_launcher(folder, command, options.timeout_seconds);
}

JobResult EmulatedCluster::run_on_launcher(const fs::path& folder, const std::string& command,
                                           int timeout_seconds) const {
  // timeout signals the command itself (the namespace tools exec into it); whatever it
  // leaves behind on the hosts is killed by the destructor.
  return run_shell(folder, "timeout -k 10 " + std::to_string(timeout_seconds) + " " + shell_quote(kScript) + " run " +
                               name_ + " sh -c " + shell_quote(command));
}

}  // namespace mpimon::test
