#include "runtime.h"

#include <cstdio>

#include "atomic_file.h"
#include "ompi_glue.h"
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

void Runtime::add_layer(RecordingSwitch recording_switch) { layers_.push_back(recording_switch); }

void Runtime::set_recording(bool on) {
  for (RecordingSwitch s : layers_) s(on);
}

namespace {

void on_mpi_finalize_top() { Runtime::instance().finalize_dump(); }

ompi_hook_base_component_t finalize_hook = [] {
  ompi_hook_base_component_t hook{};
  hook.hookm_mpi_finalize_top = on_mpi_finalize_top;
  return hook;
}();

}  // namespace

bool Runtime::start(int world_rank, bool threaded, std::string& error) {
  if (started_) return true;
  world_rank_ = world_rank;
  engine.set_threaded(threaded);
  if (ompi_hook_base_register_callbacks(&finalize_hook) != OMPI_SUCCESS) {
    error = "cannot register the MPI_Finalize hook: no end-of-job dump";
    return false;
  }
  started_ = true;
  return true;
}

void Runtime::finalize_dump() {
  if (dumped_) return;
  dumped_ = true;
  set_recording(false);  // nothing below may count itself
  const Snapshot records = engine.snapshot();
  if (std::string problem = write_prof_dump(settings, world_rank_, records); !problem.empty()) warn(problem);
  set_recording(true);
}

std::string write_prof_dump(const Settings& settings, int world_rank, const Snapshot& records) {
  if (settings.dump_target == DumpTarget::none) return {};
  const std::string text = format_prof(world_rank, records, settings.split_internal());
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
