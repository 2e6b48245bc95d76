// How the commands read a job by its job file's name, finished or not, and select a time
// range of it.
//
// A job with snapshots on keeps its time series in <job file>.series, next to the job
// file (docs/time-series.md). While it runs, or after it died, there is no job
// file yet: the name given is then read from the series, summed up to its last snapshot,
// and the user is told that the job did not finish. A finished job file names its series
// (a `series` line); --from/--to (seconds since the start) select intervals of it.
#pragma once

#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

#include "dumps.h"
#include "readers/series_reader.h"

namespace mpimon::tools {

struct TimeOptions {
  double from = 0;
  double to = std::numeric_limits<double>::infinity();
  bool given() const { return from > 0 || to != std::numeric_limits<double>::infinity(); }
  series::TimeRange range() const { return {from, to}; }
};

// The series folder of a dump argument, or "": the argument itself if it is a series
// folder ("<name>.series"); "<argument>.series" if the argument does not exist (a running
// or dead job); the folder a job file names in its `series` line.
std::string series_folder_of(const std::string& argument);

// The dump files of the arguments, resolved: a series to read (a running or dead job's,
// or any job's when a time range is given) becomes the job file of the selected intervals,
// held in memory under the name "<folder> (summed)"; anything else is expanded as before
// (expand_dump_arguments). What the user should know (the job did not finish, skipped
// bytes) goes to `notes`, one line each. Throws FormatError (std::invalid_argument for a
// range that ends before it starts).
struct ResolvedInputs {
  std::vector<std::string> files;
  DumpLoader load;  // the series' texts, else the files
};
ResolvedInputs resolve_inputs(const std::vector<std::string>& arguments, const TimeOptions& time, std::ostream& notes);

}  // namespace mpimon::tools
