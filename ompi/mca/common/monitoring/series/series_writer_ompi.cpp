// The time series inside a job: at the end of MPI_Init the ranks agree on the run number
// (files/output_names.h) and rank 0 creates the series' folder, then every process starts its
// writer; at the start of MPI_Finalize each writes its final frame from the end-of-job
// snapshot, and the job file names its series.
//
// The folder is <job file>.series, next to the job file, one file per host inside. The
// run number is the first n for which none of the run's files exists, the series' folder
// included (docs/formats.md, "Re-running in the same folder"), decided at the start
// rather than at the end; the end-of-job files start their own search from it, so the
// finished job file normally takes the name J.n whose series is J.n.series: the name the
// user reads during the job, or after it died, is the finished file's name. (If a
// concurrent run took J.n meanwhile, the job file goes further and its `series` line
// names the folder.)
#include "runtime/ompi_glue.h"

#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "files/atomic_file.h"
#include "files/output_names.h"
#include "formats/job_format.h"
#include "runtime/runtime.h"
#include "series/series_writer.h"

namespace mpimon::series {
namespace {

SeriesWriter* writer = nullptr;  // this process's; never destroyed (its exit hook may run at exit)
std::string directory;           // <job file>.series, once agreed

std::string folder_for(const std::string& job_file, int run) { return numbered_name(job_file, run) + ".series"; }

// Anything at `path`, a dangling link included.
bool name_exists(const std::string& path) {
  struct stat s {};
  return ::lstat(path.c_str(), &s) == 0;
}

// The run number, agreed by every rank, with its series folder created by rank 0; -1 when
// rank 0 could not create it (it says why). Collective over MPI_COMM_WORLD (our calls,
// not recorded): an allreduce or two, and a broadcast.
int reserve_run(const Settings& settings, int rank, int64_t& job_start_us) {
  const bool prof_files = settings.dump_target == DumpTarget::file && !settings.dump_prefix.empty();
  auto taken = [&](int n) {
    if (rank == 0 &&
        (name_exists(numbered_name(settings.job_file, n)) || name_exists(folder_for(settings.job_file, n))))
      return true;
    return prof_files && name_exists(prof_file_name(settings.dump_prefix, n, rank));
  };
  auto max_and_min = [](int mine) {
    int values[2] = {mine, -mine};
    PMPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return std::make_pair(values[0], -values[1]);
  };
  for (int from = 0;;) {
    const int run = agree_on_run_number(taken, max_and_min, from);
    long long agreed[2] = {run, 0};  // the run (-1: no series, -2: taken meanwhile), the job's start (us)
    if (rank == 0) {
      std::string error;
      switch (create_series_directory(folder_for(settings.job_file, run), error)) {
        case Created::yes:
          agreed[1] = realtime_us();
          break;
        case Created::exists:
          agreed[0] = -2;
          break;  // a concurrent run: the next number
        case Created::failed:
          agreed[0] = -1;
          warn("no time series: " + error);
          break;
      }
    }
    PMPI_Bcast(agreed, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (agreed[0] == -2) {
      from = run + 1;
      continue;
    }
    job_start_us = agreed[1];
    return static_cast<int>(agreed[0]);
  }
}

// The annotation block of this process: the layers' job-file lines, without empty ones.
std::vector<std::string> annotation_lines(const std::string& text) {
  std::vector<std::string> lines = split_lines(text);
  std::erase_if(lines, [](const std::string& line) { return line.empty(); });
  return lines;
}

bool first_process_of_host() {
  const char* local_rank = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  return local_rank == nullptr || std::strcmp(local_rank, "0") == 0;
}

// The processes of this job on this host, as Open MPI's launcher says (0: unknown).
int processes_of_host() {
  const char* local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int n = 0;
  if (local_size == nullptr || std::from_chars(local_size, local_size + std::strlen(local_size), n).ec != std::errc{})
    return 0;
  return n;
}

void started() {
  Runtime& runtime = Runtime::instance();
  Settings& settings = runtime.settings;
  if (settings.snapshot_interval_us <= 0 || settings.job_file.empty()) return;
  const int rank = runtime.world_rank();
  int64_t job_start_us = 0;
  // Ours, not the application's: not recorded.
  runtime.set_recording(false);
  const int run = reserve_run(settings, rank, job_start_us);
  runtime.set_recording(true);
  if (run < 0) return;
  settings.first_run_number = run;
  directory = folder_for(settings.job_file, run);
  if (rank == 0 && run > 0)  // said at the start: the series is where the user will look during the job
    warn("files of an earlier run are in the way, and nothing is overwritten: this run's time series is " + directory +
         ", its job file will be " + numbered_name(settings.job_file, run));

  const std::string host = host_file_name();
  SeriesStart start;
  PMPI_Comm_size(MPI_COMM_WORLD, &start.world_size);
  start.enable_level = settings.enable_level;
  start.open_mpi_version = running_open_mpi_version();
  start.job_start_us = job_start_us;
  start.interval_us = settings.snapshot_interval_us;
  start.host = host;
  start.pid = ::getpid();
  // The host's first process makes its file, then the others open it: one creation per
  // host, not one attempt per process (open_host_file copes with any order, too).
  std::string error;
  int fd = -1;
  if (first_process_of_host()) fd = open_host_file(directory, host, start_frame(rank, start), error);
  runtime.set_recording(false);
  PMPI_Barrier(MPI_COMM_WORLD);
  runtime.set_recording(true);
  if (!first_process_of_host()) fd = open_host_file(directory, host, start_frame(rank, start), error);
  if (fd < 0) {
    // Once per host (a folder on a file system the other hosts do not share fails alike
    // for all its processes).
    if (first_process_of_host())
      warn("rank " + std::to_string(rank) + " (and the other processes of host " + host +
           "): no time series: " + error);
    return;
  }
  SeriesWriter::Options options;
  options.rank = rank;
  options.job_start_us = job_start_us;
  options.interval_us = settings.snapshot_interval_us;
  options.report_failures = first_process_of_host();
  options.host_processes = processes_of_host();
  writer = new SeriesWriter(
      fd, directory + "/" + host, options, [](TotalsView& into) { live_totals(Runtime::instance().engine, into); },
      [] { return annotation_lines(Runtime::instance().layer_dumps().job_annotations); },
      [](const std::string& message) { warn(message); });
  writer->start();
}

void ending(const Snapshot& records, Runtime::LayerDump& layers) {
  if (directory.empty()) return;
  Runtime& runtime = Runtime::instance();
  if (writer != nullptr) {
    writer->finish(records, annotation_lines(layers.job_annotations));
    if (runtime.settings.verbose) {
      const WriterStats s = writer->stats();
      const uint64_t snapshots = s.frames;
      warn("rank " + std::to_string(runtime.world_rank()) + ": time series " + writer->path() + ": " +
           std::to_string(snapshots) + " snapshots, " + std::to_string(s.bytes) + " bytes, " +
           std::to_string(snapshots ? s.seconds_total / static_cast<double>(snapshots) * 1e6 : 0.0) +
           " us of CPU time per snapshot on average, " + std::to_string(s.seconds_max * 1e6) + " us at most" +
           (s.failed_writes ? ", " + std::to_string(s.failed_writes) + " failed writes" : std::string()));
    }
  }
  // Where O_TMPFILE is missing, a process killed while making its host's file leaves a
  // named temporary (files/atomic_file.h): removed here, once per host (readers skip it anyway).
  if (first_process_of_host()) remove_stale_temporaries(directory);
  if (runtime.world_rank() == 0)
    layers.job_annotations +=
        "series " + escape_name(std::filesystem::path(directory).filename().string(), true) + "\n";
}

[[maybe_unused]] const bool registered = [] {
  Runtime::instance().add_observer({started, ending});
  return true;
}();

}  // namespace
}  // namespace mpimon::series
