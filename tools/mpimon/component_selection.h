// Which components Open MPI loads for a monitored job (docs/open-mpi-5.md, "Loading").
//
// Our components are named "mpimon" (mca_pml_mpimon.so, ...) and loaded from our plugin
// folder; Open MPI's own "monitoring" components are excluded (their variables have the
// names ours register, and closing them would take ours away). A user's own selection of
// a framework is merged, never dropped:
//   (none)            -> ^monitoring
//   ^ucx              -> ^ucx,monitoring
//   ob1               -> ob1,mpimon
//   ob1,monitoring    -> ob1,mpimon           (Open MPI's docs' way to name monitoring)
//   ^mpimon,...       -> kept as it is        (the user excluded ours on purpose)
// io and topo, where Open MPI has no monitoring component of its own, only gain ours in
// an inclusion list (`--mca io ompio` -> `ompio,mpimon`: our io component then picks the
// real one for each file among the others selected, docs/io.md); nothing is set for them
// when the user selects nothing.
// Pure: no Open MPI, no environment access (the launcher, `mpimon env` and the tests
// pass what they read).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpimon::tools {

// The frameworks where our components take part, and whether Open MPI has a
// "monitoring" component of its own there (which a job must exclude).
struct MonitoredFramework {
  std::string name;
  bool open_mpi_has_monitoring;
};
inline const std::vector<MonitoredFramework>& monitored_frameworks() {
  static const std::vector<MonitoredFramework> frameworks{
      {"pml", true}, {"coll", true}, {"osc", true}, {"io", false}, {"topo", false}};
  return frameworks;
}

// A framework selection (the value of --mca pml ..., OMPI_MCA_pml) merged as above.
std::string merge_selection(const std::string& user_selection, bool open_mpi_has_monitoring = true);

// The environment a monitored job needs: (name, value) pairs. `plugins`: our plugin
// folder; `lookup` gives the caller's current value of a variable (nullopt when unset),
// so that a user's own OMPI_MCA_pml / _coll / _osc is merged.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;
std::vector<std::pair<std::string, std::string>> job_environment(const std::string& plugins,
                                                                 const EnvironmentLookup& lookup);

// The same environment as an MCA parameter file (OMPI_MCA_mca_base_param_files=<file>):
// one "name = value" line per OMPI_MCA_ variable, with nothing merged (a file cannot see
// the job's own selections; a command-line --mca pml ob1 overrides it). Variables of other
// prefixes (PMIx's) cannot be set there: they are named in a comment to export.
std::string mca_parameter_file(const std::string& plugins);

// mpirun's arguments with every --mca/-mca/-gmca/--gmca <framework> <selection> and every
// -x OMPI_MCA_<framework>=<selection> of a monitored framework merged as above (an mpirun
// command line overrides the environment).
std::vector<std::string> merge_selection_arguments(std::vector<std::string> arguments);

}  // namespace mpimon::tools
