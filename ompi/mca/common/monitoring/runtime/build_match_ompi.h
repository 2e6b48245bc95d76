// The run-time check of runtime/build_match.h, for every one of our plugins: the first
// thing each component's register function calls, before it touches any Open MPI object
// (Open MPI's debug build asserts on an object of the wrong layout as soon as a variable
// is registered). Compiled into each plugin (mpimon_add_plugin): it must not depend on the
// engine library, which is itself built against the same headers.
#pragma once

namespace mpimon {

// True when the Open MPI that loaded this plugin is the build it was made for. On a
// difference, one line on stderr (from world rank 0, or from each process when the launcher
// gives no rank; once per process however many of our plugins decline) and false: the
// component then returns OPAL_ERR_NOT_AVAILABLE from its register function, which Open MPI
// takes as "silently ignore me", and the job runs on unmonitored.
bool loaded_open_mpi_matches();

}  // namespace mpimon
