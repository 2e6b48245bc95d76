// TEMPLATE: a new `mpimon` subcommand (see pairs_command.cpp). In the product the
// declaration goes beside the others in tools/mpimon/commands/subcommand.h, without the
// stream: subcommands print to std::cout (the template takes a stream for its test).
#pragma once

#include <iostream>

#include "commands/subcommand.h"

namespace mpimon::tools {

Subcommand add_pairs_command(CLI::App& mpimon, std::ostream& out = std::cout);

}  // namespace mpimon::tools
