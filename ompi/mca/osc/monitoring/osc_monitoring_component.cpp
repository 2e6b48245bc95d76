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
#include "osc_monitoring.h"
#include "runtime/component_version.h"

#include <mpi.h>

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>

#include <ompi/mca/osc/base/base.h>
#include <opal/mca/base/base.h>
#include <opal/mca/base/mca_base_component_repository.h>

#include "analyses/window_sync.h"
#include "live/pvars.h"
#include "mpit_events_producer.h"
#include "osc_monitoring_events.h"
#include "runtime/build_match_ompi.h"
#include "runtime/mca_values_ompi.h"
#include "runtime/runtime.h"
#include "wait_states/shadow_setup.h"
#include "wait_states/window_tracker.h"

namespace {

int component_register();
int component_open();
int component_close();
int component_init(bool enable_progress_threads, bool enable_mpi_threads);
int component_query(ompi_win_t* win, void** base, size_t size, mpimon::osc::DispUnit disp_unit,
                    ompi_communicator_t* comm, opal_info_t* info, int flavor);
int component_select(ompi_win_t* win, void** base, size_t size, mpimon::osc::DispUnit disp_unit,
                     ompi_communicator_t* comm, opal_info_t* info, int flavor, int* model);
int component_finalize();

}  // namespace

