// Registration and selection of coll/splittree. Off unless coll_splittree_enable is 1; a
// progress thread calls MPI, so it needs MPI_THREAD_MULTIPLE: otherwise one warning per
// job and Open MPI's own nonblocking collectives.
#include "coll_splittree.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ompi/mca/hook/base/base.h>
#include <opal/mca/base/mca_base_component_repository.h>

#include "runtime/build_match_ompi.h"
#include "runtime/component_version.h"
#include "runtime/mca_values.h"
#include "runtime/warnings.h"
#include "split_tree_engine.h"

namespace {

int component_register();
int component_close();
int init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t* comm_query(ompi_communicator_t* comm, int* priority);

}  // namespace

extern "C" {
__attribute__((visibility("default"))) MPIMON_COLL_COMPONENT_TYPE mca_coll_splittree_component = {
    .collm_version = MPIMON_NAMED_COMPONENT_VERSION("splittree", nullptr, component_close, component_register,
                                                    MPIMON_COLL_BASE_VERSION),
    .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .collm_init_query = init_query,
    .collm_comm_query = comm_query,
};
}

namespace mpimon::splittree {

Settings& settings() {
  static Settings s;
  return s;
}

void warn(const std::string& message, bool once_per_job) {
  warn_line("coll_splittree", message, once_per_job ? WarningScope::once_per_job : WarningScope::every_process);
}

}  // namespace mpimon::splittree

namespace {

using mpimon::splittree::settings;
using mpimon::splittree::warn;

char* enable_text = nullptr;
char* levels_text = nullptr;
char* priority_text = nullptr;
char* verbose_text = nullptr;

int component_register() {
  // Before anything touches an Open MPI object (runtime/build_match_ompi.h).
  if (!mpimon::loaded_open_mpi_matches()) return OPAL_ERR_NOT_AVAILABLE;
  static char zero[] = "0", model[] = "model", fifty[] = "50";
  enable_text = zero;
  levels_text = model;
  priority_text = fifty;
  verbose_text = zero;
  auto* version = &mca_coll_splittree_component.collm_version;
  const auto no_flags = static_cast<mca_base_var_flag_t>(0);
  mca_base_component_var_register(
      version, "enable",
      "Split-tree nonblocking collectives (ibcast, ireduce, iallreduce, igather, iscatter: upper tree levels on "
      "a progress thread, lower ones in the application's progress; needs MPI_THREAD_MULTIPLE): 0 off "
      "(default), 1 on (mpimon)",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &enable_text);
  mca_base_component_var_register(
      version, "levels",
      "S, the tree levels (the lowest ones) run in the application's progress rather than on the progress "
      "thread: 'model' (default) for the paper's model given the ranks and free cores of the host, or 0..H "
      "(larger values mean H) (mpimon)",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &levels_text);
  mca_base_component_var_register(
      version, "priority",
      "Selection priority of coll/splittree (default 50: above Open MPI's libnbc and tuned, below mpimon's "
      "monitoring) (mpimon)",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY, &priority_text);
  mca_base_component_var_register(
      version, "verbose", "1: world rank 0 prints each communicator's S and the progress thread's core (mpimon)",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY, &verbose_text);

  std::string warning;
  settings().enabled = mpimon::checked_level("coll_splittree_enable", enable_text, 0, 0, "0 off, 1 on", warning) > 0;
  if (!warning.empty()) warn(warning + ": split tree off", true);
  warning.clear();
  if (levels_text != nullptr && std::strcmp(levels_text, "model") != 0 && levels_text[0] != '\0') {
    settings().levels =
        mpimon::checked_level("coll_splittree_levels", levels_text, -1, -1, "'model' or 0 and above", warning);
    if (!warning.empty()) warn(warning + ": the model chooses", true);
  }
  warning.clear();
  settings().priority =
      std::min(100, mpimon::checked_level("coll_splittree_priority", priority_text, 50, 50, "0 to 100", warning));
  if (!warning.empty()) warn(warning, true);
  warning.clear();
  settings().verbose = mpimon::checked_level("coll_splittree_verbose", verbose_text, 0, 0, "0 or 1", warning) > 0;
  if (!warning.empty()) warn(warning, true);
  return OMPI_SUCCESS;
}

void on_finalize_top() { mpimon::splittree::Engine::instance().stop(); }

ompi_hook_base_component_t hooks = [] {
  ompi_hook_base_component_t hook{};
  hook.hookm_mpi_finalize_top = on_finalize_top;
  return hook;
}();

int init_query(bool, bool enable_mpi_threads) {
  if (!settings().enabled) return OMPI_SUCCESS;
  if (!enable_mpi_threads) {
    warn(
        "coll_splittree_enable 1 needs MPI_THREAD_MULTIPLE (its progress thread calls MPI); this program "
        "initialised MPI with a lower thread level: Open MPI's own nonblocking collectives are used",
        true);
    return OMPI_SUCCESS;
  }
  static const bool ready = [] {
    if (ompi_hook_base_register_callbacks(&hooks) != OMPI_SUCCESS) {
      warn("cannot hook MPI_Finalize to stop the progress thread: split tree off", true);
      return false;
    }
    // Our hook and progress callback must stay valid until the process ends.
    mca_base_component_repository_retain_component("coll", "splittree");
    return true;
  }();
  settings().usable = ready;
  return OMPI_SUCCESS;
}

int component_close() { return OMPI_SUCCESS; }

mca_coll_base_module_t* comm_query(ompi_communicator_t* comm, int* priority) {
  if (!settings().usable || OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2) return nullptr;
  *priority = settings().priority;
  return mpimon::splittree::new_module();
}

}  // namespace
