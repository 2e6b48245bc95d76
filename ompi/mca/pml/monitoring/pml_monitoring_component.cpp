// Registration, selection and interposition of our PML component.
//
// Open MPI 4.1.4 selects one PML: every candidate's init returns a priority, the best is
// copied into mca_pml, then each loser's finalize is called and the losers are closed.
// We take part with priority 0 so we always lose, and put our wrappers in front of the
// winner in that first finalize call. Closing a component deregisters its MCA variables
// (and invalidates its MPI_T performance variables), so at that moment we also take our
// component out of the framework's list: it is never closed, its variables stay valid.
// MPI_Finalize then finalizes the real PML directly (mca_pml_base_selected_component is
// left untouched); our end-of-job dump runs earlier, in the mpi_finalize_top hook.
#include "pml_monitoring.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <ompi/mca/pml/base/base.h>
#include <opal/mca/base/base.h>
#include <opal/mca/base/mca_base_component_repository.h>

#include "live/file_pvars.h"
#include "live/pvars.h"
#include "runtime/build_match_ompi.h"
#include "runtime/component_version.h"
#include "runtime/mca_values_ompi.h"
#include "runtime/runtime.h"
#include "runtime/settings_registration_ompi.h"

namespace {

int component_register();
int component_open();
int component_close();
mca_pml_base_module_t* component_init(int* priority, bool enable_progress_threads, bool enable_mpi_threads);
int component_finalize();

}  // namespace

extern "C" {
__attribute__((visibility("default"))) MPIMON_PML_COMPONENT_TYPE MPIMON_COMPONENT_SYMBOL = {
    .pmlm_version =
        MPIMON_COMPONENT_VERSION(MPIMON_PML_BASE_VERSION, component_open, component_close, component_register),
    .pmlm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .pmlm_init = component_init,
    .pmlm_finalize = component_finalize,
};
}

namespace {

using mpimon::Runtime;
using mpimon::warn_once_per_job;

bool interposed = false;
bool threaded = false;  // MPI_THREAD_MULTIPLE, as told to init

int component_register() {
  // Before anything touches an Open MPI object (runtime/build_match_ompi.h).
  if (!mpimon::loaded_open_mpi_matches()) return OPAL_ERR_NOT_AVAILABLE;
  mpimon::register_settings();
  // Registered with mca_base_pvar_register (not tied to the component's variable group):
  // they stay valid for the whole run; we are never closed anyway (see above).
  mpimon::pvars::register_peer_variables("pml", "messages", "messages sent", mpimon::Category::external);
  // mpimon's own (not in Open MPI's component): what pml_monitoring_enable 2 counts apart
  // as internal, the messages collectives are decomposed into (mpimon_reorder() places by
  // both); zeros at enable level 1, where everything is external.
  mpimon::pvars::register_peer_variables("pml", "internal_messages", "messages of collectives (decomposed) sent",
                                         mpimon::Category::internal);
  mpimon::pvars::register_flush_variable();
  mpimon::mpi_io::register_file_variables();  // the io layer registers late (at the first MPI_File_open)
  return OMPI_SUCCESS;
}

int component_open() {
  // After Open MPI 5 closed its own excluded components (mca_values_ompi.h,
  // monitoring_variables_deregistered): our variables again.
  if (mpimon::monitoring_variables_deregistered("pml")) component_register();
  // Selection only considers PMLs named in mca_pml_base_pml (filled with ob1, ucx, ...
  // or the user's --mca pml list): add ourselves when monitoring is on.
  if (Runtime::instance().settings.enable_level > 0)
    opal_pointer_array_add(&mca_pml_base_pml, strdup(MPIMON_COMPONENT_SYMBOL.pmlm_version.mca_component_name));
  return OMPI_SUCCESS;
}

int component_close() { return OMPI_SUCCESS; }  // ompi_info opens and closes us: nothing to undo

// Never used for communication: selection only needs a non-NULL module from a candidate.
mca_pml_base_module_t placeholder_module{};

mca_pml_base_module_t* component_init(int* priority, bool, bool enable_mpi_threads) {
  if (Runtime::instance().settings.enable_level <= 0) return nullptr;
  mpimon::note_pml_took_part();
  threaded = enable_mpi_threads;
  *priority = 0;  // take part, always lose
  return &placeholder_module;
}

// Keep our component out of the framework's close: its MCA and MPI_T variables stay
// registered, and the library stays loaded.
void keep_component_open() {
  opal_list_t* components = &ompi_pml_base_framework.framework_components;
  mca_base_component_list_item_t* item;
  OPAL_LIST_FOREACH(item, components, mca_base_component_list_item_t) {
    if (item->cli_component == &MPIMON_COMPONENT_SYMBOL.pmlm_version) {
      opal_list_remove_item(components, &item->super);
      OBJ_RELEASE(item);
      break;
    }
  }
  mca_base_component_repository_retain_component("pml", MPIMON_COMPONENT_NAME);
}

int component_finalize() {
  if (interposed) return OMPI_SUCCESS;
  interposed = true;
  const char* selected = mca_pml_base_selected_component.pmlm_version.mca_component_name;
  // "monitoring": Open MPI's own (not excluded, and selected because the user named it).
  if (mca_pml.pml_isend == nullptr || std::strcmp(selected, MPIMON_COMPONENT_NAME) == 0 ||
      std::strcmp(selected, "monitoring") == 0) {
    mpimon::warn("no point-to-point layer to monitor (selected pml: '" + std::string(selected) + "'); monitoring off");
    return OMPI_SUCCESS;
  }
  keep_component_open();
  Runtime& runtime = Runtime::instance();
  mpimon::pml::interpose(runtime.settings.split_internal(), std::strcmp(selected, "ob1") == 0, threaded);
  std::string error;
  if (!runtime.start(static_cast<int>(ompi_proc_local_proc->super.proc_name.vpid), threaded, error))
    mpimon::warn(error);
  return OMPI_SUCCESS;
}

}  // namespace
