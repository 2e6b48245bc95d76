// Registration and selection of our OSC component.
//
// Open MPI 4.1.4 creates a window's module with the component whose query returns the
// highest priority. When monitoring is on (pml_monitoring_enable > 0, registered by our
// PML component, and the PML layer started), ours answers INT_MAX and so always wins;
// its select then queries the other components of the framework's list itself (at run
// time: whatever is installed and allowed by --mca osc), lets the best one create the
// module, and puts our wrappers into that module in place (osc_monitoring_module.cpp).
// When monitoring is off, our query answers "not available" and selection goes on as if
// we were not there.
#include "component_version.h"
#include "osc_monitoring.h"

#include <mpi.h>

#include <climits>
#include <cstring>
#include <map>
#include <mutex>

#include <ompi/mca/osc/base/base.h>
#include <opal/mca/base/base.h>
#include <opal/mca/base/mca_base_component_repository.h>

#include "pvars.h"
#include "runtime.h"
#include "window_sync.h"

namespace {

int component_register();
int component_open();
int component_close();
int component_init(bool enable_progress_threads, bool enable_mpi_threads);
int component_query(ompi_win_t* win, void** base, size_t size, int disp_unit, ompi_communicator_t* comm,
                    opal_info_t* info, int flavor);
int component_select(ompi_win_t* win, void** base, size_t size, int disp_unit, ompi_communicator_t* comm,
                     opal_info_t* info, int flavor, int* model);
int component_finalize();

}  // namespace

extern "C" {
__attribute__((visibility("default"))) ompi_osc_base_component_t mca_osc_monitoring_component = {
    .osc_version = MPIMON_COMPONENT_VERSION(OMPI_OSC_BASE_VERSION_3_0_0, component_open, component_close,
                                            component_register),
    .osc_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .osc_init = component_init,
    .osc_query = component_query,
    .osc_select = component_select,
    .osc_finalize = component_finalize,
};
}

