// Process-wide monitoring state shared by our PML, COLL and OSC components: the engine,
// the user's settings, the layers that record, and the end-of-job dump.
//
// Lives in libmpimon_monitoring.so (one copy per process whichever components load it).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "communicator_classes.h"
#include "engine.h"
#include "prof_format.h"

namespace mpimon {

// pml_monitoring_enable_output values (as in Open MPI: 3 and above mean "file").
enum class DumpTarget { none = 0, standard_output = 1, standard_error = 2, file = 3 };

struct Settings {
  int enable_level = 0;  // 0 off, 1 all p2p in one category, >= 2 internal kept apart
  DumpTarget dump_target = DumpTarget::none;
  std::string dump_prefix;  // pml_monitoring_filename
  std::string job_file;     // pml_monitoring_job_file: the one file per job ("" = none)
  bool verbose = false;     // pml_monitoring_verbose: report what the dumps wrote and how long it took
  bool split_internal() const { return enable_level >= 2; }
};

class Runtime {
 public:
  static Runtime& instance();

  Engine engine;
  Settings settings;
  CommunicatorRegistry communicators;  // the COLL layer's per-communicator class totals

  // A layer that records registers how to switch its recording off and on again (used
  // while our own dump traffic runs, so it is never counted).
  using RecordingSwitch = void (*)(bool on);
  void add_layer(RecordingSwitch recording_switch);

  // A layer that keeps more than per-peer records (COLL: per-communicator classes; OSC:
  // window synchronisation times) adds its lines to the end-of-job dumps: .prof extras
  // and job-file annotation lines (each ending in '\n'), from the same pause.
  struct LayerDump {
    ProfExtras prof;
    std::string job_annotations;
  };
  using DumpProvider = void (*)(LayerDump& out);
  void add_dump_provider(DumpProvider provider);
  // What all providers add right now (the flush variable's phases use it too).
  LayerDump layer_dumps() const;
  void set_recording(bool on);

  // Communicators our own code creates while the job runs (the OSC wait states' private
  // communicator and the ones behind their shadow windows), by context id: sends on them
  // are never recorded. The PML layer switches to send wrappers that test this set the
  // first time one is added (until then, and in jobs that never add one, nothing changes).
  void add_private_communicator(uint32_t context_id);
  void remove_private_communicator(uint32_t context_id);
  static constexpr uint32_t kPrivateCommunicatorLimit = 1u << 16;  // context ids beyond are never private
  const std::atomic<uint64_t>* private_communicators() const { return private_communicators_; }
  using PrivateFilterSwitch = void (*)();
  void set_private_filter_switch(PrivateFilterSwitch on) { private_filter_switch_ = on; }

  // Called once by the PML adapter after it interposed: remembers our world rank and
  // hooks the start of MPI_Finalize. Returns false (and says why in `error`) when the
  // hook cannot be installed.
  bool start(int world_rank, bool threaded, std::string& error);
  bool started() const { return started_; }
  int world_rank() const { return world_rank_; }

  // Runs at the end of MPI_Init: duplicates MPI_COMM_WORLD into the private
  // communicator our end-of-job dump uses (it can never match user messages).
  void init_bottom();
  // The end-of-job dump (runs at the start of MPI_Finalize, collectively): one snapshot
  // feeds the per-rank .prof output and the job file.
  void finalize_dump();

 private:
  Runtime() = default;
  std::vector<RecordingSwitch> layers_;
  std::vector<DumpProvider> dump_providers_;
  bool started_ = false;
  bool dumped_ = false;
  int world_rank_ = -1;
  long long start_time_ = 0;
  void* private_comm_ = nullptr;  // ompi_communicator_t*
  std::atomic<uint64_t> private_communicators_[kPrivateCommunicatorLimit / 64] = {};
  PrivateFilterSwitch private_filter_switch_ = nullptr;
  bool private_filter_on_ = false;

  void write_dump_files(const Snapshot& records, const LayerDump& layers);
};

// Prints the .prof text of `records` on stdout or stderr when `settings` say so (files
// are written by finalize_dump, together with the job file). Returns an empty string or
// a one-line warning for the whole job.
std::string write_prof_dump(const Settings& settings, int world_rank, const Snapshot& records,
                            const ProfExtras& extras = {});

// One line on stderr, prefixed "mpimon: ".
void warn(const std::string& message);
// The same from world rank 0 only (or from a process not started by mpirun): for what is
// the same on every rank (MCA values, the installation).
void warn_once_per_job(const std::string& message);

}  // namespace mpimon
