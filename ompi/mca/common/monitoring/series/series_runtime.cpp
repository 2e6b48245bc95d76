// The time series inside a job: at the end of MPI_Init the ranks agree on the series'
// folder (one broadcast from rank 0, the series' only collective call), then every
// process starts its writer; at the start of MPI_Finalize each writes its final frame
// from the end-of-job snapshot, and the job file names its series.
//
// The folder is <job file>.series, next to the job file, one file per host inside. Rank 0
// reserves it at the start: the first of J, J.1, J.2, ... for which neither the file nor
// its series exists (the directory is created exclusively), and the finished job's file
// takes that same name. So the name the user reads during the job, or after it died, is
// the finished file's name.
#include "ompi_glue.h"

#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "job_format.h"
#include "runtime.h"
#include "series_writer.h"

namespace mpimon::series {
namespace {

SeriesWriter* writer = nullptr;  // this process's; never destroyed (its exit hook may run at exit)
std::string directory;           // <job file>.series, once agreed

std::string stem(const std::string& job_file, long long n) {
  return n == 0 ? job_file : job_file + "." + std::to_string(n);
}

// Rank 0: the number n of the first free stem, its series folder created; -1 and `error`.
long long reserve_stem(const std::string& job_file, std::string& error) {
  for (long long n = 0; n < 100000; ++n) {
    struct stat s{};
    if (::lstat(stem(job_file, n).c_str(), &s) == 0) continue;  // a finished job's file (or anything else)
    switch (create_series_directory(stem(job_file, n) + ".series", error)) {
      case Created::yes: return n;
      case Created::exists: continue;
      case Created::failed: return -1;
    }
  }
  error = "no free name among " + job_file + ".<n>";
  return -1;
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

void started() {
  Runtime& runtime = Runtime::instance();
  Settings& settings = runtime.settings;
  if (settings.snapshot_interval_us <= 0 || settings.job_file.empty()) return;
  const int rank = runtime.world_rank();
  long long agreed[2] = {-1, 0};  // the stem's number (-1: no series), the job's start (µs)
  if (rank == 0) {
    std::string error;
    agreed[0] = reserve_stem(settings.job_file, error);
    agreed[1] = realtime_us();
    if (agreed[0] < 0) warn("no time series: " + error);
    if (agreed[0] > 0)  // said at the start, now that the name is chosen here
      warn(settings.job_file + " exists: job file written to " + stem(settings.job_file, agreed[0]) +
           " instead (its time series to " + stem(settings.job_file, agreed[0]) + ".series)");
  }
  // Ours, not the application's: not recorded.
  runtime.set_recording(false);
  const int rc = PMPI_Bcast(agreed, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  runtime.set_recording(true);
  if (rc != MPI_SUCCESS || agreed[0] < 0) return;
  settings.job_file = stem(settings.job_file, agreed[0]);
  directory = settings.job_file + ".series";

  const std::string host = host_file_name();
  std::string error;
  const int fd = open_host_file(directory, host, error);
  if (fd < 0) {
    // Once per host (a folder on a file system the other hosts do not share fails alike
    // for all its processes).
    if (first_process_of_host())
      warn("rank " + std::to_string(rank) + " (and the other processes of host " + host + "): no time series: " +
           error);
    return;
  }
  SeriesWriter::Options options;
  options.rank = rank;
  options.job_start_us = agreed[1];
  options.interval_us = settings.snapshot_interval_us;
  options.report_failures = first_process_of_host();
  writer = new SeriesWriter(
      fd, directory + "/" + host, options, [](TotalsView& into) { live_totals(Runtime::instance().engine, into); },
      [] { return annotation_lines(Runtime::instance().layer_dumps().job_annotations); },
      [](const std::string& message) { warn(message); });
  SeriesStart start;
  PMPI_Comm_size(MPI_COMM_WORLD, &start.world_size);
  start.enable_level = settings.enable_level;
  start.open_mpi_version = running_open_mpi_version();
  start.job_start_us = agreed[1];
  start.interval_us = settings.snapshot_interval_us;
  start.host = host;
  start.pid = ::getpid();
  if (!writer->write_start(start)) {  // it said why (once per host)
    delete writer;
    writer = nullptr;
    return;
  }
  writer->start();
}

void ending(const Snapshot& records, Runtime::LayerDump& layers) {
  if (directory.empty()) return;
  Runtime& runtime = Runtime::instance();
  if (writer != nullptr) {
    writer->finish(records, annotation_lines(layers.job_annotations));
    if (runtime.settings.verbose) {
      const WriterStats s = writer->stats();
      const uint64_t snapshots = s.frames > 1 ? s.frames - 1 : 0;  // not the start frame
      warn("rank " + std::to_string(runtime.world_rank()) + ": time series " + writer->path() + ": " +
           std::to_string(snapshots) + " snapshots, " + std::to_string(s.bytes) + " bytes, " +
           std::to_string(snapshots ? s.seconds_total / static_cast<double>(snapshots) * 1e6 : 0.0) +
           " us of CPU time per snapshot on average, " + std::to_string(s.seconds_max * 1e6) + " us at most" +
           (s.failed_writes ? ", " + std::to_string(s.failed_writes) + " failed writes" : std::string()));
    }
  }
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
