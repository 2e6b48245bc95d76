// The files every rank writes together at the start of MPI_Finalize: its per-rank .prof
// file and its block of the job file. Collective over the dump communicator; every MPI
// call our end-of-job dump makes is here (so a check that all ranks run our components
// guards one place).
//
// How (docs/reliability.md, docs/formats.md):
// - .prof: each rank writes its own temporary (NewFile) and syncs it.
// - Job file: rank 0 creates one named temporary exclusively and broadcasts its name and
//   inode; every rank opens it (no create, no link followed, same inode), writes its
//   sealed block with pwrite at the offset an exscan of block sizes gives, syncs and
//   reads it back; the last rank adds the `eof` line. Rank 0 then checks the total size.
//   Plain POSIX, not MPI-IO: Open MPI 4.1.4's MPI_File_write_at_all reports success on
//   a full disk, and its sharedfp/ompio components crash on paths of ~225 characters or
//   more; our blocks are contiguous and written once, so collective buffering gains
//   nothing.
// - Names: one run number for the whole run (files/output_names.h), decided together, then
//   every file is published with link() (never overwrites); a name taken meanwhile by a
//   concurrent run makes every rank take its names back and try the next number.
// - A failure anywhere leaves no file under a final name and one line per failing rank.
#pragma once

#include <string>

#include <mpi.h>

#include "formats/job_format.h"

namespace mpimon {

struct Settings;

struct EndOfJobContent {
  bool prof_to_file = false;  // pml_monitoring_enable_output >= 3 with a prefix
  std::string prof_text;
  bool job_file = false;  // pml_monitoring_job_file not empty
  JobHeader job_header;   // rank 0 only
  std::string job_body;   // this rank's records and annotations
};

// Collective over `comm` (MPI_COMM_WORLD's ranks, in world-rank order).
void write_end_of_job_files(MPI_Comm comm, const Settings& settings, int world_rank, const EndOfJobContent& content);

}  // namespace mpimon