extern "C" {
__attribute__((visibility("default"))) ompi_osc_base_component_t MPIMON_COMPONENT_SYMBOL = {
    .osc_version =
        MPIMON_COMPONENT_VERSION(MPIMON_OSC_BASE_VERSION, component_open, component_close, component_register),
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

// Windows with bound handles -> the registry id of the window bound (0: a window created
// while monitoring was off, which reads zeros). A handle whose window was freed reads an
// error, even if a new window later takes the same address.
std::mutex bound_mutex;
std::map<const void*, uint64_t> bound_windows;

// Synchronisation times and calls (SyncKind order), wait-state times and occurrences
// (wait_states::Pattern order).
enum class SyncMetric { seconds, calls, wait_seconds, wait_counts };

SyncMetric metric_of(const mca_base_pvar_t* pvar) {
  return static_cast<SyncMetric>(reinterpret_cast<uintptr_t>(pvar->ctx));
}

// Still the window bound under `id`: monitored ones by their registry id, others by Open
// MPI's table of live windows.
bool still_bound(const void* win, uint64_t id) {
  return id != 0 ? mpimon::osc::sync_id_of(static_cast<const ompi_win_t*>(win)) == id
                 : mpimon_mpi_object_is_live(MPI_T_BIND_MPI_WIN, win);
}

// Never an error at bind: Open MPI's core crashes on one (see live/pvar_handle_check.h). An
// object that is not a live window (only possible where that check could not be
// installed) gets a handle with no values, whose reads fail.
int notify_sync_variable(mca_base_pvar_t* pvar, mca_base_pvar_event_t event, void* obj, int* count) {
  if (event != MCA_BASE_PVAR_HANDLE_BIND) return OMPI_SUCCESS;
  *count = 0;
  if (!mpimon_mpi_object_is_live(MPI_T_BIND_MPI_WIN, obj)) return OMPI_SUCCESS;  // nothing read before this
  std::lock_guard lock(bound_mutex);
  std::erase_if(bound_windows, [](const auto& entry) { return !still_bound(entry.first, entry.second); });
  bound_windows[obj] = mpimon::osc::sync_id_of(static_cast<const ompi_win_t*>(obj));
  const SyncMetric metric = metric_of(pvar);
  *count = metric == SyncMetric::wait_seconds || metric == SyncMetric::wait_counts ? mpimon::wait_states::kPatternCount
                                                                                   : mpimon::kSyncKindCount;
  return OMPI_SUCCESS;
}

int read_sync_variable(const mca_base_pvar_t* pvar, void* value, void* obj) {
  uint64_t id;
  {
    std::lock_guard lock(bound_mutex);
    const auto bound = bound_windows.find(obj);
    if (bound == bound_windows.end() || !still_bound(obj, bound->second)) return OMPI_ERR_NOT_FOUND;
    id = bound->second;
  }
  const SyncMetric metric = metric_of(pvar);
  if (metric == SyncMetric::wait_seconds || metric == SyncMetric::wait_counts) {
    constexpr int n = mpimon::wait_states::kPatternCount;
    double seconds[n] = {};
    uint64_t counts[n] = {};
    // A window without wait states (osc_monitoring_wait_states 0, or created while
    // monitoring was off) reads zeros.
    if (id != 0) mpimon::osc::wait_states::registry().read(id, seconds, counts);
    if (metric == SyncMetric::wait_seconds) {
      std::memcpy(value, seconds, sizeof seconds);
    } else {
      auto* out = static_cast<unsigned long long*>(value);
      for (int p = 0; p < n; ++p) out[p] = counts[p];
    }
    return OMPI_SUCCESS;
  }
  uint64_t calls[mpimon::kSyncKindCount] = {};
  double seconds[mpimon::kSyncKindCount] = {};
  if (id != 0 && !mpimon::window_sync().read(id, calls, seconds)) return OMPI_ERR_NOT_FOUND;
  if (metric == SyncMetric::seconds) {
    std::memcpy(value, seconds, sizeof seconds);
  } else {
    auto* out = static_cast<unsigned long long*>(value);
    for (int k = 0; k < mpimon::kSyncKindCount; ++k) out[k] = calls[k];
  }
  return OMPI_SUCCESS;
}

void register_sync_variables() {
  const auto flags = static_cast<mca_base_pvar_flag_t>(MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_IWG);
  struct Variable {
    const char* name;
    const char* description;
    bool timer;  // else a counter
    SyncMetric metric;
  };
  static const Variable variables[] = {
      {"sync_time",
       "Seconds spent inside each kind of synchronisation call on the bound window, 15 values in this order: fence, "
       "start, complete, post, wait, test, lock, unlock, lock_all, unlock_all, sync, flush, flush_all, flush_local, "
       "flush_local_all (mpimon)",
       true, SyncMetric::seconds},
      {"sync_count",
       "Number of each kind of synchronisation call on the bound window, in the order of osc_monitoring_sync_time "
       "(mpimon)",
       false, SyncMetric::calls},
      {"wait_time",
       "Seconds this process waited on the bound window in each RMA wait-state pattern, 7 values in this order: "
       "late_post, early_transfer, early_wait, late_complete, wait_at_fence, early_fence, lock_competition; every "
       "epoch it closed is counted by the end of its next synchronisation call on the window "
       "(osc_monitoring_wait_states 1; zeros otherwise) (mpimon)",
       true, SyncMetric::wait_seconds},
      {"wait_count",
       "Occurrences of each RMA wait-state pattern on the bound window, in the order of osc_monitoring_wait_time "
       "(mpimon)",
       false, SyncMetric::wait_counts},
  };
  for (const Variable& v : variables)
    mca_base_pvar_register("ompi", "osc", MPIMON_VARIABLES_NAME, v.name, v.description, OPAL_INFO_LVL_4,
                           v.timer ? MCA_BASE_PVAR_CLASS_TIMER : MCA_BASE_PVAR_CLASS_COUNTER,
                           v.timer ? MCA_BASE_VAR_TYPE_DOUBLE : MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, nullptr,
                           MPI_T_BIND_MPI_WIN, flags, read_sync_variable, nullptr, notify_sync_variable,
                           reinterpret_cast<void*>(static_cast<uintptr_t>(v.metric)));
}

int sync_timing = 0;                 // osc_monitoring_sync_timing: 0 or 1
int wait_states = 0;                 // osc_monitoring_wait_states: 0 or 1
char* testing_clock_text = nullptr;  // osc_monitoring_wait_states_testing_clock_offset
mpimon::wait_states::TestingClockShift testing_clock_shift;

int component_register() {
  // Before anything touches an Open MPI object (runtime/build_match_ompi.h).
  if (!mpimon::loaded_open_mpi_matches()) return OPAL_ERR_NOT_AVAILABLE;
  // A second call (component_open) registers again and says nothing again.
  static bool first_call = true;
  const bool warn = first_call;
  first_call = false;
  // Off by default: timing costs two clock reads per synchronisation call, which would
  // double the monitoring cost of a lock/put/unlock epoch (bench/osc_overhead.sh).
  static const mpimon::IntParameter sync_timing_parameter{
      "sync_timing",
      "osc_monitoring_sync_timing",
      "Time the one-sided synchronisation calls per window (mpimon): 1 count each call and the time "
      "spent inside it (osc_monitoring_sync_* performance variables, '# SYNC' lines of the .prof files, "
      "window_sync lines of the job file); 0 (default) do not time them (traffic is still counted)",
      "0 off, 1 on",
      0,
      1};
  std::string warning;
  mpimon::register_int_parameter("osc", sync_timing_parameter, sync_timing, warning);
  if (warn && !warning.empty()) mpimon::warn_once_per_job(warning + ": synchronisation calls not timed");
  static const mpimon::IntParameter wait_states_parameter{
      "wait_states",
      "osc_monitoring_wait_states",
      "Detect RMA wait states while the job runs (mpimon): 1 late post, early transfer, early wait, late complete, "
      "wait at fence, early fence and lock competition per window, with who made whom wait "
      "(osc_monitoring_wait_time / _wait_count performance variables, mpimon_osc_wait_state events, '# WAIT' lines, "
      "wait_state lines of the job file); implies osc_monitoring_sync_timing 1; 0 (default) off",
      "0 or 1",
      0,
      1};
  warning.clear();
  mpimon::register_int_parameter("osc", wait_states_parameter, wait_states, warning);
  if (warn && !warning.empty()) mpimon::warn_once_per_job(warning + ": wait states off, the job runs on");
  testing_clock_text = nullptr;
  mpimon::register_monitoring_variable(
      "osc", "wait_states_testing_clock_offset",
      "TESTING ONLY (mpimon): shift the clock of some processes as if their host's clock were off, to check that "
      "wait states correct clock offsets: <seconds>:<world ranks, comma-separated> (those ranks also form a clock "
      "domain of their own) or <seconds>:host=<host name>; empty (default): no shift",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, static_cast<mca_base_var_flag_t>(0), OPAL_INFO_LVL_9,
      MCA_BASE_VAR_SCOPE_READONLY, &testing_clock_text);
  if (testing_clock_text != nullptr && *testing_clock_text != '\0') {
    std::string error;
    if (auto shift = mpimon::wait_states::parse_testing_clock_shift(testing_clock_text, error)) {
      testing_clock_shift = *shift;
    } else if (warn) {
      mpimon::warn_once_per_job(std::string("invalid value '") + testing_clock_text +
                                "' for MCA parameter osc_monitoring_wait_states_testing_clock_offset (" + error +
                                "); no clock shift");
    }
  }
  using mpimon::Category;
  using mpimon::pvars::Metric;
  mpimon::pvars::register_peer_variables(
      "osc", "messages_sent", "one-sided operations sending data (put, accumulate, ...)", Category::osc_sent);
  mpimon::pvars::register_peer_variables(
      "osc", "messages_recv", "one-sided operations receiving data (get, fetching atomics, ...)", Category::osc_recv);
  register_sync_variables();
  return OMPI_SUCCESS;
}

// After Open MPI 5 closed its own excluded components (mca_values_ompi.h,
// monitoring_variables_deregistered): our variables again.
int component_open() {
  if (mpimon::monitoring_variables_deregistered("osc")) component_register();
  return OMPI_SUCCESS;
}
int component_close() { return OMPI_SUCCESS; }  // ompi_info opens and closes us: nothing to undo

// ---------------------------------------------------------------------------------------
// End-of-job dump: synchronisation times after the S/R lines and in the job file.

std::chrono::steady_clock::time_point layer_start;  // end of MPI_Init, about

void dump_windows(Runtime::LayerDump& out) {
  const auto entries = mpimon::window_sync().entries(mpimon::osc::live_window_name);
  const int me = Runtime::instance().world_rank();
  out.prof.osc += mpimon::format_sync_prof_lines(me, entries);
  out.job_annotations += mpimon::format_sync_job_lines(me, entries);
  if (!mpimon::osc::wait_states::enabled()) return;
  const auto waits = mpimon::osc::wait_states::registry().entries(mpimon::osc::live_window_name);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - layer_start).count();
  out.prof.osc += mpimon::wait_states::format_wait_prof_lines(me, waits);
  out.job_annotations += mpimon::wait_states::format_wait_job_lines(me, waits, seconds);
}

// Wait states in this process: only single-threaded (MPI_THREAD_MULTIPLE: off, said once).
bool start_wait_states(const Runtime& runtime) {
  if (!wait_states) return false;
  if (runtime.engine.threaded()) {
    mpimon::warn_once_per_job(
        "osc_monitoring_wait_states 1 is not supported with MPI_THREAD_MULTIPLE: wait states off, the job runs on");
    return false;
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  mpimon::osc::wait_states::Settings settings;
  settings.enabled = true;
  settings.testing_shift = testing_clock_shift;
  settings.world_rank = runtime.world_rank();
  settings.host_name = host;
  mpimon::osc::wait_states::configure(settings);
  return true;
}

// Runs in MPI_Init, after the PML was selected (so our PML layer has started or not).
int component_init(bool, bool) {
  Runtime& runtime = Runtime::instance();
  if (active || runtime.settings.enable_level <= 0 || !runtime.started()) return OMPI_SUCCESS;
  active = true;
  mpimon::window_sync();  // its clock calibration starts now
  layer_start = std::chrono::steady_clock::now();
  mpimon::osc::start_layer(runtime.engine.threaded(), sync_timing != 0, start_wait_states(runtime));
  runtime.add_dump_provider(dump_windows);
  // Our code must stay loaded as long as the runtime may call dump_windows.
  mca_base_component_repository_retain_component("osc", MPIMON_COMPONENT_NAME);
  return OMPI_SUCCESS;
}

int component_query(ompi_win_t*, void**, size_t, mpimon::osc::DispUnit, ompi_communicator_t*, opal_info_t*, int) {
  // A mixed deployment runs unmonitored (Runtime::all_ranks_monitored): windows then go
  // to the real component directly.
  return active && Runtime::instance().all_ranks_monitored() ? INT_MAX : OMPI_ERR_NOT_AVAILABLE;
}

// Selection as ompi_osc_base_select does it, without us: the best priority wins.
int component_select(ompi_win_t* win, void** base, size_t size, mpimon::osc::DispUnit disp_unit,
                     ompi_communicator_t* comm, opal_info_t* info, int flavor, int* model) {
  ompi_osc_base_component_t* best = nullptr;
  int best_priority = -1;
  mca_base_component_list_item_t* item;
  OPAL_LIST_FOREACH(item, &ompi_osc_base_framework.framework_components, mca_base_component_list_item_t) {
    auto* component =
        reinterpret_cast<ompi_osc_base_component_t*>(const_cast<mca_base_component_t*>(item->cli_component));
    // Never ourselves, nor Open MPI's own monitoring wrapper when nobody excluded it.
    if (component == &MPIMON_COMPONENT_SYMBOL ||
        std::strcmp(component->osc_version.mca_component_name, "monitoring") == 0)
      continue;
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
  if (mpimon::osc::wait_states::creating_shadow()) {  // our own shadow window: never monitored
    mpimon::osc::wait_states::shadow_created_by(best->osc_version.mca_component_name);
    return OMPI_SUCCESS;
  }
  if (!mpimon::osc::wrap_window(win, comm)) mpimon::warn("window left unmonitored: no memory for its state");
  mpimon::osc::raise_window_created(win, size, disp_unit, flavor);
  if (Runtime::instance().settings.verbose)
    mpimon::warn("rank " + std::to_string(Runtime::instance().world_rank()) + ": window created by osc component " +
                 best->osc_version.mca_component_name + " (priority " + std::to_string(best_priority) + "), monitored");
  return OMPI_SUCCESS;
}

int component_finalize() { return OMPI_SUCCESS; }

}  // namespace
