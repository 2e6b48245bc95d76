// The Slurm mode of EmulatedCluster (cluster.h): what a test needs beyond the hostfile
// mode - the ordinary user's folders and commands. The daemons are cluster.sh's (slurm.sh).
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "cluster.h"

namespace mpimon::test {

namespace fs = std::filesystem;

namespace {

const std::string kScript = MPIMON_CLUSTER_SCRIPT;

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string EmulatedCluster::slurm_unavailable_reason() {
  static const std::string reason = [] {
    if (std::string why = unavailable_reason(); !why.empty()) return why;
    const JobResult r = run_shell(fs::temp_directory_path(), shell_quote(kScript) + " slurm-check");
    if (r.exit_code == 0) return std::string();
    const std::string text = trimmed(r.output);
    return text.empty() ? "cluster.sh slurm-check failed (exit " + std::to_string(r.exit_code) + ")" : text;
  }();
  return reason;
}

fs::path EmulatedCluster::new_user_folder() const {
  if (!slurm_) throw std::logic_error("new_user_folder: cluster " + name_ + " runs no Slurm");
  const fs::path folder = new_test_folder();
  const passwd* user = ::getpwnam(user_name().c_str());  // made by `cluster.sh slurm`
  if (user == nullptr) throw std::runtime_error("no user " + user_name());
  if (::chown(folder.c_str(), user->pw_uid, user->pw_gid) != 0)
    throw std::runtime_error("chown " + folder.string() + " failed");
  return folder;
}

JobResult EmulatedCluster::run_as_user(const fs::path& folder, const std::string& command, int timeout_seconds) const {
  if (!slurm_) throw std::logic_error("run_as_user: cluster " + name_ + " runs no Slurm");
  JobResult result =
      run_shell(folder, "timeout -k 10 " + std::to_string(timeout_seconds) + " " + shell_quote(kScript) + " as-user " +
                            name_ + " " + shell_quote(folder.string()) + " " + shell_quote(command));
  return result;
}

std::vector<std::string> EmulatedCluster::slurm_job_ids() const {
  const JobResult r = run_as_user(new_user_folder(), "scontrol show jobs --oneliner");
  if (r.exit_code != 0) throw std::runtime_error("scontrol show jobs failed: " + r.output);
  std::vector<std::string> ids;
  const std::regex job_id("(^|\\n)JobId=([0-9]+) ");
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), job_id); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[2]);
  std::sort(ids.begin(), ids.end(),
            [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
  return ids;
}

}  // namespace mpimon::test
