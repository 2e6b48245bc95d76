#include "options.h"

#include <iostream>

namespace mpimon::tools {

Metric metric_of(const std::string& name) {
  return name == "bytes" ? Metric::bytes : name == "average" ? Metric::average : Metric::messages;
}

FileFormat file_format_of(const std::string& name) {
  return name == "csv"      ? FileFormat::csv
         : name == "sparse" ? FileFormat::sparse_csv
         : name == "mat"    ? FileFormat::mat
                            : FileFormat::matrix_market;
}

Dumps read_inputs(const std::vector<std::string>& arguments, Annotations annotations) {
  Dumps dumps = read_dumps(expand_dump_arguments(arguments), annotations);
  if (const std::string note = dumps.foreign_lines_note(); !note.empty()) std::cerr << "mpimon: " << note << '\n';
  return dumps;
}

}  // namespace mpimon::tools
