// Open MPI's monitoring text format (.prof), written byte-compatible with the 4.1
// component (its reader: readers/prof_reader.h, tools and tests only). The format:
//
//   # POINT TO POINT
//   E <me> <peer> <B> bytes <n> msgs sent <66 comma-separated histogram counts>
//   I <me> <peer> <B> bytes <n> msgs sent [<histogram>]
//   # OSC
//   S <me> <peer> <B> bytes <n> msgs sent
//   R <me> <peer> <B> bytes <n> msgs sent
//   # COLLECTIVES
//   C <me> <peer> <B> bytes <n> msgs sent
//   D <communicator name> procs: <world ranks>        (followed by O2A / A2O / A2A lines)
//   # MPI-IO                                          (mpimon's; only when MPI-IO was used)
//   # F <me> <peer> <B> bytes <n> msgs sent <66 comma-separated histogram counts>
//   # IO_FILE ... (formats/io_format.h)
//
// Fields are tab-separated. Open MPI keeps one histogram per peer for E and I traffic
// together, printed on the E line, or on the I line when the peer has no E traffic. The
// F lines (category io_shuffle, with their own histogram) and every other mpimon line
// start with '#': Open MPI's profile2mat and aggregate_profile skip them.
#pragma once

#include <string>

#include "engine/engine.h"

namespace mpimon {

// Lines the COLL and OSC layers add to a rank's dump, each block ending in '\n'.
struct ProfExtras {
  std::string osc;          // after the S/R lines (mpimon's window synchronisation times)
  std::string collectives;  // after the C lines: D / O2A / A2O / A2A per communicator
  std::string io;           // after the F lines: the files (formats/io_format.h)
};

// The whole text of one rank's dump. `split_internal` is false at enable level 1 (then
// no I line is printed, as in Open MPI).
std::string format_prof(int my_world_rank, const Snapshot& records, bool split_internal, const ProfExtras& extras = {});

}  // namespace mpimon
