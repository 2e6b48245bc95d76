#include "mpi_job.h"
#include "readers/prof_reader.h"

#include "component_selection.h"
#include "open_mpi_settings.h"

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mpimon::test {

namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

fs::path new_test_folder() {
  std::string pattern = (fs::temp_directory_path() / "mpimon-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

JobResult run_job(int ranks, const std::vector<std::string>& arguments, Components components) {
  return run_job_in(new_test_folder(), ranks, arguments, components);
}

std::vector<std::string> concat_arguments(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string shell_quote(const std::string& s) { return quote(s); }

std::string sanitizer_environment() {
  const std::string runtime = MPIMON_SANITIZER_PRELOAD;
  return runtime.empty() ? "" : "LD_PRELOAD=" + runtime + " " MPIMON_SANITIZER_ENV " ";
}

namespace {

// Sanitizer builds: the runtime first in every rank's LD_PRELOAD (our plugins are
// instrumented; the application, or a library the test preloads, may not be).
std::vector<std::string> with_sanitizer_runtime(std::vector<std::string> arguments) {
  const std::string runtime = MPIMON_SANITIZER_PRELOAD;
  if (runtime.empty()) return arguments;
  const std::string key = "LD_PRELOAD=";
  bool preloaded = false;
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {
    if (arguments[i] == "-x" && arguments[i + 1].rfind(key, 0) == 0) {
      arguments[i + 1] = key + runtime + ":" + arguments[i + 1].substr(key.size());
      preloaded = true;
    }
  }
  if (!preloaded) arguments.insert(arguments.begin(), {"-x", key + runtime});
  return arguments;
}

}  // namespace

JobResult run_job_in(const fs::path& folder, int ranks, const std::vector<std::string>& arguments,
                     Components components) {
  return run_shell(folder, mpirun_command(ranks, arguments, components));
}

std::string mpirun_command(int ranks, const std::vector<std::string>& arguments, Components components) {
  // Sanitizer builds: the runtime's options, inherited by the ranks.
  std::string command = component_environment(components) + " " MPIMON_SANITIZER_ENV;
  command += " " MPIRUN_EXECUTABLE " -np " + std::to_string(ranks);
  for (const std::string& a : with_sanitizer_runtime(arguments)) command += " " + quote(a);
  return command;
}

std::string component_environment(Components components) {
  // Ours: what `mpimon run` sets (our plugin folder, Open MPI's own monitoring excluded;
  // component_selection.h). Distro: Open MPI's defaults, where its own monitoring
  // components are found. Both: what this Open MPI series needs on these machines.
  // (env's options first, then its assignments.)
  if (components == Components::distro)
    return "env -u OMPI_MCA_mca_base_component_path -u OMPI_MCA_pml -u OMPI_MCA_coll -u "
           "OMPI_MCA_osc " MPIMON_SERIES_MCA_ENVIRONMENT;
  std::string environment = "env " MPIMON_SERIES_MCA_ENVIRONMENT;
  // Open MPI's own parameter files are merged as `mpimon run` merges them (Debian's excludes UCX).
  for (const auto& [name, value] : tools::job_environment(MPIMON_PLUGIN_DIR, tools::open_mpi_setting))
    environment += " " + name + "=" + quote(value);
  return environment;
}

JobResult run_shell(const fs::path& folder, const std::string& command) {
  JobResult result;
  result.folder = folder;
  // What Open MPI needs on these machines: running as root, more ranks than cores (4.1's
  // ORTE and 5.0's PRRTE name it differently). Sanitizer builds: the runtime's options for
  // whatever the command starts (mpirun through mpimon run, say: its ranks inherit them).
  const std::string environment =
      "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
      "PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe " MPIMON_SANITIZER_ENV "; ";
  FILE* pipe = ::popen((environment + "cd " + quote(folder.string()) + " && " + command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::vector<std::string> binary_tree_reduce_arguments() {
  std::vector<std::string> arguments = {"--mca", "coll_tuned_use_dynamic_rules", "1",
                                        "--mca", "coll_tuned_reduce_algorithm",  "4"};
  // 5.0's coll/han (priority 35, above tuned's 30) serves communicators that span hosts
  // with its own hierarchical algorithms; a negative priority makes it step aside.
  if (!open_mpi_4_1()) arguments = concat_arguments(arguments, {"--mca", "coll_han_priority", "-1"});
  return arguments;
}

std::vector<std::string> monitoring_arguments(int level) {
  return {"--mca", "pml_monitoring_enable",        std::to_string(level),
          "--mca", "pml_monitoring_enable_output", "3",
          "--mca", "pml_monitoring_filename",      "prof"};
}

std::vector<ProfLine> read_lines(const fs::path& folder, int ranks, const std::string& prefix) {
  std::vector<ProfLine> lines;
  for (int r = 0; r < ranks; ++r) {
    const ProfFile file = read_prof_file((folder / (prefix + "." + std::to_string(r) + ".prof")).string());
    lines.insert(lines.end(), file.lines.begin(), file.lines.end());
  }
  return lines;
}

Edges read_edges(const fs::path& folder, const std::string& kinds, const std::string& prefix) {
  Edges edges;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix + ".", 0) != 0 || name.size() < 5 || name.substr(name.size() - 5) != ".prof") continue;
    for (const ProfLine& l : read_prof_file(entry.path().string()).lines) {
      if (kinds.find(l.kind) == std::string::npos) continue;
      edges[{l.kind, l.me, l.peer}] = {l.bytes, l.messages};
    }
  }
  return edges;
}

std::vector<fs::path> site_logs_under(const fs::path& root) {
  std::vector<fs::path> logs;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (fs::is_regular_file(entry.symlink_status()) && entry.path().extension() == ".mpimon")
      logs.push_back(entry.path());
  return logs;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_every_rank_ok(const JobResult& job, int ranks, const std::string& mode) {
  ASSERT_EQ(job.exit_code, 0) << job.output;
  for (int r = 0; r < ranks; ++r)
    EXPECT_NE(job.output.find("rank " + std::to_string(r) + ": OK " + mode), std::string::npos) << job.output;
}

std::optional<JobResult> run_on_full_disk(const std::string& command, int free_pages) {
  const fs::path folder = new_test_folder();
  if (run_shell(folder, "unshare -m true").exit_code != 0) return std::nullopt;
  std::string script =
      "mkdir -p full after && mount -t tmpfs -o size=512k tmpfs full || exit 97\n"
      "dd if=/dev/zero of=full/filler bs=4k >/dev/null 2>&1\n";
  if (free_pages > 0) script += "truncate -s -" + std::to_string(4096 * free_pages) + " full/filler\n";
  script += command + "\necho \"exit code: $?\"\nrm -f full/filler\ncp -a full/. after/\n";
  JobResult job = run_shell(folder, "unshare -m sh -c " + shell_quote(script));
  if (job.exit_code == 97) return std::nullopt;
  return job;
}

}  // namespace mpimon::test
