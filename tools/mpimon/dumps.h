// Reading what the commands are given: job files, .prof files (ours and Open MPI's),
// captures of a job's output holding .prof lines, and folders or prefixes of .prof files.
// Every input error is a FormatError "<file>:<line>: expected ..." (the commands exit 2);
// memory grows with the non-zero records, never with the job size.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/job_format.h"
#include "readers/io_reader.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"
#include "readers/traffic_annotations_reader.h"
#include "traffic_matrix.h"

namespace mpimon::tools {

// Expands arguments to dump files, in argument order, each argument's files sorted by
// (phase, rank), a file given twice read once:
//   a file     itself: a job file (by its first line), a .prof file or a captured output
//   a folder   its <P>.<rank>.prof files of one prefix P, or, when every prefix is a phase of
//              one base (<B>_<phase>.<rank>.prof), all of them; without .prof files, its
//              one job file
//   other, P   P.<rank>.prof; if there is none, P_<phase>.<rank>.prof for every phase
//              (aggregate_profile's argument form; phase 0 included)
// Throws FormatError when nothing matches or a folder holds several kinds of dumps.
std::vector<std::string> expand_dump_arguments(const std::vector<std::string>& arguments);

// The rank in a file name "<anything>.<rank>.prof", or -1 (also for ranks beyond MPI's).
int32_t rank_in_file_name(std::string_view path);

// Where dump texts come from: files (load_dump_file), or memory (the fuzz targets).
using DumpLoader = std::function<std::string(const std::string& name)>;
std::string load_dump_file(const std::string& path);  // FormatError "<path>: cannot open: ..."

// One rank's collective classes on one communicator (job file `collectives` annotations,
// .prof D blocks); only rows with at least one call.
struct CollectiveRow {
  int32_t rank = 0;
  std::string communicator;          // unescaped
  std::array<Traffic, 3> classes{};  // one-to-all, all-to-one, all-to-all: calls (as messages), bytes
};

// One rank's synchronisation calls of one kind on one window (job file `window_sync`
// annotations, .prof "# SYNC" lines).
using WindowSyncRow = WindowSyncLine;

struct Dumps {
  std::vector<std::string> files;
  TrafficMatrix matrix;
  bool have_header = false;  // a job file was among the inputs
  JobHeader header;          // of the last job file
  // Read with Annotations::read only:
  std::vector<JobAnnotation> annotations;  // job files' other annotations, as written
  std::vector<CollectiveRow> collectives;  // job files and .prof files
  std::vector<WindowSyncRow> window_syncs;
  mpi_io::IoTable io;         // the files (job files' io_* annotations, .prof "# IO_*" lines): always read
  size_t foreign_lines = 0;   // lines of .prof inputs that are not monitoring output
  size_t foreign_files = 0;   // files that had some
  std::string first_foreign;  // "<file>:<line>" of the first

  // "skipped N lines that are not monitoring output ..., first at <file>:<line>", or "".
  std::string foreign_lines_note() const;
};

enum class Annotations { skip, read };

// Reads every file into one matrix: job files' records and .prof lines are summed (flush
// phases, several files of one rank); a job file must not hold two records of one pair
// and category. Counts must stay below kCountLimit.
Dumps read_dumps(const std::vector<std::string>& files, Annotations annotations = Annotations::skip,
                 const DumpLoader& load = load_dump_file);

// Calls on_job(text, name) or on_prof(parsed, name) for each file, parsed as read_dumps
// does (a second pass, e.g. for histograms, which the matrix does not keep).
void for_each_dump(const std::vector<std::string>& files, const DumpLoader& load,
                   const std::function<void(std::string_view text, const std::string& name)>& on_job,
                   const std::function<void(const ProfFile& file, const std::string& name)>& on_prof);

// The job file's first line.
bool is_job_text(std::string_view text);

}  // namespace mpimon::tools
