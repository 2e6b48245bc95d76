#include "runtime/end_of_job_files_ompi.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "files/atomic_file.h"
#include "files/output_names.h"
#include "runtime/runtime.h"

namespace mpimon {
namespace {

// Rank 0's broadcast: the job file's temporary. Unnamed where the file system allows:
// ranks on rank 0's host open it through /proc/<pid>/fd/<fd>, so nothing is ever visible
// in the folder and a job killed at any moment (mpirun may SIGKILL without SIGTERM)
// leaves nothing. Ranks elsewhere make rank 0 give it a hidden name.
struct SharedTemporary {
  char name[96] = {};  // empty: unnamed
  uint64_t inode = 0, device = 0;
  int pid = 0, fd = -1;
  int created = 0;
};

// Opens the job file's temporary on every rank (rank 0 creates it). Collective.
// Returns false on every rank if rank 0 could not create it (rank 0 says why).
bool open_job_temporary(MPI_Comm comm, int rank, const std::string& path, NewFile& job, FileError& error) {
  SharedTemporary shared;
  if (rank == 0) {
    remove_stale_temporaries(folder_of(path));  // named ones of killed runs
    job = NewFile::create(path, error);
    if (!error) {
      std::snprintf(shared.name, sizeof shared.name, "%s", job.temporary_name().c_str());
      shared.inode = job.inode();
      shared.device = job.device();
      shared.pid = static_cast<int>(::getpid());
      shared.fd = job.descriptor();
      shared.created = 1;
    }
  }
  PMPI_Bcast(&shared, sizeof shared, MPI_BYTE, 0, comm);
  if (!shared.created) {
    if (rank == 0) warn("job file " + path + " not written: " + error.message);
    return false;
  }
  if (rank != 0 && shared.name[0] == '\0')
    job = NewFile::join_unnamed(path, shared.pid, shared.fd, shared.inode, shared.device, error);
  int needs_name = rank != 0 && shared.name[0] == '\0' && error ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &needs_name, 1, MPI_INT, MPI_MAX, comm);
  if (needs_name) {  // some rank is on another host: name it
    if (rank == 0 && shared.name[0] == '\0') {
      FileError naming;
      if (job.name_for_others(naming))
        std::snprintf(shared.name, sizeof shared.name, "%s", job.temporary_name().c_str());
      else
        warn("job file " + path + " not written: " + naming.message);
    }
    PMPI_Bcast(shared.name, sizeof shared.name, MPI_CHAR, 0, comm);
  }
  if (rank != 0 && (shared.name[0] != '\0' && !job.is_open())) {
    error = {};
    job = NewFile::join(path, shared.name, shared.inode, error);
  }
  return true;
}

// Writes this rank's block into the job file's temporary. Collective. On return, `job`
// (rank 0) holds the complete, synced, size-checked temporary, or is closed. Returns
// the file's size (rank 0) and prints each failing rank's reason.
uint64_t write_job_temporary(MPI_Comm comm, int rank, int size, const std::string& path, const EndOfJobContent& content,
                             NewFile& job) {
  std::string block = (rank == 0 ? format_job_header(content.job_header) : std::string()) + content.job_body;
  seal_job_block(rank, block);
  unsigned long long length = block.size(), offset = 0;
  PMPI_Exscan(&length, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  if (rank == 0) offset = 0;  // Exscan leaves rank 0's result undefined
  if (rank == size - 1) block += job_end_line(offset + block.size());

  FileError error;
  if (!open_job_temporary(comm, rank, path, job, error)) return 0;
  if (!error) job.write_at(offset, block, error);
  if (!error) job.verify_at(offset, block, error);
  // Local file systems report a full disk at write; NFS and Lustre at the latest at
  // close, which also makes the data visible to rank 0's size check. Rank 0 syncs the
  // whole file once everyone is done.
  if (!error && rank != 0) job.close(error);
  if (error) warn("rank " + std::to_string(rank) + ": job file " + path + " not written: " + error.message);
  // Everyone's outcome, and the total size (from the last rank); this also orders every
  // write before rank 0's checks.
  unsigned long long status[2] = {error ? 1ull : 0ull, rank == size - 1 ? offset + block.size() : 0ull};
  PMPI_Allreduce(MPI_IN_PLACE, status, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  if (rank != 0) {
    job.discard();  // joined: closes only
    return 0;
  }
  if (status[0] != 0) {
    if (!error)
      warn("job file " + path + " not written: " + std::to_string(status[0]) +
           " rank(s) could not write their records (see their messages)");
    job.discard();
    return 0;
  }
  if (!job.finish(error, static_cast<int64_t>(status[1]))) {
    warn("job file " + path + " not written: " + error.message);
    job.discard();
    return 0;
  }
  return status[1];
}

}  // namespace

void write_end_of_job_files(MPI_Comm comm, const Settings& settings, int rank, const EndOfJobContent& content) {
  if (!content.prof_to_file && !content.job_file) return;
  const auto started = std::chrono::steady_clock::now();
  int size = 0;
  PMPI_Comm_size(comm, &size);

  // .prof files: all or none. A missing rank would read as a rank that sent nothing.
  NewFile prof;
  if (content.prof_to_file) {
    const std::string folder = folder_of(prof_file_name(settings.dump_prefix, 0, rank));
    if (rank == 0 && (!content.job_file || folder != folder_of(settings.job_file)))
      remove_stale_temporaries(folder);  // named temporaries of killed runs (where O_TMPFILE is missing)
    FileError error;
    prof = NewFile::create(prof_file_name(settings.dump_prefix, 0, rank), error);
    if (!error) prof.write(content.prof_text, error);
    if (!error) prof.finish(error);
    if (error) warn("rank " + std::to_string(rank) + ": monitoring dump not written: " + error.message);
    int failed = error ? 1 : 0;
    PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, comm);
    if (failed != 0) {
      if (rank == 0)
        warn("no .prof file written: " + std::to_string(failed) +
             " rank(s) could not write theirs (see their messages), and a partial set would read as ranks that sent "
             "nothing");
      prof.discard();
    }
  }
  NewFile job;
  const uint64_t job_bytes =
      content.job_file ? write_job_temporary(comm, rank, size, settings.job_file, content, job) : 0;
  const bool job_named = !job.temporary_name().empty();  // rank 0: some rank could not reach it unnamed

  // One run number for every file of the run (files/output_names.h).
  std::vector<RunOutput> outputs(2);
  outputs[0].file = &job;
  outputs[0].name_for = [&](int n) { return numbered_name(settings.job_file, n); };
  outputs[1].file = &prof;
  outputs[1].name_for = [&](int n) { return prof_file_name(settings.dump_prefix, n, rank); };
  const int run = publish_run_outputs(
      outputs,
      [&](int mine) {
        int values[2] = {mine, -mine};
        PMPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT, MPI_MAX, comm);
        return std::make_pair(values[0], -values[1]);
      },
      settings.first_run_number);
  if (outputs[0].error) warn("job file " + settings.job_file + " not written: " + outputs[0].error.message);
  if (outputs[1].error)
    warn("rank " + std::to_string(rank) + ": monitoring dump not written: " + outputs[1].error.message);

  if (rank == 0 && run > 0) {
    std::string names;
    if (content.job_file) names = "job file " + numbered_name(settings.job_file, run);
    if (content.prof_to_file)
      names += (names.empty() ? "" : " and ") + std::string(".prof files ") + numbered_name(settings.dump_prefix, run) +
               ".<rank>.prof";
    warn("files of an earlier run are in the way, and nothing is overwritten: this run's " + names);
  }
  if (rank == 0 && settings.verbose && job_bytes > 0) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    warn("job file " + numbered_name(settings.job_file, run) + ": " + std::to_string(job_bytes) + " bytes from " +
         std::to_string(size) + " ranks, written in " + std::to_string(ms) + " ms (" +
         (job_named ? "a named temporary: some ranks could not open rank 0's unnamed one" : "an unnamed temporary") +
         ")");
  }
}

}  // namespace mpimon
