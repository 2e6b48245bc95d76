#include "launcher.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "runtime/component_version.h"  // MPIMON_COMPONENT_NAME

namespace mpimon::tools {

namespace {

// The frameworks whose selection must name our component for it to take part: io (the
// PML joins by its own open, which adds itself to the PML list).
const std::vector<std::string> kSelectedFrameworks = {"io"};

}  // namespace

std::string merged_selection(const std::string& value) {
  if (value.empty() || value.front() == '^') return value;  // exclusions never name ours unless meant
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = std::min(value.find(',', start), value.size());
    if (value.compare(start, comma - start, MPIMON_COMPONENT_NAME) == 0) return value;
    start = comma + 1;
  }
  return std::string(MPIMON_COMPONENT_NAME) + "," + value;
}

std::vector<std::string> merge_selections(std::vector<std::string> arguments,
                                          const std::vector<std::string>& frameworks) {
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {
    const std::string& option = arguments[i];
    if ((option == "--mca" || option == "-mca" || option == "--gmca" || option == "-gmca") &&
        i + 2 < arguments.size()) {
      for (const std::string& f : frameworks)
        if (arguments[i + 1] == f) arguments[i + 2] = merged_selection(arguments[i + 2]);
      i += 2;
    } else if (option == "-x") {
      std::string& assignment = arguments[i + 1];
      for (const std::string& f : frameworks) {
        const std::string key = "OMPI_MCA_" + f + "=";
        if (assignment.rfind(key, 0) == 0) assignment = key + merged_selection(assignment.substr(key.size()));
      }
      ++i;
    }
  }
  return arguments;
}

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
  for (const std::string& f : kSelectedFrameworks) {
    const std::string variable = "OMPI_MCA_" + f;
    if (const char* value = std::getenv(variable.c_str()); value != nullptr)
      ::setenv(variable.c_str(), merged_selection(value).c_str(), 1);
  }
  std::vector<char*> argv;
  std::string program = MPIRUN_EXECUTABLE;
  argv.push_back(program.data());
  std::vector<std::string> copy = merge_selections(arguments, kSelectedFrameworks);
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  return program + ": cannot run: " + std::strerror(errno);
}

}  // namespace mpimon::tools
