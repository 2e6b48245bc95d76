// The writer of one process's time series: a background thread that, at every tick of
// the snapshot interval, reads the process's totals (without any MPI call and without a
// lock the application's threads take), encodes what changed and appends it as one frame
// to its host's series file. It also writes a final frame on SIGTERM (then, once the
// host's other processes have theirs too or after 1 s, lets the signal do what it would
// have done), when the process exits without MPI_Finalize, and at MPI_Finalize from the
// end-of-job snapshot itself.
//
// Pure POSIX (no MPI): the runtime (series/series_writer_ompi.cpp) gives it the file and the sources
// of totals; tests give it their own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "formats/series_format.h"
#include "formats/series_frame.h"

namespace mpimon::series {

enum class Created { yes, exists, failed };
// Creates `path` as a new directory of ours, mode 0755 minus the umask (never writable by
// others; never follows a link planted at that name). `error` says why on `failed`.
Created create_series_directory(const std::string& path, std::string& error);

// Process `rank`'s start frame (the first of its frames).
std::string start_frame(int32_t rank, const SeriesStart& start);

// Opens this host's file `name` in the series directory `directory` for appending and puts
// `first_frame` (the process's start frame) in it. The host's first process makes the
// file with NewFile (files/atomic_file.h): an exclusive temporary holding its start frame,
// synced and size-checked, then linked under `name` (never over anything): the name never
// shows an empty or partial file. The host's other processes open that name (in a folder
// of ours, without following a link; a plain file of ours with one name) and append their
// start frame. Refuses a directory or file that is not a plain one of ours (a planted
// link, another user's). Returns the descriptor (O_APPEND), or -1 with `error`.
int open_host_file(const std::string& directory, const std::string& name, const std::string& first_frame,
                   std::string& error);

// This host's name as a file name (characters other than letters, digits, '.', '-' and
// '_' become '_').
std::string host_file_name();

// The engine's totals now, found without any lock (CounterTable::for_each_published)
// while the application records; the encoder reads them (formats/series_format.h, DeltaEncoder).
// Fills `into` (its storage reused): where each block is, sorted by (peer, category).
void live_totals(const Engine& engine, TotalsView& into);

// Microseconds since the Unix epoch (the clock every host shares, to NTP's precision).
int64_t realtime_us();

struct WriterStats {
  uint64_t frames = 0;         // snapshots (and final frames) written whole
  uint64_t bytes = 0;          // of those frames
  uint64_t failed_writes = 0;  // folded into a later frame
  double seconds_total = 0;    // CPU time reading, encoding and writing snapshots
  double seconds_max = 0;
};

class SeriesWriter {
 public:
  using TotalsSource = std::function<void(TotalsView& into)>;     // sorted by (peer, category)
  using LinesSource = std::function<std::vector<std::string>()>;  // the annotation block
  using Warn = std::function<void(const std::string&)>;
  struct Options {
    int32_t rank = 0;
    int64_t job_start_us = 0;
    int64_t interval_us = 0;
    bool catch_sigterm = true;  // a final frame on SIGTERM, then the signal's previous effect
    // Processes that append to the host file (this one included). After its final frame at
    // a SIGTERM, the process lets the signal take effect only once each of them has a final
    // frame in the file, or kHostWaitUs after the signal: Open MPI's daemon SIGKILLs all its
    // ranks as soon as the first one dies (docs/time-series.md, "Signals"). 0 or 1: no waiting.
    int host_processes = 0;
    bool final_at_exit = true;    // a final frame when the process exits before finish()
    bool report_failures = true;  // warn on the first failed write (one process per host file)
  };

  // `fd`: the host file, open for appending, with the process's start frame in it
  // (open_host_file); the writer owns it from now on.
  SeriesWriter(int fd, std::string path, Options options, TotalsSource totals, LinesSource lines, Warn warn);
  SeriesWriter(const SeriesWriter&) = delete;
  SeriesWriter& operator=(const SeriesWriter&) = delete;
  ~SeriesWriter();

  // Starts the thread, the SIGTERM handler and the exit hook (one writer per process).
  void start();
  // The end of the job (MPI_Finalize): stops the thread, writes the final frame from the
  // end-of-job totals and annotation lines (those of the job file), closes the file.
  void finish(const Snapshot& records, const std::vector<std::string>& lines);
  // Stops the thread and closes the file without a final frame (tests; a failed start).
  void abandon();

  WriterStats stats() const;
  const std::string& path() const { return path_; }

  // The thread's body and the hooks (public for the signal and exit handlers).
  void run();
  void on_exit();

 private:
  // The longest wait for the host's other processes after a SIGTERM (Open MPI's default
  // grace between its SIGTERM and its SIGKILL, odls_base_sigkill_timeout, is 1 s).
  static constexpr int64_t kHostWaitUs = 1000000;

  void write_snapshot(FrameKind kind, uint64_t interval, std::string_view end_reason, const Snapshot* records,
                      const std::vector<std::string>* lines);
  // After the final frame of a SIGTERM: waits until every host process has a final frame
  // in the host file, or `deadline`. False when told to quit meanwhile.
  bool wait_for_host_finals(std::chrono::steady_clock::time_point deadline);
  struct Wake {
    bool quit = false, sigterm = false;
  };
  Wake drain_wake_pipe();
  bool append(const std::string& frame);
  void stop_thread();
  uint64_t interval_at(int64_t time_us, bool round_up) const;

  int fd_;
  std::string path_;
  Options options_;
  TotalsSource totals_;
  LinesSource lines_;
  Warn warn_;
  DeltaEncoder encoder_;
  TotalsView totals_now_;  // reused from snapshot to snapshot
  std::thread thread_;
  int wake_read_ = -1, wake_write_ = -1;
  pid_t pid_ = 0;
  uint64_t last_interval_ = 0;
  // Where wait_for_host_finals starts reading the host file: its size at a periodic
  // snapshot at least kHostWaitUs before the signal (the host's final frames of that
  // signal lie beyond). `mark_` is such a size; `candidate_` becomes the next once old enough.
  struct HostMark {
    int64_t time_us = 0;
    off_t size = 0;
  };
  HostMark mark_, candidate_;
  bool closed_ = false;
  bool warned_ = false;
  mutable std::mutex mutex_;  // frames, stats
  WriterStats stats_;
};

}  // namespace mpimon::series
