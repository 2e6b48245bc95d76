#include "runtime/runtime.h"
#include "runtime/warnings.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>

#include "formats/job_format.h"
#include "mpit_events_producer.h"
#include "runtime/deployment_check_ompi.h"
#include "runtime/mca_values.h"
#include "runtime/ompi_glue.h"
#include "runtime/program_name.h"

#include <mpi.h>
#include "formats/prof_format.h"
#include "runtime/end_of_job_files_ompi.h"
#include "runtime/lifecycle_events_ompi.h"
#include "runtime/site_log_ompi.h"

#include <ompi/mca/hook/base/base.h>

namespace mpimon {

Runtime& Runtime::instance() {
  static Runtime* runtime = new Runtime();  // never destroyed: used until process exit
  return *runtime;
}

void warn(const std::string& message) { warn_line("mpimon", message, WarningScope::every_process); }

void warn_once_per_job(const std::string& message) {
  if (launcher_world_rank() > 0) return;
  // Once per process too: Open MPI may unload a component and load it again (a
  // component's static flag starts anew), and its registration then warns again; this
  // library stays loaded.
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (said.insert(message).second) warn(message);
}

void Runtime::add_layer(RecordingSwitch recording_switch) { layers_.push_back(recording_switch); }

void Runtime::add_dump_provider(DumpProvider provider) { dump_providers_.push_back(provider); }

Runtime::LayerDump Runtime::layer_dumps() const {
  LayerDump dump;
  for (DumpProvider provider : dump_providers_) provider(dump);
  return dump;
}

void Runtime::add_observer(Observer observer) { observers_.push_back(observer); }

void Runtime::notify_started() {
  // Observers may make collective calls (the time series agrees on its run number): none
  // in a mixed deployment, where the ranks without our components would never join.
  if (!all_ranks_monitored_) return;
  for (const Observer& observer : observers_) observer.started();
}

void Runtime::set_recording(bool on) {
  for (RecordingSwitch s : layers_) s(on);
}

void Runtime::add_private_communicator(uint32_t context_id) {
  if (context_id >= kPrivateCommunicatorLimit) return;
  private_communicators_[context_id / 64].fetch_or(uint64_t{1} << (context_id % 64), std::memory_order_release);
  if (!private_filter_on_ && private_filter_switch_ != nullptr) {
    private_filter_on_ = true;
    private_filter_switch_();
  }
}

void Runtime::remove_private_communicator(uint32_t context_id) {
  if (context_id >= kPrivateCommunicatorLimit) return;
  private_communicators_[context_id / 64].fetch_and(~(uint64_t{1} << (context_id % 64)), std::memory_order_release);
}

namespace {

void on_mpi_init_bottom(int, char**, int, int* provided) {
  Runtime::instance().init_bottom();
  Runtime::instance().notify_started();
  raise_initialization(provided != nullptr ? *provided : MPI_THREAD_SINGLE, Runtime::instance().engine.threaded());
}
void on_mpi_finalize_top() {
  // A safe point for MPI_T event callbacks of any safety level: instances still queued
  // are delivered before the end-of-job dump pauses our layers.
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  raise_finalization(Runtime::instance().engine.threaded());
  Runtime::instance().finalize_dump();
}

ompi_hook_base_component_t hooks = [] {
  ompi_hook_base_component_t hook{};
  hook.hookm_mpi_init_bottom = on_mpi_init_bottom;
  hook.hookm_mpi_finalize_top = on_mpi_finalize_top;
  return hook;
}();

}  // namespace

// The tag of the start-up check (runtime/deployment_check.h): the version, and the site log's
// root when it is on. The site log makes collective calls at MPI_Finalize that only ranks
// with it on make: a host configured otherwise (another openmpi-mca-params.conf) must make
// the job run unmonitored with one line, not hang (docs/site-deployment.md).
std::string Runtime::deployment_tag() const {
  std::string tag = components_tag(MPIMON_VERSION_MAJOR, MPIMON_VERSION_MINOR, MPIMON_VERSION_PATCH);
  if (!settings.site_log_root.empty()) tag += " site log " + settings.site_log_root;
  return tag;
}

bool Runtime::start(int world_rank, bool threaded, std::string& error) {
  if (started_) return true;
  world_rank_ = world_rank;
  engine.set_threaded(threaded);
  start_time_ = static_cast<long long>(std::time(nullptr));
  // Before the hooks: without the tag, the other ranks would take this one for a rank
  // without our components, and the job would run unmonitored.
  if (std::string problem = publish_components_tag(deployment_tag()); !problem.empty())
    warn("rank " + std::to_string(world_rank) + ": " + problem);
  watch_lifecycle_events();
  if (ompi_hook_base_register_callbacks(&hooks) != OMPI_SUCCESS) {
    error = "cannot register the MPI_Init/MPI_Finalize hooks: no end-of-job dump";
    return false;
  }
  started_ = true;
  return true;
}

void Runtime::init_bottom() {
  const auto started = std::chrono::steady_clock::now();
  const int world_size = ompi_comm_size(&ompi_mpi_comm_world.comm);
  const std::string tag = deployment_tag();
  const std::vector<HostReport> reports = probe_hosts(world_size);
  const DeploymentVerdict verdict = judge_deployment(reports, tag);
  all_ranks_monitored_ = verdict.all_monitored;
  if (settings.verbose && world_rank_ == 0 && all_ranks_monitored_) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    char took[32];
    std::snprintf(took, sizeof took, "%.2f ms", ms);
    warn("start-up check: all " + std::to_string(world_size) + " ranks run " + tag + " (" +
         std::to_string(reports.size()) + " ranks looked at, " + took + ")");
  }
  if (all_ranks_monitored_) return;
  set_recording(false);  // for good: this job runs unmonitored
  if (world_rank_ == verdict.reporting_rank) warn(verdict.line);
}

