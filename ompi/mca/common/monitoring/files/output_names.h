// Names of the files one run writes, and the re-run rule (docs/formats.md "Re-running in
// the same folder"). Pure: the collective part is given as a function.
//
// The rule, the same for the job file, the per-rank .prof files and the event logs:
// nothing is ever overwritten. A run writes under the names the user gave (run number
// 0) unless one of its files already exists; it then uses the first run number n >= 1
// for which NONE of its files exists, appending `.<n>` to the name given: the job file
// `<name>.<n>`, the .prof files `<prefix>.<n>.<rank>.prof`, the logs
// `<prefix>.<n>.<rank>.log`. All ranks use the same n (one collective decision), so one
// run never mixes numbers, and a prefix P still selects exactly P.<rank>.prof.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "files/atomic_file.h"

namespace mpimon {

// `name` for run number 0, `<name>.<n>` otherwise.
std::string numbered_name(const std::string& name, int run_number);
// `<prefix>[.<n>].<rank>.prof`.
std::string prof_file_name(const std::string& prefix, int run_number, int rank);

// The smallest run number n >= `from` for which `taken(n)` is false on every rank.
// `taken(n)`: is one of this rank's files for run number n already there?
// `max_and_min(mine)`: the collective part, called the same number of times on every
//   rank: returns {max, min} of `mine` over all ranks (one MPI_Allreduce).
// Usually one collective call; each further call skips at least one run number.
int agree_on_run_number(const std::function<bool(int)>& taken,
                        const std::function<std::pair<int, int>(int)>& max_and_min, int from = 0);

// One file of this rank that the run publishes under its run number.
struct RunOutput {
  NewFile* file = nullptr;                   // open: to publish; otherwise this rank has none
  std::function<std::string(int)> name_for;  // its name for run number n
  FileError error;                           // set when it could not be published
};

// Publishes this rank's `outputs` (complete temporaries) under one run number agreed by
// every rank, with link() so nothing is ever overwritten; if a concurrent run took a
// name meanwhile, every rank takes its names back and the next number is tried.
// Collective through `max_and_min` (every rank calls this the same way, with or without
// files of its own). Temporaries are discarded. Returns the run number, `first` or above
// (the time series reserves the run's number at the start: Settings::first_run_number).
int publish_run_outputs(std::vector<RunOutput>& outputs, const std::function<std::pair<int, int>(int)>& max_and_min,
                        int first = 0);

}  // namespace mpimon
