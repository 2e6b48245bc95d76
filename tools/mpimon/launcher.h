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

// Replaces this process with mpirun (returns only on failure, with the reason).
std::string exec_mpirun(const std::vector<std::string>& mpirun_arguments);

}  // namespace mpimon::tools
