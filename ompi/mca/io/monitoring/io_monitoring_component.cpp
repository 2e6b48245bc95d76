// Registration and per-file selection of our io component.
//
// Open MPI opens the io framework at the first MPI_File_open (or MPI_File_delete,
// MPI_Register_datarep), after MPI_Init. Our init_query then decides once: when
// monitoring is off (pml_monitoring_enable 0 or io_monitoring_enable 0), or some rank of
// the job runs without our components, it declines and Open MPI closes us: files get the
// real module directly, nothing is interposed. Otherwise every MPI_File_open asks our
// file_query, which runs the selection the io base would have run among the other
// components (highest priority wins, losers are unqueried), opens the frameworks ompio
// needs when ompio wins (the base only does that for a winner named "ompio"), and returns
// at priority 100 the winner's table with our wrappers and the winner's private data.
//
// `--mca io ompio` opens only ompio: name ours too (`--mca io monitoring,ompio`), as
// `mpimon run` does (docs/io.md).
#include "io_monitoring.h"
#include "io_monitoring_events.h"

#include <climits>
#include <string>

#include <ompi/mca/io/base/base.h>
#include <ompi/runtime/mpiruntime.h>
#include <opal/mca/base/base.h>
#include <opal/mca/base/mca_base_component_repository.h>

#include "formats/io_format.h"
#include "runtime/build_match_ompi.h"
#include "runtime/component_version.h"
#include "runtime/mca_values_ompi.h"
#include "runtime/runtime.h"

namespace {

int component_register();
int init_query(bool enable_progress_threads, bool enable_mpi_threads);
const mpimon::io::Module* file_query(ompi_file_t* file, mca_io_base_file_t** private_data, int* priority);
int file_unquery(ompi_file_t* file, mca_io_base_file_t* private_data);
int delete_query(const char* filename, opal_info_t* info, mca_io_base_delete_t** private_data, bool* usable,
                 int* priority);
int delete_unquery(const char* filename, opal_info_t* info, mca_io_base_delete_t* private_data);
int delete_select(const char* filename, opal_info_t* info, mca_io_base_delete_t* private_data);
int register_datarep(const char*, MPI_Datarep_conversion_function*, MPI_Datarep_conversion_function*,
                     MPI_Datarep_extent_function*, void*);

}  // namespace

extern "C" {
__attribute__((visibility("default"))) mpimon::io::Component MPIMON_COMPONENT_SYMBOL = {
    .io_version = MPIMON_COMPONENT_VERSION(MPIMON_IO_BASE_VERSION, nullptr, nullptr, component_register),
    .io_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT, {}},
    .io_init_query = init_query,
    .io_file_query = file_query,
    .io_file_unquery = file_unquery,
    .io_delete_query = delete_query,
    .io_delete_unquery = delete_unquery,
    .io_delete_select = delete_select,
    .io_register_datarep = register_datarep,
};
}

