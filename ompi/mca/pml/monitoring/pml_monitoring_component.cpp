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

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ompi/mca/pml/base/base.h>
#include <opal/mca/base/base.h>
#include <opal/mca/base/mca_base_component_repository.h>

#include "live/file_pvars.h"
#include "live/pvars.h"
#include "runtime/component_version.h"
#include "runtime/mca_values.h"
#include "runtime/mca_values_ompi.h"
#include "runtime/runtime.h"

namespace {

int component_register();
int component_open();
int component_close();
mca_pml_base_module_t* component_init(int* priority, bool enable_progress_threads, bool enable_mpi_threads);
int component_finalize();

}  // namespace

extern "C" {
__attribute__((visibility("default"))) mca_pml_base_component_2_0_0_t mca_pml_monitoring_component = {
    .pmlm_version =
        MPIMON_COMPONENT_VERSION(MCA_PML_BASE_VERSION_2_0_0, component_open, component_close, component_register),
    .pmlm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .pmlm_init = component_init,
    .pmlm_finalize = component_finalize,
};
}

namespace {

using mpimon::Runtime;
using mpimon::warn_once_per_job;

// Storage of our MCA variables. The integers are Open MPI integers whose text we check
// ourselves (runtime/mca_values_ompi.h).
int enable_level = 0;
int enable_output = 0;
int verbose_level = 0;
char* filename_text = nullptr;
char* job_file_text = nullptr;
char* snapshot_interval_text = nullptr;

// pml_monitoring_snapshot_interval: the default, and what is accepted (docs/time-series.md,
// "Why 10 s": 10 s keeps a 100 000-rank hour to about 14 GB; 0.01 s is a hundred
// snapshots per second per process).
constexpr double kDefaultSnapshotInterval = 10;
constexpr double kShortestSnapshotInterval = 0.01, kLongestSnapshotInterval = 86400;

bool interposed = false;
bool threaded = false;  // MPI_THREAD_MULTIPLE, as told to init

// Refuse to run against another Open MPI major.minor than the one we were built for.
bool running_library_compatible() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  const auto running = mpimon::parse_library_version(text);
  const mpimon::OmpiVersion built{MPIMON_BUILT_OMPI_MAJOR, MPIMON_BUILT_OMPI_MINOR, MPIMON_BUILT_OMPI_RELEASE};
  const std::string built_text =
      std::to_string(built.major) + "." + std::to_string(built.minor) + "." + std::to_string(built.release);
  if (!running) {
    warn_once_per_job("cannot tell the running Open MPI's version ('" + std::string(text) + "'); built for " +
                      built_text + "; monitoring disabled");
    return false;
  }
  const std::string running_text =
      std::to_string(running->major) + "." + std::to_string(running->minor) + "." + std::to_string(running->release);
  switch (mpimon::compare_versions(built, *running)) {
    case mpimon::VersionVerdict::same:
      return true;
    case mpimon::VersionVerdict::other_release:
      warn_once_per_job("built for Open MPI " + built_text + ", running " + running_text +
                        " (same major.minor: monitoring stays on)");
      return true;
    case mpimon::VersionVerdict::incompatible:
      warn_once_per_job("built for Open MPI " + built_text + ", running " + running_text +
                        ": internal structures differ, monitoring disabled (the job runs unmonitored)");
      return false;
  }
  return false;
}

const mpimon::IntParameter kEnable{
    "enable", "pml_monitoring_enable",
    "Monitoring of point-to-point traffic (mpimon): 0 off (default); 1 all point-to-point traffic in one "
    "category; 2 or more: internal traffic (negative tags: collectives, protocol) kept apart from the "
    "application's",
    "0 off, 1 all point-to-point traffic together, 2 or more internal traffic kept apart", 0};
const mpimon::IntParameter kEnableOutput{
    "enable_output",
    "pml_monitoring_enable_output",
    "End-of-job dump in Open MPI's .prof text (mpimon): 0 none (default); 1 stdout; 2 stderr; 3 or more: "
    "file <pml_monitoring_filename>.<world rank>.prof",
    "0 none, 1 stdout, 2 stderr, 3 or more file",
    0,
    INT_MAX,
    OPAL_INFO_LVL_9};
