#include "launcher.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "component_selection.h"
#include "open_mpi_settings.h"

namespace mpimon::tools {

std::string plugin_directory() {
  if (const char* dir = std::getenv("MPIMON_PLUGIN_DIR"); dir != nullptr && *dir != '\0') return dir;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "lib/mpimon";
  return (exe.parent_path().parent_path() / "lib" / "mpimon").string();
}

std::string exec_mpirun(const std::vector<std::string>& arguments) {
  const std::string plugins = plugin_directory();
  if (!std::filesystem::exists(std::filesystem::path(plugins) / "mca_pml_mpimon.so"))
    return plugins + ": no mca_pml_mpimon.so there (set MPIMON_PLUGIN_DIR or build the project)";
  for (const auto& [name, value] : job_environment(plugins, open_mpi_setting)) ::setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> argv;
  std::string program = MPIRUN_EXECUTABLE;
  argv.push_back(program.data());
  std::vector<std::string> merged = merge_selection_arguments(arguments);
  for (std::string& a : merged) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  return program + ": cannot run: " + std::strerror(errno);
}

std::vector<std::string> srun_arguments(const std::vector<std::string>& arguments) {
  for (const std::string& a : arguments) {
    if (a == "--") break;  // the program's own arguments from here on
    if (a == "--mpi" || a.rfind("--mpi=", 0) == 0) return arguments;
  }
  std::vector<std::string> all{"--mpi=pmix"};
  all.insert(all.end(), arguments.begin(), arguments.end());
  return all;
}

std::string exec_srun(const std::vector<std::string>& arguments) {
  const std::string plugins = plugin_directory();
  if (!std::filesystem::exists(std::filesystem::path(plugins) / "mca_pml_mpimon.so"))
    return plugins + ": no mca_pml_mpimon.so there (set MPIMON_PLUGIN_DIR or build the project)";
  // srun passes its whole environment to every task (--export=ALL, its default).
  for (const auto& [name, value] : job_environment(plugins, open_mpi_setting)) ::setenv(name.c_str(), value.c_str(), 1);
  std::vector<std::string> all = srun_arguments(arguments);
  std::vector<char*> argv;
  std::string program = "srun";
  argv.push_back(program.data());
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(program.c_str(), argv.data());
  return program + ": cannot run: " + std::strerror(errno) + " (Slurm's client commands, package slurm-client)";
}

}  // namespace mpimon::tools
