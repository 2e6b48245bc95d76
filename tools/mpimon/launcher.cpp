#include "launcher.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace mpimon::tools {

std::string plugin_directory() {
  if (const char* dir = std::getenv("MPIMON_PLUGIN_DIR"); dir != nullptr && *dir != '\0') return dir;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "lib/mpimon";
  return (exe.parent_path().parent_path() / "lib" / "mpimon").string();
}

std::string component_path(const std::string& plugins) { return plugins + ":SYS_DEFAULT:USER_DEFAULT"; }

std::string exec_mpirun(const std::vector<std::string>& arguments) {
  const std::string plugins = plugin_directory();
  if (!std::filesystem::exists(std::filesystem::path(plugins) / "mca_pml_monitoring.so"))
    return plugins + ": no mca_pml_monitoring.so there (set MPIMON_PLUGIN_DIR or build the project)";
  ::setenv("OMPI_MCA_mca_base_component_path", component_path(plugins).c_str(), 1);
  std::vector<char*> argv;
  std::string program = MPIRUN_EXECUTABLE;
  argv.push_back(program.data());
  std::vector<std::string> copy = arguments;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  return program + ": cannot run: " + std::strerror(errno);
}

}  // namespace mpimon::tools
