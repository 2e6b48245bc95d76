// What Open MPI itself would take for one of its MCA variables before mpimon sets
// anything: the selection our job environment must merge with (component_selection.h).
//
// Open MPI reads a variable from, in its order of precedence: the command line (mpirun
// turns --mca into OMPI_MCA_ variables for the ranks), the environment, then its parameter
// files. Our environment (OMPI_MCA_pml=^monitoring, ...) overrides those files, so a
// selection made there must be merged, or it is lost: Debian's
// /etc/openmpi/openmpi-mca-params.conf sets `pml = ^ucx` and `osc = ^ucx,pt2pt`, and a
// job started with only ^monitoring would open UCX again (docs/development.md, "LAMMPS
// in the sanitizer pass", is what that cost).
#pragma once

#include <optional>
#include <string>

namespace mpimon::tools {

// The value of `name` ("pml") in the text of an MCA parameter file ("name = value" lines,
// '#' comments, blanks around both sides; the last line that sets it counts, as in Open
// MPI's reader); nullopt when the file does not set it.
std::optional<std::string> parameter_file_value(const std::string& text, const std::string& name);

// The value of the MCA variable `variable` ("OMPI_MCA_pml"): from the environment, else
// from Open MPI's parameter files, OMPI_MCA_mca_base_param_files or its default
// ($HOME/.openmpi/mca-params.conf,<sysconfdir>/openmpi-mca-params.conf, comma-separated;
// the leftmost file that sets it wins, as in Open MPI). Files that cannot be read are
// skipped, as Open MPI skips them. Not read: the override file
// (<sysconfdir>/openmpi-mca-params-override.conf, which beats the environment).
std::optional<std::string> open_mpi_setting(const std::string& variable);

}  // namespace mpimon::tools
