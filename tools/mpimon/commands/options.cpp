#include "commands/options.h"

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

Dumps read_inputs(const std::vector<std::string>& arguments, Annotations annotations, const TimeOptions& time,
                  DumpLoader* load) {
  const ResolvedInputs inputs = resolve_inputs(arguments, time, std::cerr);
  Dumps dumps = read_dumps(inputs.files, annotations, inputs.load);
  if (const std::string note = dumps.foreign_lines_note(); !note.empty()) std::cerr << "mpimon: " << note << '\n';
  if (load != nullptr) *load = inputs.load;
  return dumps;
}

void add_time_options(CLI::App& command, TimeOptions& options) {
  command.add_option("--from", options.from, "only the snapshot intervals after this many seconds since the start")
      ->check(CLI::NonNegativeNumber);
  command.add_option("--to", options.to, "only the snapshot intervals up to this many seconds since the start")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace mpimon::tools
