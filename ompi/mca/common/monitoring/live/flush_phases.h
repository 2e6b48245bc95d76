// The phases of the `pml_monitoring_flush` performance variable: each flush writes
// `<prefix>.<world rank>.prof` with the traffic since the previous successful flush
// (phase 0 starts at MPI_Init). Pure C++ (no MPI): live/pvars_ompi.cpp calls it from the MPI_T
// core's callbacks.
//
// Open MPI 4.1.4's core ignores what the stop notification returns (mca_base_pvar.c
// calls `(void) mca_base_pvar_notify(handle, STOP, ...)`), but before notifying it
// reads the variable, and a failing read makes MPI_T_pvar_stop return the error with
// the handle still started. So the phase file is written when the core reads a started
// handle (prepare(): during MPI_T_pvar_stop, _read and _write) and only given its name
// when the stop is notified (commit()):
//   - a flush that cannot be written (missing folder, a prefix too long for the file
//     system, a full disk, a phase file that already exists) makes MPI_T_pvar_stop (and
//     MPI_T_pvar_write) return an error, and loses nothing: the phase goes on, and the
//     next successful flush and the finalize dump include its traffic;
//   - an empty (or NULL) prefix means "no file", as in Open MPI's own
//     test/monitoring/monitoring_test.c: the stop writes nothing, succeeds, and ends no
//     phase (Open MPI 4.1.4 does not reset its counters then either).
//   - A phase file is never overwritten. Flushes are not collective (each rank stops its
//     own handle), so a rank whose file exists cannot agree on another name with the
//     others: its flush fails instead (use a new prefix per run).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "files/atomic_file.h"

namespace mpimon {

class FlushPhases {
 public:
  // What MPI_T_pvar_write gave ("" for an empty string or a NULL pointer).
  void set_prefix(std::string_view prefix);
  // Writes the phase so far (`now` - the last flush) to a new temporary for
  // `<prefix>.<world_rank>.prof` and checks that name is free. Nothing to do without a
  // prefix. On failure returns why (the phase is untouched).
  FileError prepare(const Snapshot& now, int world_rank, bool split_internal);
  // The stop: publishes what prepare() wrote and starts the next phase. An error here
  // (the name was taken meanwhile) keeps the phase and is returned by the next
  // prepare() (so by the next MPI_T call on the handle).
  FileError commit();
  // The handle is freed: forget what was prepared.
  void drop_prepared();

 private:
  std::mutex mutex_;
  std::string prefix_;
  Snapshot last_flush_;  // totals at the last successful flush (empty: phase 0)
  NewFile prepared_;
  std::string prepared_path_, prepared_text_;
  Snapshot prepared_now_;
  FileError pending_error_;  // a commit that failed, reported once by the next prepare()
};

}  // namespace mpimon
