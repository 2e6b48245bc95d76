// Option values shared by several subcommands: category, metric and file-format names, and
// the reading every subcommand starts with.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dumps.h"
#include "matrix_formats.h"
#include "series_input.h"

namespace mpimon::tools {

Metric metric_of(const std::string& name);           // messages, bytes, average
FileFormat file_format_of(const std::string& name);  // csv, sparse, mat, mtx

// Expands the arguments and reads them (read_dumps); says once on stderr how many lines of
// captured output were skipped. A job's time series is read by its job file's name too
// (a running or dead job), and `time` selects intervals of it (series_input.h); `load`,
// when given, receives what reads the files again (a series is held in memory).
Dumps read_inputs(const std::vector<std::string>& arguments, Annotations annotations = Annotations::skip,
                  const TimeOptions& time = {}, DumpLoader* load = nullptr);
// --from/--to on a command.
void add_time_options(CLI::App& command, TimeOptions& options);

}  // namespace mpimon::tools
