// `mpimon run`: mpirun with our component folder first in Open MPI's component path.
#pragma once

#include <string>
#include <vector>

namespace mpimon::tools {

// Where our plugins are: $MPIMON_PLUGIN_DIR, else <folder of this executable>/../lib/mpimon.
std::string plugin_directory();

// "<plugins>:SYS_DEFAULT:USER_DEFAULT", keeping Open MPI's own folders (without them
// every other framework would lose its components).
std::string component_path(const std::string& plugins);

// A user's component selection for `framework` that would leave ours out gets ours in
// front: in mpirun arguments (`--mca io ompio`, `-mca io ompio`, `-x OMPI_MCA_io=ompio`)
// `ompio` becomes `monitoring,ompio` (docs/io.md: our io component picks the real one
// among the others selected). Exclusions (`^romio321`) and lists naming ours are kept.
// Returns the arguments as mpirun must get them.
std::vector<std::string> merge_selections(std::vector<std::string> mpirun_arguments,
                                          const std::vector<std::string>& frameworks);
// The same for one value (an OMPI_MCA_<framework> variable's).
std::string merged_selection(const std::string& value);

// Replaces this process with mpirun (returns only on failure, with the reason). Selections
// of the frameworks our components join by selection (io), in the arguments and in the
// environment, are merged first.
std::string exec_mpirun(const std::vector<std::string>& mpirun_arguments);

}  // namespace mpimon::tools
