// `mpimon run`: mpirun with our components loaded and Open MPI's own monitoring
// components excluded (component_selection.h).
#pragma once

#include <string>
#include <vector>

namespace mpimon::tools {

// Where our plugins are: $MPIMON_PLUGIN_DIR, else <folder of this executable>/../lib/mpimon.
std::string plugin_directory();

// Replaces this process with mpirun (returns only on failure, with the reason).
std::string exec_mpirun(const std::vector<std::string>& mpirun_arguments);

// srun's arguments for a monitored step: --mpi=pmix first unless they choose an --mpi
// themselves (Open MPI's ranks need PMIx under srun; docs/slurm.md).
std::vector<std::string> srun_arguments(const std::vector<std::string>& arguments);
// Replaces this process with srun (found in PATH) in the environment of `mpimon run`
// (returns only on failure, with the reason).
std::string exec_srun(const std::vector<std::string>& srun_arguments);

}  // namespace mpimon::tools