void Runtime::finalize_dump() {
  if (dumped_) return;
  dumped_ = true;
  if (!all_ranks_monitored_) return;  // a mixed deployment: nothing recorded, no collective call
  set_recording(false);               // nothing below may count itself
  const Snapshot records = engine.snapshot();
  LayerDump layers = layer_dumps();
  for (const Observer& observer : observers_) observer.ending(records, layers);
  if (std::string problem = write_prof_dump(settings, world_rank_, records, layers.prof); !problem.empty())
    warn_once_per_job(problem);
  write_dump_files(records, layers);
  set_recording(true);
}

std::string running_open_mpi_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  PMPI_Get_library_version(text, &length);
  const auto v = parse_library_version(text);
  return v ? std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->release) : "unknown";
}

// The per-rank .prof files and the job file, written together (runtime/end_of_job_files_ompi.h) on
// the private communicator (duplicated now if MPI_Init did not).
void Runtime::write_dump_files(const Snapshot& records, const LayerDump& layers) {
  EndOfJobContent content;
  content.prof_to_file = settings.dump_target == DumpTarget::file && !settings.dump_prefix.empty();
  content.job_file = !settings.job_file.empty();
  const bool site_log = !settings.site_log_root.empty();  // mpimon_log_path (runtime/site_log_ompi.h)
  if (!content.prof_to_file && !content.job_file && !site_log) return;
  // Collective: only when every rank runs our components (a mixed deployment would hang
  // here). Duplicated now, at the start of MPI_Finalize with recording paused, not in
  // MPI_Init: the application's communicators keep the numbers Open MPI gives them.
  if (!all_ranks_monitored_) return;
  ompi_communicator_t* comm = nullptr;
  if (ompi_comm_dup(&ompi_mpi_comm_world.comm, &comm) != OMPI_SUCCESS) {
    warn_once_per_job("cannot duplicate MPI_COMM_WORLD for the end-of-job files: no job file, no .prof files");
    return;
  }
  if (content.prof_to_file)
    content.prof_text = format_prof(world_rank_, records, settings.split_internal(), layers.prof);
  if (content.job_file || site_log) {
    if (world_rank_ == 0) {
      content.job_header.world_size = ompi_comm_size(comm);
      content.job_header.enable_level = settings.enable_level;
      content.job_header.open_mpi_version = running_open_mpi_version();
      content.job_header.start_time = iso8601_utc(start_time_);
      content.job_header.end_time = iso8601_utc(static_cast<long long>(std::time(nullptr)));
    }
    content.job_body = format_job_records(world_rank_, records) + layers.job_annotations;
    if (world_rank_ == 0) content.job_body += format_job_program(program_name());
  }
  write_end_of_job_files(comm, settings, world_rank_, content);
  // The site log: the same header and blocks, gathered at rank 0 (the same text as the
  // job file plus the `site` annotations), compressed into the dated folder.
  if (site_log) write_site_log(comm, settings, world_rank_, content.job_header, content.job_body, start_time_);
  ompi_comm_free(&comm);
}

std::string write_prof_dump(const Settings& settings, int world_rank, const Snapshot& records,
                            const ProfExtras& extras) {
  if (settings.dump_target == DumpTarget::none) return {};
  if (settings.dump_target == DumpTarget::file)  // written collectively by write_dump_files
    return settings.dump_prefix.empty() ? "pml_monitoring_enable_output asks for a file but pml_monitoring_filename "
                                          "is empty: no .prof files written"
                                        : std::string();
  const std::string text = format_prof(world_rank, records, settings.split_internal(), extras);
  // One write per rank keeps ranks' dumps from interleaving line by line.
  FILE* stream = settings.dump_target == DumpTarget::standard_output ? stdout : stderr;
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
  return {};
}

}  // namespace mpimon
