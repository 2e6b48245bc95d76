#include "open_mpi_settings.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mpimon::tools {

namespace {

constexpr const char* kPrefix = "OMPI_MCA_";

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::optional<std::string> environment_value(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string default_parameter_files() {
  std::string files = environment_value("HOME").value_or("") + "/.openmpi/mca-params.conf";
  // Empty when ompi_info did not say at configure time (cmake/OpenMPI.cmake warned then).
  const std::string sysconfdir = MPIMON_OMPI_SYSCONFDIR;
  if (!sysconfdir.empty()) files += "," + sysconfdir + "/openmpi-mca-params.conf";
  return files;
}

}  // namespace

std::optional<std::string> parameter_file_value(const std::string& text, const std::string& name) {
  std::optional<std::string> value;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line = trimmed(line.substr(0, line.find('#')));
    const size_t equals = line.find('=');
    if (equals == std::string::npos || trimmed(line.substr(0, equals)) != name) continue;
    value = trimmed(line.substr(equals + 1));
  }
  return value;
}

std::optional<std::string> open_mpi_setting(const std::string& variable) {
  if (std::optional<std::string> value = environment_value(variable)) return value;
  if (variable.rfind(kPrefix, 0) != 0) return std::nullopt;
  const std::string name = variable.substr(std::string(kPrefix).size());
  std::istringstream files(
      environment_value(std::string(kPrefix) + "mca_base_param_files").value_or(default_parameter_files()));
  for (std::string file; std::getline(files, file, ',');) {
    std::ifstream in(trimmed(file));
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    if (std::optional<std::string> value = parameter_file_value(text.str(), name)) return value;
  }
  return std::nullopt;
}

}  // namespace mpimon::tools