namespace {

using mpimon::Runtime;
namespace io = mpimon::io;

int io_enable = 1;
const mpimon::IntParameter kIoEnable{
    "enable",
    "io_monitoring_enable",
    "Monitoring of MPI-IO (mpimon): 1 (default) whenever pml_monitoring_enable is above 0: what the "
    "application asked, what reached the file system (ompio), the collective-I/O shuffle kept apart; 0 off "
    "(files get the io component Open MPI would choose, nothing interposed)",
    "0 off, 1 on",
    1,
    1};

int component_register() {
  // Before anything touches an Open MPI object (runtime/build_match_ompi.h).
  if (!mpimon::loaded_open_mpi_matches()) return OPAL_ERR_NOT_AVAILABLE;
  std::string warning;
  Runtime& runtime = Runtime::instance();
  runtime.settings.io_enabled = mpimon::register_int_parameter("io", kIoEnable, io_enable, warning) > 0;
  if (!warning.empty()) mpimon::warn_once_per_job(warning + " (the default): MPI-IO is monitored");
  return OMPI_SUCCESS;
}

// The files in the end-of-job dumps and the time series' snapshots (any thread: the
// registry is read under its lock, the records with relaxed loads).
void dump_files(Runtime::LayerDump& out) {
  Runtime& runtime = Runtime::instance();
  const double seconds_per_tick = runtime.files.clock().seconds_per_tick();
  out.prof.io += mpimon::mpi_io::format_prof_files(runtime.world_rank(), runtime.files, seconds_per_tick);
  out.job_annotations += mpimon::mpi_io::format_job_files(runtime.world_rank(), runtime.files, seconds_per_tick);
}

int init_query(bool, bool) {
  Runtime& runtime = Runtime::instance();
  if (runtime.settings.enable_level <= 0 || !runtime.settings.io_enabled || !runtime.started() ||
      !runtime.all_ranks_monitored())
    return OMPI_ERR_NOT_AVAILABLE;  // closed by the io base: files get the real module
  static const bool started = [] {
    // Our wrappers stay in files' module tables until they are closed, perhaps in
    // MPI_Finalize after the io base closed us: keep our code loaded.
    mca_base_component_repository_retain_component("io", MPIMON_COMPONENT_SYMBOL.io_version.mca_component_name);
    Runtime& runtime = Runtime::instance();
    runtime.files.set_threaded(ompi_mpi_thread_multiple);
    runtime.add_layer(io::set_recording);
    runtime.add_dump_provider(dump_files);
    io::start_events(ompi_mpi_thread_multiple);
    return true;
  }();
  return started ? OMPI_SUCCESS : OMPI_ERROR;
}

// One candidate of the selection.
struct Candidate {
  const mpimon::io::Component* component = nullptr;
  const mpimon::io::Module* module = nullptr;
  mca_io_base_file_t* data = nullptr;
  int priority = -1;
};

// The io base's selection among the other components: each answers for this file, the
// highest priority (clamped to [0, 100]) wins, the others are unqueried.
Candidate select_real_module(ompi_file_t* file) {
  Candidate best;
  std::vector<Candidate> losers;
  mca_base_component_list_item_t* item;
  OPAL_LIST_FOREACH(item, &ompi_io_base_framework.framework_components, mca_base_component_list_item_t) {
    const mca_base_component_t* base = item->cli_component;
    if (base == &MPIMON_COMPONENT_SYMBOL.io_version) continue;
    const mca_base_component_t& ours = MPIMON_COMPONENT_SYMBOL.io_version;
    if (base->mca_type_major_version != ours.mca_type_major_version ||
        base->mca_type_minor_version != ours.mca_type_minor_version ||
        base->mca_type_release_version != ours.mca_type_release_version)
      continue;  // the io base only knows its own API version (2.0.0; 3.0.0 from 6.0) too
    Candidate c;
    c.component = reinterpret_cast<const mpimon::io::Component*>(base);
    c.module = c.component->io_file_query(file, &c.data, &c.priority);
    if (c.module == nullptr) continue;
    c.priority = std::min(100, std::max(0, c.priority));
    if (best.module == nullptr || c.priority > best.priority) {
      if (best.module != nullptr) losers.push_back(best);
      best = c;
    } else {
      losers.push_back(c);
    }
  }
  for (const Candidate& c : losers) c.component->io_file_unquery(file, c.data);
  return best;
}

const mpimon::io::Module* file_query(ompi_file_t* file, mca_io_base_file_t** private_data, int* priority) {
  const Candidate real = select_real_module(file);
  if (real.module == nullptr) return nullptr;  // no io component for this file: the base reports it
  const bool ompio = std::string_view(real.component->io_version.mca_component_name) == "ompio";
  if (ompio && io::ompio::open_frameworks() != OMPI_SUCCESS) {
    real.component->io_file_unquery(file, real.data);
    return nullptr;
  }
  io::new_monitored_file(file, real.module, real.component);
  *private_data = real.data;
  *priority = 100;
  return io::monitoring_module(real.module);
}

// We lost (only when another component also answers 100 and the base prefers it): give
// the winner we chose its data back.
int file_unquery(ompi_file_t* file, mca_io_base_file_t* private_data) {
  io::MonitoredFile* f = io::monitored_file(file);
  if (f != nullptr) {
    f->real_component->io_file_unquery(file, private_data);
    io::drop_monitored_file(file);
  }
  return OMPI_SUCCESS;
}

// MPI_File_delete: never ours (the real components delete files).
int delete_query(const char*, opal_info_t*, mca_io_base_delete_t** private_data, bool* usable, int* priority) {
  *private_data = nullptr;
  *usable = false;
  *priority = 0;
  return OMPI_SUCCESS;
}
int delete_unquery(const char*, opal_info_t*, mca_io_base_delete_t*) { return OMPI_SUCCESS; }
int delete_select(const char*, opal_info_t*, mca_io_base_delete_t*) { return OMPI_ERR_NOT_AVAILABLE; }

// MPI_Register_datarep: the base asks every component and returns the first error; the
// real components answer for the data representations they implement.
int register_datarep(const char*, MPI_Datarep_conversion_function*, MPI_Datarep_conversion_function*,
                     MPI_Datarep_extent_function*, void*) {
  return OMPI_SUCCESS;
}

}  // namespace
