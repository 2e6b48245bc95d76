#include "component_selection.h"

#include <algorithm>
#include <sstream>

namespace mpimon::tools {

namespace {

constexpr const char* kOurs = "mpimon";
constexpr const char* kOpenMpis = "monitoring";

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ",") + item;
  return text;
}

bool contains(const std::vector<std::string>& items, const std::string& name) {
  return std::find(items.begin(), items.end(), name) != items.end();
}

const MonitoredFramework* find_framework(const std::string& name) {
  for (const MonitoredFramework& f : monitored_frameworks())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

std::string merge_selection(const std::string& user_selection, bool open_mpi_has_monitoring) {
  std::string selection = user_selection;
  selection.erase(0, selection.find_first_not_of(" \t"));
  if (selection.empty()) return open_mpi_has_monitoring ? std::string("^") + kOpenMpis : selection;
  if (selection[0] == '^') {
    std::vector<std::string> excluded = split_list(selection.substr(1));
    if (!open_mpi_has_monitoring) {
      // io, topo: "monitoring" there can only mean ours (our name before 5.0's port).
      for (std::string& item : excluded)
        if (item == kOpenMpis) item = kOurs;
      return "^" + join_list(excluded);
    }
    if (contains(excluded, kOurs)) return selection;  // ours excluded on purpose
    if (!contains(excluded, kOpenMpis)) excluded.push_back(kOpenMpis);
    return "^" + join_list(excluded);
  }
  std::vector<std::string> included;
  for (const std::string& item : split_list(selection)) {
    const std::string name = item == kOpenMpis ? kOurs : item;
    if (!contains(included, name)) included.push_back(name);
  }
  if (!contains(included, kOurs)) included.push_back(kOurs);
  return join_list(included);
}

std::vector<std::pair<std::string, std::string>> job_environment(const std::string& plugins,
                                                                 const EnvironmentLookup& lookup) {
  std::vector<std::pair<std::string, std::string>> environment;
  // Our folder first; Open MPI's own folders kept (every other framework needs them).
  environment.emplace_back("OMPI_MCA_mca_base_component_path", plugins + ":SYS_DEFAULT:USER_DEFAULT");
  for (const MonitoredFramework& framework : monitored_frameworks()) {
    const std::string name = "OMPI_MCA_" + framework.name;
    const std::string merged = merge_selection(lookup(name).value_or(""), framework.open_mpi_has_monitoring);
    if (!merged.empty()) environment.emplace_back(name, merged);
  }
  // Open MPI 5's external PMIx reads the component path too and complains, in every
  // rank, about each file there that is not one of its own plugins ("bad prefix") and
  // about SYS_DEFAULT and USER_DEFAULT, which it does not know: its own folder (known
  // when built against 5.0) keeps it to its own plugins.
  environment.emplace_back("PMIX_MCA_mca_base_component_show_load_errors", "0");
  if (*MPIMON_PMIX_COMPONENT_DIR != '\0')
    environment.emplace_back("PMIX_MCA_mca_base_component_path", MPIMON_PMIX_COMPONENT_DIR);
  return environment;
}

std::string mca_parameter_file(const std::string& plugins) {
  const std::string prefix = "OMPI_MCA_";
  std::string file =
      "# mpimon: loads mpimon's Open MPI components (docs/open-mpi-5.md, \"Loading\").\n"
      "# Use: export OMPI_MCA_mca_base_param_files=<this file>\n";
  std::string others;
  for (const auto& [name, value] : job_environment(plugins, [](const std::string&) { return std::nullopt; })) {
    if (name.rfind(prefix, 0) == 0)
      file += name.substr(prefix.size()) + " = " + value + "\n";
    else
      others += "#   export " + name + "=" + value + "\n";
  }
  if (!others.empty()) file += "# Not settable here; export in the job's environment too:\n" + others;
  return file;
}

std::vector<std::string> merge_selection_arguments(std::vector<std::string> arguments) {
  const std::string prefix = "OMPI_MCA_";
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {
    const std::string& option = arguments[i];
    if ((option == "--mca" || option == "-mca" || option == "--gmca" || option == "-gmca") &&
        i + 2 < arguments.size()) {
      if (const MonitoredFramework* f = find_framework(arguments[i + 1]); f != nullptr)
        arguments[i + 2] = merge_selection(arguments[i + 2], f->open_mpi_has_monitoring);
      i += 2;
    } else if (option == "-x") {
      std::string& assignment = arguments[i + 1];
      const size_t equals = assignment.find('=');
      if (assignment.rfind(prefix, 0) == 0 && equals != std::string::npos) {
        const MonitoredFramework* f = find_framework(assignment.substr(prefix.size(), equals - prefix.size()));
        if (f != nullptr)
          assignment = assignment.substr(0, equals + 1) +
                       merge_selection(assignment.substr(equals + 1), f->open_mpi_has_monitoring);
      }
      ++i;
    }
  }
  return arguments;
}

}  // namespace mpimon::tools
