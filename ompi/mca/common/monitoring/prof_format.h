// Open MPI's monitoring text format (.prof), written byte-compatible with the 4.1
// component and read back by our tests and tools. The format:
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
//
// Fields are tab-separated. Open MPI keeps one histogram per peer for E and I traffic
// together, printed on the E line, or on the I line when the peer has no E traffic.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine.h"

namespace mpimon {

// Lines the COLL and OSC layers add to a rank's dump, each block ending in '\n'.
struct ProfExtras {
  std::string osc;          // after the S/R lines (mpimon's window synchronisation times)
  std::string collectives;  // after the C lines: D / O2A / A2O / A2A per communicator
};

// The whole text of one rank's dump. `split_internal` is false at enable level 1 (then
// no I line is printed, as in Open MPI).
std::string format_prof(int my_world_rank, const Snapshot& records, bool split_internal,
                        const ProfExtras& extras = {});

// One parsed E/I/S/R/C line.
struct ProfLine {
  char kind = 'E';  // E, I, S, R or C
  int32_t me = 0;
  int32_t peer = 0;
  uint64_t bytes = 0;
  uint64_t messages = 0;
  bool has_histogram = false;
  std::array<uint64_t, kHistogramBuckets> histogram{};
};

struct ProfFile {
  std::vector<ProfLine> lines;
  std::vector<std::string> communicator_lines;  // D / O2A / A2O / A2A, kept verbatim
};

// A malformed file: what() reads "<source>:<line>: <what was expected>".
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ProfFile parse_prof(std::string_view text, std::string_view source_name);
ProfFile read_prof_file(const std::string& path);  // throws FormatError, incl. I/O errors

// The whole content of a dump file; FormatError "<path>: cannot open: <reason>" if unreadable.
std::string read_dump_text(const std::string& path);

}  // namespace mpimon
