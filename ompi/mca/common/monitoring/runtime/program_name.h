// The name of the program this process runs, as the job file records it (a `program`
// annotation) and as the topology component compares it with a previous run's: the last
// component of /proc/self/exe (the executable, whatever argv[0] says), "unknown" when it
// cannot be read.
#pragma once

#include <string>

namespace mpimon {

std::string program_name();

}  // namespace mpimon
