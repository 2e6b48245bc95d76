// Registration and selection of our topo component (its name comes from CMake's
// mpimon_add_plugin, like the other components', as MPIMON_COMPONENT_NAME).
//
// Selected (priority 50, above topo/basic's 0) for Cartesian and graph communicators only
// when topo_monitoring_job_file names a file; declined otherwise, so that a job without
// it runs Open MPI's own code. Distributed graphs are always declined: their edges are
// given per process in ranks of the old communicator, and with reorder the standard keeps
// them between the same processes, only renamed, so a permutation moves no traffic unless
// the application re-derives its role from its new rank (Open MPI's topo/treematch, which
// reorders them by the weights the application gives, stays in charge of them).
#include "topo_monitoring.h"

#include <ompi/mca/topo/base/base.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mpimon_reorder.h"
#include "runtime/build_match_ompi.h"
#include "runtime/component_version.h"
#include "runtime/mca_values.h"
#include "runtime/warnings.h"

namespace {

int component_register();
int init_query(bool, bool) { return OMPI_SUCCESS; }
mca_topo_base_module_t* comm_query(const ompi_communicator_t* comm, int* priority, uint32_t type);

}  // namespace

extern "C" {
__attribute__((visibility("default"))) mca_topo_base_component_2_2_0_t MPIMON_COMPONENT_SYMBOL = {
    .topoc_version = MPIMON_NAMED_COMPONENT_VERSION(MPIMON_COMPONENT_NAME, nullptr, nullptr, component_register,
                                                    MCA_TOPO_BASE_VERSION_2_2_0),
    .topoc_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .topoc_init_query = init_query,
    MPIMON_TOPO_COMPONENT_QUERY(comm_query),
};
}

namespace mpimon::topo {

namespace {
Settings& mutable_settings() {
  static Settings s;
  return s;
}
}  // namespace

const Settings& settings() { return mutable_settings(); }

void warn(const std::string& message, bool once_per_job) {
  warn_line(std::string("topo_") + MPIMON_VARIABLES_NAME, message,
            once_per_job ? WarningScope::once_per_job : WarningScope::every_process);
}

}  // namespace mpimon::topo

namespace {

using mpimon::topo::mutable_settings;
using mpimon::topo::warn;

constexpr int kPriority = 50;

char* job_file_text = nullptr;
char* traffic_text = nullptr;
char* verbose_text = nullptr;

int component_register() {
  // Before anything touches an Open MPI object (runtime/build_match_ompi.h).
  if (!mpimon::loaded_open_mpi_matches()) return OPAL_ERR_NOT_AVAILABLE;
  static char empty[] = "", all[] = "all", zero[] = "0";
  job_file_text = empty;
  traffic_text = all;
  verbose_text = zero;
  // Open MPI style names, as our other components' (topo_monitoring_job_file; the
  // component itself is named mpimon, component_version.h): registered by name.
  const auto no_flags = static_cast<mca_base_var_flag_t>(0);
  const auto register_text = [&](const char* variable, const char* description, mca_base_var_info_lvl_t level,
                                 char** storage) {
    mca_base_var_register("ompi", "topo", MPIMON_VARIABLES_NAME, variable, description, MCA_BASE_VAR_TYPE_STRING,
                          nullptr, 0, no_flags, level, MCA_BASE_VAR_SCOPE_READONLY, storage);
  };
  register_text(
      "job_file",
      "A previous run's job file (mpimon): MPI_Cart_create and MPI_Graph_create with reorder = 1 place the new "
      "communicator's ranks by that run's measured traffic over where this run's processes are; empty (default): "
      "this component is not used and Open MPI's default applies (no reordering)",
      OPAL_INFO_LVL_4, &job_file_text);
  register_text("traffic",
                "The job file's traffic to place by: all (default: point-to-point messages, collectives decomposed: "
                "external + internal), external or internal (mpimon)",
                OPAL_INFO_LVL_4, &traffic_text);
  register_text(
      "verbose",
      "1: rank 0 of each reordered communicator prints the bytes crossing hosts and hop-bytes before and after "
      "(mpimon)",
      OPAL_INFO_LVL_9, &verbose_text);

  mpimon::topo::Settings& s = mutable_settings();
  s.job_file = job_file_text ? job_file_text : "";
  const std::string prefix = std::string("topo_") + MPIMON_VARIABLES_NAME + "_";
  const std::string traffic = traffic_text && *traffic_text ? traffic_text : "all";
  if (traffic == "all") {
    s.traffic = MPIMON_REORDER_ALL;
  } else if (traffic == "external") {
    s.traffic = MPIMON_REORDER_EXTERNAL;
  } else if (traffic == "internal") {
    s.traffic = MPIMON_REORDER_INTERNAL;
  } else {
    if (!s.job_file.empty())
      warn(prefix + "traffic '" + traffic + "' is not all, external or internal: no reordering", true);
    s.job_file.clear();
  }
  std::string warning;
  s.verbose = mpimon::checked_level((prefix + "verbose").c_str(), verbose_text, 0, 0, "0 or 1", warning) > 0;
  if (!warning.empty()) warn(warning, true);
  return OMPI_SUCCESS;
}

mca_topo_base_module_t* comm_query(const ompi_communicator_t*, int* priority, uint32_t type) {
  if (mpimon::topo::settings().job_file.empty()) return nullptr;
  if (type != OMPI_COMM_CART && type != OMPI_COMM_GRAPH) return nullptr;
  *priority = kPriority;
  return mpimon::topo::new_module(type);
}

}  // namespace