const mpimon::IntParameter kVerbose{
    "verbose",
    "pml_monitoring_verbose",
    "Report the start-up check of the deployment and the size and writing time of the end-of-job dumps on stderr "
    "(mpimon): 0 (default) off, 1 or more on",
    "0 off, 1 or more on",
    0,
    INT_MAX,
    OPAL_INFO_LVL_9};

int component_register() {
  filename_text = nullptr;
  static char default_job_file[] = "mpimon-job.txt";
  job_file_text = default_job_file;
  static char default_interval[] = "10";
  snapshot_interval_text = default_interval;
  auto* version = &mca_pml_monitoring_component.pmlm_version;
  const auto no_flags = static_cast<mca_base_var_flag_t>(0);
  mpimon::Settings& settings = Runtime::instance().settings;
  std::string warning;
  settings.enable_level = mpimon::register_int_parameter(version, kEnable, enable_level, warning);
  if (!warning.empty()) warn_once_per_job(warning + ": monitoring off, the job runs on");
  const int output = mpimon::register_int_parameter(version, kEnableOutput, enable_output, warning);
  if (!warning.empty()) warn_once_per_job(warning + ": no end-of-job dump");
  settings.verbose = mpimon::register_int_parameter(version, kVerbose, verbose_level, warning) > 0;
  if (!warning.empty()) warn_once_per_job(warning);
  mca_base_component_var_register(
      version, "filename", "Prefix of the per-rank dump files (mpimon): <prefix>.<world rank>.prof",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &filename_text);
  mca_base_component_var_register(
      version, "job_file",
      "The one machine-readable file of the whole job, written at MPI_Finalize whenever monitoring is on "
      "(mpimon); an existing file is never overwritten (<name>.<n> is used instead); empty: no job file",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &job_file_text);
  mca_base_component_var_register(
      version, "snapshot_interval",
      "Time series (mpimon): every this many seconds (fractions allowed, e.g. 0.5), each process appends what "
      "changed in its totals to <job file>.series/<host>, read by mpimon even if the job dies; 0: none. "
      "Default 10",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
      &snapshot_interval_text);
  settings.dump_target = output >= 3 ? mpimon::DumpTarget::file : static_cast<mpimon::DumpTarget>(output);
  settings.dump_prefix = filename_text ? filename_text : "";
  settings.job_file = job_file_text ? job_file_text : "";
  warning.clear();
  const double interval =
      mpimon::checked_seconds("pml_monitoring_snapshot_interval", snapshot_interval_text, kDefaultSnapshotInterval,
                              kShortestSnapshotInterval, kLongestSnapshotInterval, warning);
  if (!warning.empty()) warn_once_per_job(warning);
  settings.snapshot_interval_us = static_cast<int64_t>(interval * 1e6 + 0.5);
  if (settings.enable_level > 0 && !running_library_compatible()) settings.enable_level = 0;

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
  // Selection only considers PMLs named in mca_pml_base_pml (filled with ob1, ucx, ...
  // or the user's --mca pml list): add ourselves when monitoring is on.
  if (Runtime::instance().settings.enable_level > 0)
    opal_pointer_array_add(&mca_pml_base_pml, strdup(mca_pml_monitoring_component.pmlm_version.mca_component_name));
  return OMPI_SUCCESS;
}

int component_close() { return OMPI_SUCCESS; }  // ompi_info opens and closes us: nothing to undo

// Never used for communication: selection only needs a non-NULL module from a candidate.
mca_pml_base_module_t placeholder_module{};

mca_pml_base_module_t* component_init(int* priority, bool, bool enable_mpi_threads) {
  if (Runtime::instance().settings.enable_level <= 0) return nullptr;
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
    if (item->cli_component == &mca_pml_monitoring_component.pmlm_version) {
      opal_list_remove_item(components, &item->super);
      OBJ_RELEASE(item);
      break;
    }
  }
  mca_base_component_repository_retain_component("pml", "monitoring");
}

int component_finalize() {
  if (interposed) return OMPI_SUCCESS;
  interposed = true;
  const char* selected = mca_pml_base_selected_component.pmlm_version.mca_component_name;
  if (mca_pml.pml_isend == nullptr || std::strcmp(selected, "monitoring") == 0) {
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
