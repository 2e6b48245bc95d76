// Process-wide monitoring state shared by our PML, COLL and OSC components: the engine,
// the user's settings, the layers that record, and the end-of-job dump.
//
// Lives in libmpimon_monitoring.so (one copy per process whichever components load it).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "analyses/communicator_classes.h"
#include "analyses/mpi_io/file_registry.h"
#include "analyses/nbc_overlap.h"
#include "engine/engine.h"
#include "formats/prof_format.h"

namespace mpimon {

// pml_monitoring_enable_output values (as in Open MPI: 3 and above mean "file").
enum class DumpTarget { none = 0, standard_output = 1, standard_error = 2, file = 3 };

struct Settings {
  int enable_level = 0;    // 0 off, 1 all p2p in one category, >= 2 internal kept apart
  bool io_enabled = true;  // io_monitoring_enable (registered when Open MPI opens the io framework)
  DumpTarget dump_target = DumpTarget::none;
  std::string dump_prefix;           // pml_monitoring_filename
  std::string job_file;              // pml_monitoring_job_file: the one file per job ("" = none)
  std::string site_log_root;         // mpimon_log_path: the site log's root ("" = none; files/site_log.h)
  bool verbose = false;              // pml_monitoring_verbose: report what the dumps wrote and how long it took
  int64_t snapshot_interval_us = 0;  // pml_monitoring_snapshot_interval: the time series (0 = none)
  // The run number (files/output_names.h) the end-of-job files start from: the time series
  // reserves its own at MPI_Init, so that the finished job file takes the same one.
  int first_run_number = 0;
  bool split_internal() const { return enable_level >= 2; }
};

class Runtime {
 public:
  static Runtime& instance();

  Engine engine;
  Settings settings;
  CommunicatorRegistry communicators;  // the COLL layer's per-communicator class totals
  NbcTracker nbc;                      // pending nonblocking collectives (COLL and PML layers)
  mpi_io::FileRegistry files;          // the MPI-IO records (io layer; the PML layer's shuffle)

  // A layer that records registers how to switch its recording off and on again (used
  // while our own dump traffic runs, so it is never counted).
  using RecordingSwitch = void (*)(bool on);
  void add_layer(RecordingSwitch recording_switch);

  // A layer that keeps more than per-peer records (COLL: per-communicator classes; OSC:
  // window synchronisation times) adds its lines to the end-of-job dumps: .prof extras
  // and job-file annotation lines (each ending in '\n'), from the same pause. The time
  // series (series/) also calls the providers at every snapshot, from its own thread,
  // while the application runs: a provider must be safe against concurrent recording and
  // against the creation and freeing of communicators and windows, and its job-file lines
  // are totals (the series keeps each process's latest lines).
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
  // Something that follows the job while it runs (the time series, series/): told when
  // monitoring starts (the end of MPI_Init, on every rank, and only when every rank runs
  // our components: it may make collective calls there), and given at the start of MPI_Finalize the end-of-job snapshot
  // and the layers' lines from the same pause as the dumps (it may add job-file annotation lines).
  struct Observer {
    void (*started)();
    void (*ending)(const Snapshot& records, LayerDump& layers);
  };
  void add_observer(Observer observer);
  // Runs at the end of MPI_Init, after init_bottom: tells the observers.
  void notify_started();

  // Called once by the PML adapter after it interposed, during MPI_Init before the PMIx
  // modex fence: remembers our world rank, publishes this rank's components tag for the
  // start-up check (runtime/deployment_check.h) and hooks the end of MPI_Init and the start of
  // MPI_Finalize. Returns false (and says why in `error`) when the hooks cannot be
  // installed.
  bool start(int world_rank, bool threaded, std::string& error);
  bool started() const { return started_; }
  int world_rank() const { return world_rank_; }

  // Whether every rank of the job runs these components (same version), known from the
  // end of MPI_Init on (false before). Every collective call our own code makes (the
  // job file's, and any later one) must check it first: when some ranks lack our
  // components they would never take part, and the call would hang. When it is false
  // our layers record nothing and no dump is written.
  bool all_ranks_monitored() const { return all_ranks_monitored_; }

  // Runs at the end of MPI_Init: the start-up check (every rank of ours, no collective
  // call; O(hosts) local lookups). On a mixed deployment it stops recording for good and
  // one rank prints the one line naming the hosts.
  void init_bottom();
  // The end-of-job dump (runs at the start of MPI_Finalize, collectively): one snapshot
  // feeds the per-rank .prof output and the job file.
  void finalize_dump();
  // Whether MPI_Finalize has started (finalize_dump ran): objects made or released from
  // then on are ours or Open MPI's teardown, not the application's.
  bool finalize_started() const { return dumped_; }

 private:
  Runtime() = default;
  std::vector<RecordingSwitch> layers_;
  std::vector<DumpProvider> dump_providers_;
  std::vector<Observer> observers_;
  bool started_ = false;
  bool dumped_ = false;
  bool all_ranks_monitored_ = false;
  int world_rank_ = -1;
  long long start_time_ = 0;
  std::atomic<uint64_t> private_communicators_[kPrivateCommunicatorLimit / 64] = {};
  PrivateFilterSwitch private_filter_switch_ = nullptr;
  bool private_filter_on_ = false;

  // What this rank publishes for the start-up check: the version and the site log's root.
  std::string deployment_tag() const;
  // The end-of-job files (.prof and job file), written collectively over a duplicate of
  // MPI_COMM_WORLD made there (never in MPI_Init), only when all_ranks_monitored().
  void write_dump_files(const Snapshot& records, const LayerDump& layers);
};

// Prints the .prof text of `records` on stdout or stderr when `settings` say so (files
// are written by finalize_dump, together with the job file). Returns an empty string or
// a one-line warning for the whole job.
std::string write_prof_dump(const Settings& settings, int world_rank, const Snapshot& records,
                            const ProfExtras& extras = {});

// "4.1.4": the Open MPI this process runs on (as the job file's header names it).
std::string running_open_mpi_version();

// One line on stderr, prefixed "mpimon: ".
void warn(const std::string& message);
// The same from world rank 0 only (or from a process not started by mpirun): for what is
// the same on every rank (MCA values, the installation).
void warn_once_per_job(const std::string& message);

}  // namespace mpimon
