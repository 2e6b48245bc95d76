// Reading the .prof format (formats/prof_format.h): our dumps, Open MPI 4.1's, and
// captures of a job's standard output. Pure C++, in mpimon_readers: the tools and
// tests link it, the runtime library never does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "readers/format_error.h"
#include "readers/io_reader.h"

namespace mpimon {

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
// byte (a write that did not complete). A gzip file (a site log: files/site_log.h) is read
// decompressed, up to 256 times its size (at least 64 MiB); beyond, or malformed:
// "<path>: <why>".
std::string read_dump_text(const std::string& path);

}  // namespace mpimon
