#include "runtime.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "atomic_file.h"
#include "job_format.h"
#include "mpit_events_producer.h"
#include "mca_values.h"
#include "ompi_glue.h"

#include <mpi.h>
#include "prof_format.h"

#include <ompi/mca/hook/base/base.h>

namespace mpimon {

Runtime& Runtime::instance() {
  static Runtime* runtime = new Runtime();  // never destroyed: used until process exit
  return *runtime;
}

void warn(const std::string& message) {
  std::string line = message.rfind("mpimon: ", 0) == 0 ? message : "mpimon: " + message;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void warn_once_per_job(const std::string& message) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank == nullptr || std::strcmp(rank, "0") == 0) warn(message);
}

void Runtime::add_layer(RecordingSwitch recording_switch) { layers_.push_back(recording_switch); }

void Runtime::add_dump_provider(DumpProvider provider) { dump_providers_.push_back(provider); }

Runtime::LayerDump Runtime::layer_dumps() const {
  LayerDump dump;
  for (DumpProvider provider : dump_providers_) provider(dump);
  return dump;
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

void on_mpi_init_bottom(int, char**, int, int*) { Runtime::instance().init_bottom(); }
void on_mpi_finalize_top() {
  // A safe point for MPI_T event callbacks of any safety level: instances still queued
  // are delivered before the end-of-job dump pauses our layers.
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  Runtime::instance().finalize_dump();
}

ompi_hook_base_component_t hooks = [] {
  ompi_hook_base_component_t hook{};
  hook.hookm_mpi_init_bottom = on_mpi_init_bottom;
  hook.hookm_mpi_finalize_top = on_mpi_finalize_top;
  return hook;
}();

}  // namespace

bool Runtime::start(int world_rank, bool threaded, std::string& error) {
  if (started_) return true;
  world_rank_ = world_rank;
  engine.set_threaded(threaded);
  start_time_ = static_cast<long long>(std::time(nullptr));
  if (ompi_hook_base_register_callbacks(&hooks) != OMPI_SUCCESS) {
    error = "cannot register the MPI_Init/MPI_Finalize hooks: no end-of-job dump";
    return false;
  }
  started_ = true;
  return true;
}

void Runtime::init_bottom() {
  if (private_comm_ != nullptr || settings.job_file.empty()) return;
  set_recording(false);  // the dup's own agreement traffic is ours, not the application's
  ompi_communicator_t* comm = nullptr;
  if (ompi_comm_dup(&ompi_mpi_comm_world.comm, &comm) == OMPI_SUCCESS) {
    std::snprintf(comm->c_name, sizeof comm->c_name, "mpimon private");
    private_comm_ = comm;
  } else if (world_rank_ == 0) {
    warn("cannot duplicate MPI_COMM_WORLD for the job file: no job file");
  }
  set_recording(true);
}

void Runtime::finalize_dump() {
  if (dumped_) return;
  dumped_ = true;
  set_recording(false);  // nothing below may count itself
  const Snapshot records = engine.snapshot();
  const LayerDump layers = layer_dumps();
  if (std::string problem = write_prof_dump(settings, world_rank_, records, layers.prof); !problem.empty())
    warn(problem);
  if (private_comm_ != nullptr) write_job_file(records, layers.job_annotations);
  set_recording(true);
}

namespace {

std::string running_open_mpi_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  PMPI_Get_library_version(text, &length);
  const auto v = parse_library_version(text);
  return v ? std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->release) : "unknown";
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  PMPI_Error_string(code, text, &length);
  return text;
}

// <name>, or <name>.<n> for the first n >= 1 that does not exist yet.
std::string first_free_name(const std::string& name) {
  std::error_code ec;
  if (!std::filesystem::exists(name, ec)) return name;
  for (int n = 1;; ++n) {
    const std::string candidate = name + "." + std::to_string(n);
    if (!std::filesystem::exists(candidate, ec)) return candidate;
  }
}

}  // namespace

