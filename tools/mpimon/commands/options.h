// Option values shared by several subcommands: category, metric and file-format names.
#pragma once

#include <string>
#include <vector>

#include "traffic_matrix.h"

namespace mpimon::tools {

// The names --category accepts: each category, and "all".
std::vector<std::string> category_choices();
Selection selection_of(const std::string& name);
Metric metric_of(const std::string& name);          // messages, bytes, average
FileFormat file_format_of(const std::string& name);  // csv, mat, mtx

}  // namespace mpimon::tools