namespace {

using mpimon::Runtime;
using mpimon::SyncKind;

bool active = false;  // decided in init: monitoring on and the PML layer started

// ---------------------------------------------------------------------------------------
// Performance variables bound to a window: one value per SyncKind, in its order.

// Windows with bound handles -> the registry id of the window bound. A handle whose
// window was freed reads an error, even if a new window later takes the same address.
std::mutex bound_mutex;
std::map<const void*, uint64_t> bound_windows;

enum class SyncMetric { seconds, calls };

int notify_sync_variable(mca_base_pvar_t*, mca_base_pvar_event_t event, void* obj, int* count) {
  if (event != MCA_BASE_PVAR_HANDLE_BIND) return OMPI_SUCCESS;
  const uint64_t id = mpimon::osc::sync_id_of(static_cast<const ompi_win_t*>(obj));
  if (id == 0) return OMPI_ERR_BAD_PARAM;  // not a monitored live window
  std::lock_guard lock(bound_mutex);
  std::erase_if(bound_windows, [](const auto& entry) {  // forget freed windows
    return mpimon::osc::sync_id_of(static_cast<const ompi_win_t*>(entry.first)) != entry.second;
  });
  bound_windows[obj] = id;
  *count = mpimon::kSyncKindCount;
  return OMPI_SUCCESS;
}

int read_sync_variable(const mca_base_pvar_t* pvar, void* value, void* obj) {
  const uint64_t id = mpimon::osc::sync_id_of(static_cast<const ompi_win_t*>(obj));
  {
    std::lock_guard lock(bound_mutex);
    const auto bound = bound_windows.find(obj);
    if (id == 0 || bound == bound_windows.end() || bound->second != id) return OMPI_ERR_NOT_FOUND;
  }
  uint64_t calls[mpimon::kSyncKindCount];
  double seconds[mpimon::kSyncKindCount];
  if (!mpimon::window_sync().read(id, calls, seconds)) return OMPI_ERR_NOT_FOUND;
  if (static_cast<SyncMetric>(reinterpret_cast<uintptr_t>(pvar->ctx)) == SyncMetric::seconds) {
    std::memcpy(value, seconds, sizeof seconds);
  } else {
    auto* out = static_cast<unsigned long long*>(value);
    for (int k = 0; k < mpimon::kSyncKindCount; ++k) out[k] = calls[k];
  }
  return OMPI_SUCCESS;
}

void register_sync_variables() {
  const auto flags = static_cast<mca_base_pvar_flag_t>(MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_IWG);
  mca_base_pvar_register(
      "ompi", "osc", "monitoring", "sync_time",
      "Seconds spent inside each kind of synchronisation call on the bound window, 15 values in this order: fence, "
      "start, complete, post, wait, test, lock, unlock, lock_all, unlock_all, sync, flush, flush_all, flush_local, "
      "flush_local_all (mpimon)",
      OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_TIMER, MCA_BASE_VAR_TYPE_DOUBLE, nullptr, MPI_T_BIND_MPI_WIN, flags,
      read_sync_variable, nullptr, notify_sync_variable,
      reinterpret_cast<void*>(static_cast<uintptr_t>(SyncMetric::seconds)));
  mca_base_pvar_register(
      "ompi", "osc", "monitoring", "sync_count",
      "Number of each kind of synchronisation call on the bound window, in the order of osc_monitoring_sync_time "
      "(mpimon)",
      OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, nullptr,
      MPI_T_BIND_MPI_WIN, flags, read_sync_variable, nullptr, notify_sync_variable,
      reinterpret_cast<void*>(static_cast<uintptr_t>(SyncMetric::calls)));
}

bool sync_timing = false;  // osc_monitoring_sync_timing

int component_register() {
  // Off by default: timing costs two clock reads per synchronisation call, which would
  // double the monitoring cost of a lock/put/unlock epoch (bench/osc_overhead.sh).
  sync_timing = false;
  mca_base_component_var_register(
      &mca_osc_monitoring_component.osc_version, "sync_timing",
      "Time the one-sided synchronisation calls per window (mpimon): 1 count each call and the time "
      "spent inside it (osc_monitoring_sync_* performance variables, '# SYNC' lines of the .prof files, "
      "window_sync lines of the job file); 0 (default) do not time them (traffic is still counted)",
      MCA_BASE_VAR_TYPE_BOOL, nullptr, 0, static_cast<mca_base_var_flag_t>(0), OPAL_INFO_LVL_4,
      MCA_BASE_VAR_SCOPE_READONLY, &sync_timing);
  using mpimon::Category;
  using mpimon::pvars::Metric;
  mpimon::pvars::register_peer_variables("osc", "messages_sent", "one-sided operations sending data (put, accumulate, ...)",
                                         Category::osc_sent);
  mpimon::pvars::register_peer_variables("osc", "messages_recv",
                                         "one-sided operations receiving data (get, fetching atomics, ...)",
                                         Category::osc_recv);
  register_sync_variables();
  return OMPI_SUCCESS;
}

int component_open() { return OMPI_SUCCESS; }
int component_close() { return OMPI_SUCCESS; }  // ompi_info opens and closes us: nothing to undo

// ---------------------------------------------------------------------------------------
// End-of-job dump: synchronisation times after the S/R lines and in the job file.

void dump_windows(Runtime::LayerDump& out) {
  const auto entries = mpimon::window_sync().entries(mpimon::osc::live_window_name);
  const int me = Runtime::instance().world_rank();
  out.prof.osc += mpimon::format_sync_prof_lines(me, entries);
  out.job_annotations += mpimon::format_sync_job_lines(me, entries);
}

// Runs in MPI_Init, after the PML was selected (so our PML layer has started or not).
int component_init(bool, bool) {
  Runtime& runtime = Runtime::instance();
  if (active || runtime.settings.enable_level <= 0 || !runtime.started()) return OMPI_SUCCESS;
  active = true;
  mpimon::window_sync();  // its clock calibration starts now
  mpimon::osc::start_layer(runtime.engine.threaded(), sync_timing);
  runtime.add_dump_provider(dump_windows);
  // Our code must stay loaded as long as the runtime may call dump_windows.
  mca_base_component_repository_retain_component("osc", "monitoring");
  return OMPI_SUCCESS;
}

int component_query(ompi_win_t*, void**, size_t, int, ompi_communicator_t*, opal_info_t*, int) {
  return active ? INT_MAX : OMPI_ERR_NOT_AVAILABLE;
}

// Selection as ompi_osc_base_select does it, without us: the best priority wins.
int component_select(ompi_win_t* win, void** base, size_t size, int disp_unit, ompi_communicator_t* comm,
                     opal_info_t* info, int flavor, int* model) {
  ompi_osc_base_component_t* best = nullptr;
  int best_priority = -1;
  mca_base_component_list_item_t* item;
  OPAL_LIST_FOREACH(item, &ompi_osc_base_framework.framework_components, mca_base_component_list_item_t) {
    auto* component = reinterpret_cast<ompi_osc_base_component_t*>(const_cast<mca_base_component_t*>(item->cli_component));
    if (component == &mca_osc_monitoring_component) continue;
    const int priority = component->osc_query(win, base, size, disp_unit, comm, info, flavor);
    if (priority < 0) {
      // As Open MPI does: a shared window that cannot be shared fails with this code.
      if (flavor == MPI_WIN_FLAVOR_SHARED && priority == OMPI_ERR_RMA_SHARED) return OMPI_ERR_RMA_SHARED;
      continue;
    }
    if (priority > best_priority) {
      best = component;
      best_priority = priority;
    }
  }
  if (best == nullptr) return OMPI_ERR_NOT_SUPPORTED;
  const int rc = best->osc_select(win, base, size, disp_unit, comm, info, flavor, model);
  if (rc != OMPI_SUCCESS) return rc;
  if (!mpimon::osc::wrap_window(win)) mpimon::warn("window left unmonitored: no memory for its state");
  if (Runtime::instance().settings.verbose)
    mpimon::warn("rank " + std::to_string(Runtime::instance().world_rank()) + ": window created by osc component " +
                 best->osc_version.mca_component_name + " (priority " + std::to_string(best_priority) + "), monitored");
  return OMPI_SUCCESS;
}

int component_finalize() { return OMPI_SUCCESS; }

}  // namespace
