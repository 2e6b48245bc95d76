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
//   # MPI-IO                                          (mpimon's; only when MPI-IO was used)
//   # F <me> <peer> <B> bytes <n> msgs sent <66 comma-separated histogram counts>
//   # IO_FILE ... (formats/io_format.h)
//
// Fields are tab-separated. Open MPI keeps one histogram per peer for E and I traffic
// together, printed on the E line, or on the I line when the peer has no E traffic. The
// F lines (category io_shuffle, with their own histogram) and every other mpimon line
// start with '#': Open MPI's profile2mat and aggregate_profile skip them.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "readers/io_reader.h"

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

// One parsed E/I/S/R/C line, or a "# F" line (kind 'F').
struct ProfLine {
  char kind = 'E';  // E, I, S, R, C or F
  int32_t me = 0;
  int32_t peer = 0;
  uint64_t bytes = 0;
  uint64_t messages = 0;
  bool has_histogram = false;
  std::array<uint64_t, kHistogramBuckets> histogram{};
  size_t line = 0;  // 1-based line number in the text
};

// A D line and the O2A / A2O / A2A lines that follow it: one communicator's collective
// classes as seen by one rank (`me`, from the class lines; -1 if there were none).
struct ProfCommunicator {
  std::string name;
  size_t members = 0;  // world ranks listed after "procs:"
  int32_t me = -1;
  uint64_t calls[3] = {};  // one-to-all, all-to-one, all-to-all
  uint64_t bytes[3] = {};
  size_t line = 0;  // of the D line
};

// A "# SYNC" line (mpimon's; Open MPI's parsers skip it as a comment).
struct ProfSync {
  int32_t me = 0;
  std::string window;  // as written (percent-encoded)
  std::string kind;
  uint64_t calls = 0;
  double seconds = 0;
  size_t line = 0;
};

struct ProfFile {
  std::vector<ProfLine> lines;
  std::vector<ProfCommunicator> communicators;
  std::vector<ProfSync> syncs;
  mpi_io::IoTable io;  // the "# IO_*" lines
  // Lenient parsing (ProfInput::capture) only: lines that are not monitoring output.
  size_t foreign_lines = 0;
  size_t first_foreign_line = 0;
  bool has_monitoring_output = false;  // a section header or a record line was seen
};

// A malformed file: what() reads "<source>:<line>: <what was expected>".
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the text is: a dump as our component writes it (every non-comment line is a
// monitoring line), or any text that may hold one or more dumps among other lines, like a
// capture of a job's standard output (`pml_monitoring_enable_output 1`): there, a line is
// a monitoring line when it starts with a line kind and a tab (E, I, S, R, C, D, O2A, A2O,
// A2A), after an optional `mpirun --tag-output` prefix ("[1,0]<stdout>:"); other lines are
// counted in foreign_lines and skipped. Monitoring lines must be well formed either way.
enum class ProfInput { dump, capture };

ProfFile parse_prof(std::string_view text, std::string_view source_name, ProfInput input = ProfInput::dump);
ProfFile read_prof_file(const std::string& path);  // throws FormatError, incl. I/O errors

// The whole content of a dump file; FormatError "<path>: cannot open: <reason>" if
// unreadable, and "<path>: expected text, found a NUL byte ..." for a file holding a NUL
// byte (a write that did not complete).
std::string read_dump_text(const std::string& path);

}  // namespace mpimon
