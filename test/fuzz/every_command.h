// What every mpimon command does with one input, for the fuzz target and the corpus replay
// test: read it as a dump file, then print every matrix format, heatmap, size histogram and
// the report. Input errors must be FormatError (the commands print "<file>:<line>: expected
// ..." and exit 2) or std::invalid_argument (a dense format beyond its size); anything else
// escapes to the caller, which treats it as a crash.
#pragma once

#include <string_view>

namespace mpimon::tools {

// Returns true when the input was read, false when it was refused as a FormatError.
bool run_every_command(std::string_view text);

// The same for a time series' file (one host's, docs/formats.md "Time series"): read it,
// sum it into a job file that every command above must then read, and draw its timeline
// in the terminal and as SVG, for the whole run and a range.
bool run_every_series_command(std::string_view bytes);

}  // namespace mpimon::tools
