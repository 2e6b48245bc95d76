// Option values shared by several subcommands: category, metric and file-format names, and
// the reading every subcommand starts with.
#pragma once

#include <string>
#include <vector>

#include "dumps.h"
#include "matrix_formats.h"

namespace mpimon::tools {

Metric metric_of(const std::string& name);           // messages, bytes, average
FileFormat file_format_of(const std::string& name);  // csv, sparse, mat, mtx

// Expands the arguments and reads them (read_dumps); says once on stderr how many lines of
// captured output were skipped.
Dumps read_inputs(const std::vector<std::string>& arguments, Annotations annotations = Annotations::skip);

}  // namespace mpimon::tools
