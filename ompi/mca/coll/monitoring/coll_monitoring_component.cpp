// Registration and selection of our COLL component. Active when the PML layer is (the
// PML layer gates all layers; runtime/settings_registration_ompi.h): every communicator then gets
// our module at priority 100, the highest Open MPI allows, so it is enabled last.
#include "coll_monitoring.h"
#include "coll_monitoring_nbc.h"

#include <climits>
#include <cstring>
#include <utility>

#include <opal/mca/base/mca_base_component_repository.h>

#include "live/pvars.h"
#include "runtime/build_match_ompi.h"
#include "runtime/component_version.h"
#include "runtime/mca_values_ompi.h"
#include "runtime/runtime.h"
#include "runtime/settings_registration_ompi.h"

namespace {

int component_register();
int component_open();
int init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t* comm_query(ompi_communicator_t* comm, int* priority);

}  // namespace

extern "C" {
__attribute__((visibility("default"))) MPIMON_COLL_COMPONENT_TYPE MPIMON_COMPONENT_SYMBOL = {
    .collm_version = MPIMON_COMPONENT_VERSION(MPIMON_COLL_BASE_VERSION, component_open, nullptr, component_register),
    .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .collm_init_query = init_query,
    .collm_comm_query = comm_query,
};
}

namespace {

using mpimon::CollectiveClass;
using mpimon::Runtime;

// coll_monitoring_{o2a,a2o,a2a}_{count,size}: this process's totals for the bound
// communicator (COUNTER / AGGREGATE, one value; the MPI_T core reports the increase
// while a handle runs, which works because totals never decrease).
struct ClassVariable {
  CollectiveClass klass;
  bool bytes;
};

int read_class_variable(const mca_base_pvar_t* pvar, void* value, void* obj) {
  if (!mpimon::pvars::communicator_still_bound(obj)) return OMPI_ERR_NOT_FOUND;  // freed (or never valid)
  const auto* variable = static_cast<const ClassVariable*>(pvar->ctx);
  const mpimon::CommunicatorClasses* classes = mpimon::coll::classes_of(static_cast<ompi_communicator_t*>(obj));
  const mpimon::ClassTotals totals = classes ? classes->totals(variable->klass) : mpimon::ClassTotals{};
  *static_cast<unsigned long long*>(value) = variable->bytes ? totals.bytes : totals.count;
  return OMPI_SUCCESS;
}

// Never an error at bind: Open MPI's core crashes on one (see live/pvar_handle_check.h).
int notify_class_variable(mca_base_pvar_t*, mca_base_pvar_event_t event, void* obj, int* count) {
  if (event == MCA_BASE_PVAR_HANDLE_BIND) *count = mpimon::pvars::bind_communicator(obj) ? 1 : 0;
  return OMPI_SUCCESS;
}

void register_class_variables() {
  static const struct {
    const char* name;
    const char* description;
    ClassVariable variable;
  } table[] = {
      {"o2a_count",
       "Number of one-to-all collectives (bcast, scatter) this process sent in (mpimon)",
       {CollectiveClass::one_to_all, false}},
      {"a2o_count",
       "Number of all-to-one collectives (gather, reduce) this process sent in (mpimon)",
       {CollectiveClass::all_to_one, false}},
      {"a2a_count",
       "Number of all-to-all collectives this process sent in (mpimon)",
       {CollectiveClass::all_to_all, false}},
      {"o2a_size", "Bytes this process sent in one-to-all collectives (mpimon)", {CollectiveClass::one_to_all, true}},
      {"a2o_size", "Bytes this process sent in all-to-one collectives (mpimon)", {CollectiveClass::all_to_one, true}},
      {"a2a_size", "Bytes this process sent in all-to-all collectives (mpimon)", {CollectiveClass::all_to_all, true}},
  };
  for (const auto& row : table) {
    mca_base_pvar_register("ompi", "coll", MPIMON_VARIABLES_NAME, row.name, row.description, OPAL_INFO_LVL_4,
                           row.variable.bytes ? MCA_BASE_PVAR_CLASS_AGGREGATE : MCA_BASE_PVAR_CLASS_COUNTER,
                           MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, nullptr, MPI_T_BIND_MPI_COMM,
                           MCA_BASE_PVAR_FLAG_READONLY, read_class_variable, nullptr, notify_class_variable,
                           const_cast<ClassVariable*>(&row.variable));
  }
}

// coll_monitoring_nbc_*: the nonblocking collectives this process followed on the bound
// communicator (analyses/nbc_overlap.h), one value each. The overlap reads NaN when
// nothing was measured (no call followed: nbc_followed is 0, or only calls without a
// message of their own): not measured is never a number (docs/pvars.md).
enum class NbcVariable { overlap, blocked_time, duration, calls, followed };

int read_nbc_variable(const mca_base_pvar_t* pvar, void* value, void* obj) {
  const auto which = static_cast<NbcVariable>(reinterpret_cast<uintptr_t>(pvar->ctx));
  const mpimon::CommunicatorClasses* classes = mpimon::coll::classes_of(static_cast<ompi_communicator_t*>(obj));
  const mpimon::NbcTracker& tracker = Runtime::instance().nbc;
  mpimon::NbcTotals totals;
  tracker.read([&] {
    if (classes != nullptr && classes->nbc() != nullptr) totals = *classes->nbc();
  });
  const mpimon::NbcKindTotals all = totals.sum();
  const double seconds_per_tick = tracker.clock().seconds_per_tick();
  switch (which) {
    case NbcVariable::overlap:
      *static_cast<double*>(value) = totals.byte_weighted_overlap();
      break;
    case NbcVariable::blocked_time:
      *static_cast<double*>(value) = static_cast<double>(all.blocked_ticks) * seconds_per_tick;
      break;
    case NbcVariable::duration:
      *static_cast<double*>(value) = static_cast<double>(all.duration_ticks) * seconds_per_tick;
      break;
    case NbcVariable::calls:
      *static_cast<unsigned long long*>(value) = all.calls;
      break;
    case NbcVariable::followed:
      *static_cast<unsigned long long*>(value) = all.followed;
      break;
  }
  return OMPI_SUCCESS;
}

void register_nbc_variables() {
  static const struct {
    const char* name;
    const char* description;
    int klass;  // MCA_BASE_PVAR_CLASS_*
    NbcVariable variable;
  } table[] = {
      {"nbc_overlap",
       "Byte-weighted overlap of the nonblocking collectives this process followed and completed on the "
       "communicator: the share of their point-to-point bytes posted before the application started to wait for "
       "them; NaN when nothing was measured (coll_monitoring_nbc_followed 0: not followed) (mpimon)",
       MCA_BASE_PVAR_CLASS_PERCENTAGE, NbcVariable::overlap},
      {"nbc_blocked_time",
       "Seconds this process spent blocked in wait calls on nonblocking collectives of the communicator (mpimon)",
       MCA_BASE_PVAR_CLASS_TIMER, NbcVariable::blocked_time},
      {"nbc_duration",
       "Seconds from call to completion of the nonblocking collectives this process completed on the "
       "communicator, summed (mpimon)",
       MCA_BASE_PVAR_CLASS_TIMER, NbcVariable::duration},
      {"nbc_calls", "Nonblocking collectives this process followed and completed on the communicator (mpimon)",
       MCA_BASE_PVAR_CLASS_COUNTER, NbcVariable::calls},
      {"nbc_followed",
       "Nonblocking collectives of the application followed on the communicator (mpimon; "
       "coll_monitoring_nbc_exact_calls, coll_monitoring_nbc_sampling): 0 means the other nbc variables measured "
       "nothing",
       MCA_BASE_PVAR_CLASS_COUNTER, NbcVariable::followed},
  };
  for (const auto& row : table) {
    mca_base_pvar_register(
        "ompi", "coll", MPIMON_VARIABLES_NAME, row.name, row.description, OPAL_INFO_LVL_4, row.klass,
        row.klass == MCA_BASE_PVAR_CLASS_COUNTER ? MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG : MCA_BASE_VAR_TYPE_DOUBLE,
        nullptr, MPI_T_BIND_MPI_COMM, MCA_BASE_PVAR_FLAG_READONLY, read_nbc_variable, nullptr, notify_class_variable,
        reinterpret_cast<void*>(static_cast<uintptr_t>(row.variable)));
  }
}

int nbc_sampling = 128;    // coll_monitoring_nbc_sampling
int nbc_exact_calls = 64;  // coll_monitoring_nbc_exact_calls

int component_register() {
  // Before anything touches an Open MPI object (runtime/build_match_ompi.h).
  if (!mpimon::loaded_open_mpi_matches()) return OPAL_ERR_NOT_AVAILABLE;
  mpimon::register_settings();  // when our PML was left out: see comm_query
  // A second call (component_open) registers again and says nothing again.
  static bool first_call = true;
  const bool warn = std::exchange(first_call, false);
  // Following every nonblocking collective costs more per call than Open MPI's whole
  // monitoring of it (docs/nbc-overlap.md#cost-and-sampling): the first 64 calls of each
  // communicator are all followed (exact figures for an application with few; at most
  // 64 x ~1 000 instructions per communicator), one in 128 after them (the smallest
  // power of two that keeps MPI_Ibcast under Open MPI's component).
  static const mpimon::IntParameter nbc_exact_calls_parameter{
      "nbc_exact_calls", "coll_monitoring_nbc_exact_calls",
      "How many nonblocking collectives of the application are all followed for their overlap on each "
      "communicator, before coll_monitoring_nbc_sampling applies (mpimon; default 64, 0: sampling from the first "
      "call)",
      "N >= 0, the first N calls of each communicator", 64};
  static const mpimon::IntParameter nbc_sampling_parameter{
      "nbc_sampling", "coll_monitoring_nbc_sampling",
      "Which nonblocking collectives of the application are followed for their overlap after the first "
      "coll_monitoring_nbc_exact_calls of each communicator (mpimon; coll_monitoring_nbc_* performance variables, "
      "'# NBC' lines of the .prof files, nbc_overlap lines of the job file): 1 every call (exact figures), N >= 2 "
      "one call in N on average, drawn at random (default 128), 0 none",
      "0 (none), 1 (every call) or N >= 2 (one in N)", 128};
  std::string warning;
  mpimon::register_int_parameter("coll", nbc_exact_calls_parameter, nbc_exact_calls, warning);
  if (!warning.empty())
    mpimon::warn_once_per_job(warning + ": the first 64 nonblocking collectives of each communicator followed");
  warning.clear();
  mpimon::register_int_parameter("coll", nbc_sampling_parameter, nbc_sampling, warning);
  if (warn && !warning.empty()) mpimon::warn_once_per_job(warning + ": one nonblocking collective in 128 followed");
  mpimon::coll::set_nbc_schedule(
      mpimon::NbcSchedule{static_cast<uint32_t>(nbc_exact_calls), static_cast<uint32_t>(nbc_sampling)});
  mpimon::pvars::register_peer_variables("coll", "messages", "collective messages sent", mpimon::Category::coll);
  register_class_variables();
  register_nbc_variables();
  return OMPI_SUCCESS;
}

// After Open MPI 5 closed its own excluded components (mca_values_ompi.h,
// monitoring_variables_deregistered): our variables again.
int component_open() {
  if (mpimon::monitoring_variables_deregistered("coll")) component_register();
  return OMPI_SUCCESS;
}

int init_query(bool, bool) { return OMPI_SUCCESS; }

void dump_communicators(Runtime::LayerDump& out) {
  Runtime& runtime = Runtime::instance();
  out.prof.collectives += mpimon::format_prof_communicators(runtime.world_rank(), runtime.communicators);
  out.job_annotations += mpimon::format_job_communicators(runtime.world_rank(), runtime.communicators);
  const double seconds_per_tick = runtime.nbc.clock().seconds_per_tick();
  const mpimon::NbcSchedule& schedule = mpimon::coll::nbc_schedule();
  std::string prof_nbc, job_nbc;
  runtime.nbc.read([&] {
    prof_nbc = mpimon::format_prof_nbc(runtime.world_rank(), runtime.communicators, seconds_per_tick, schedule);
    job_nbc = mpimon::format_job_nbc(runtime.world_rank(), runtime.communicators, seconds_per_tick, schedule);
  });
  out.prof.collectives += prof_nbc;
  out.job_annotations += job_nbc;
}

bool layer_active() {
  Runtime& runtime = Runtime::instance();
  if (runtime.settings.enable_level <= 0 || !runtime.started()) return false;
  static bool started = [&] {
    mpimon::coll::start();
    runtime.add_layer(mpimon::coll::set_recording);
    runtime.add_dump_provider(dump_communicators);
    // The runtime calls dump_communicators at MPI_Finalize, and the events library keeps
    // writing our listening flags as long as tools allocate and free handles (also after
    // MPI_Finalize): our code and data must stay loaded.
    mca_base_component_repository_retain_component("coll", MPIMON_COMPONENT_NAME);
    return true;
  }();
  return started && mpimon::coll::recording_now();  // not on our own private communicator
}

mca_coll_base_module_t* comm_query(ompi_communicator_t*, int* priority) {
  if (!layer_active()) {
    mpimon::warn_pml_left_out();  // the first communicator comes after PML selection
    return nullptr;
  }
  *priority = 100;  // the maximum: enabled after every other module
  return mpimon::coll::new_module();
}

}  // namespace
