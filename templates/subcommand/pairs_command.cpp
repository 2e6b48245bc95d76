// TEMPLATE: a new `mpimon` subcommand (docs/extending.md, "A new mpimon subcommand").
//
// `mpimon pairs <dumps...> [--category C]`: how many ranks, pairs that communicate and
// bytes a job's dumps hold. A real subcommand is tools/mpimon/commands/<name>.cpp with
// this shape: an options struct, a run function, and add_<name>_command(), declared in
// commands/subcommand.h and listed once in main.cpp's table of subcommands. main.cpp
// turns the readers' and options' exceptions into exit codes (FormatError and
// std::invalid_argument: "mpimon: ..." and exit 2), so run functions only throw.
#include <iostream>
#include <memory>

#include "commands/options.h"
#include "commands/subcommand.h"
#include "subcommand/pairs_command.h"

namespace mpimon::tools {

namespace {

struct PairsOptions {
  std::vector<std::string> inputs;
  std::string category = "communication";  // Selection::names() lists the others
};

int run_pairs(const PairsOptions& o, std::ostream& out) {
  const Selection selection = Selection::of(o.category);  // std::invalid_argument for a bad name
  const Dumps dumps = read_inputs(o.inputs);              // FormatError for a bad input
  Total bytes = 0;
  const std::vector<Cell> cells = dumps.matrix.cells(selection);
  for (const Cell& c : cells) bytes += c.traffic.bytes;
  out << dumps.matrix.ranks() << " ranks, " << cells.size() << " pairs that communicate, " << total_text(bytes)
      << " bytes (" << selection.name() << ")\n";
  return 0;
}

}  // namespace

Subcommand add_pairs_command(CLI::App& mpimon, std::ostream& out) {
  auto o = std::make_shared<PairsOptions>();  // shared: CLI11 fills it, run reads it later
  CLI::App* pairs = mpimon.add_subcommand("pairs", "ranks, communicating pairs and bytes of a job's dumps");
  pairs->add_option("dumps", o->inputs, "a job file, .prof files, folders holding them, or a dump prefix")->required();
  pairs->add_option("--category", o->category, "the traffic counted (communication, all, external, ...)");
  return {pairs, [o, &out] { return run_pairs(*o, out); }};
}

}  // namespace mpimon::tools