// Each rank writes its own block (O(its non-zeros), nothing gathered anywhere) with one
// collective MPI-IO call at the offset an exscan gives, into a temporary name that rank
// 0 renames once every rank is done. A failure anywhere leaves no file.
void Runtime::write_job_file(const Snapshot& records, const std::string& annotations) {
  const auto started = std::chrono::steady_clock::now();
  auto* comm = static_cast<ompi_communicator_t*>(private_comm_);
  std::string block;
  if (world_rank_ == 0) {
    JobHeader header;
    header.world_size = ompi_comm_size(comm);
    header.enable_level = settings.enable_level;
    header.open_mpi_version = running_open_mpi_version();
    header.start_time = iso8601_utc(start_time_);
    header.end_time = iso8601_utc(static_cast<long long>(std::time(nullptr)));
    block = format_job_header(header);
  }
  block += format_job_records(world_rank_, records);
  block += annotations;

  unsigned long long length = block.size(), offset = 0;
  PMPI_Exscan(&length, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  if (world_rank_ == 0) offset = 0;  // Exscan leaves rank 0's result undefined

  // Same temporary name on every rank: derived from the job id.
  const std::filesystem::path final_path(settings.job_file);
  const std::string temporary =
      (final_path.parent_path() / ("." + final_path.filename().string() + ".mpimon-tmp." +
                                   std::to_string(ompi_proc_local_proc->super.proc_name.jobid)))
          .string();
  std::string problem;
  MPI_File file;
  int rc = PMPI_File_open(comm, temporary.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  if (rc != MPI_SUCCESS) {
    problem = "cannot create " + temporary + ": " + mpi_error_text(rc);
  } else {
    rc = PMPI_File_set_size(file, 0);  // a stale temporary from a crashed run
    if (rc == MPI_SUCCESS && length > static_cast<unsigned long long>(INT32_MAX)) rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS)
      rc = PMPI_File_write_at_all(file, static_cast<MPI_Offset>(offset), block.data(), static_cast<int>(length),
                                  MPI_CHAR, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) problem = "cannot write " + temporary + ": " + mpi_error_text(rc);
    const int close_rc = PMPI_File_close(&file);
    if (problem.empty() && close_rc != MPI_SUCCESS) problem = "cannot close " + temporary + ": " + mpi_error_text(close_rc);
  }
  // Everyone learns whether anyone failed (this also orders every write before the rename).
  int failed = problem.empty() ? 0 : 1, any_failed = 0;
  PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
  if (world_rank_ == 0) {
    if (any_failed) {
      std::error_code ec;
      std::filesystem::remove(temporary, ec);
      warn("job file " + settings.job_file + " not written: " +
           (problem.empty() ? std::string("another rank failed to write its records") : problem));
    } else {
      const std::string name = first_free_name(settings.job_file);
      if (std::rename(temporary.c_str(), name.c_str()) != 0) {
        warn("job file " + name + " not written: cannot rename " + temporary + ": " + std::strerror(errno));
        std::remove(temporary.c_str());
      } else {
        if (name != settings.job_file) warn(settings.job_file + " exists: job file written to " + name + " instead");
        if (settings.verbose) {
          const double ms =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
          std::error_code ec;
          warn("job file " + name + ": " + std::to_string(std::filesystem::file_size(name, ec)) + " bytes from " +
               std::to_string(ompi_comm_size(comm)) + " ranks, written in " + std::to_string(ms) + " ms");
        }
      }
    }
  }
  ompi_comm_free(&comm);
  private_comm_ = nullptr;
}

std::string write_prof_dump(const Settings& settings, int world_rank, const Snapshot& records,
                            const ProfExtras& extras) {
  if (settings.dump_target == DumpTarget::none) return {};
  const std::string text = format_prof(world_rank, records, settings.split_internal(), extras);
  if (settings.dump_target == DumpTarget::standard_output || settings.dump_target == DumpTarget::standard_error) {
    // One write per rank keeps ranks' dumps from interleaving line by line.
    FILE* stream = settings.dump_target == DumpTarget::standard_output ? stdout : stderr;
    std::fwrite(text.data(), 1, text.size(), stream);
    std::fflush(stream);
    return {};
  }
  if (settings.dump_prefix.empty())
    return "rank " + std::to_string(world_rank) +
           ": pml_monitoring_enable_output asks for a file but pml_monitoring_filename is empty; no dump written";
  const std::string path = settings.dump_prefix + "." + std::to_string(world_rank) + ".prof";
  if (std::string error = write_file_atomically(path, text); !error.empty())
    return "rank " + std::to_string(world_rank) + ": monitoring dump not written: " + error;
  return {};
}

}  // namespace mpimon
