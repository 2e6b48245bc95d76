// Reading the I/O lines of the dumps back (io_format.h): the `# IO_*` lines of .prof
// files and the `io_*` annotations of job files (version 3), into one table per job for
// the tools and the tests. Memory grows with the (rank, file) pairs and the shuffle's
// (rank, file, peer) triples, never with calls; histograms are kept per file (all ranks
// together), not per rank.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/mpi_io/file_record.h"

namespace mpimon {
struct JobAnnotation;  // readers/job_reader.h
}

namespace mpimon::mpi_io {

// What one rank did with one file.
struct RankUse {
  std::string io, fcoll;  // "" when not known
  uint64_t meta[kMetaOpCount] = {};
  uint64_t nonblocking_calls = 0, split_calls = 0, collective_calls = 0, aggregated_calls = 0;
  double seconds[kTimerCount] = {};  // read, write, meta
  PeerTraffic asked[kAccessCount];   // messages = calls
  struct Fs {
    uint64_t operations = 0, entries = 0, bytes = 0, consecutive = 0, sequential = 0;
    uint64_t end = 0;                                  // highest offset + length (the largest over the inputs)
    uint64_t failed_operations = 0, failed_bytes = 0;  // never in the above (FsTotals)
  };
  Fs fs[kDirectionCount];
  std::map<int32_t, PeerTraffic> shuffle;  // world rank -> sent

  uint64_t asked_bytes(Direction d) const;
  uint64_t asked_calls(Direction d) const;
};

struct FileInfo {
  std::string name;              // unescaped; "" until a line names it
  std::vector<int32_t> members;  // world ranks (job files' io_file line), else empty
  std::map<int32_t, RankUse> ranks;
  // Histograms, all ranks together, only of the access families (index: Access) and
  // directions (index: Direction) used: ~550 bytes each, not 7.7 KB per file.
  std::map<int, Counters> asked_sizes;  // call sizes
  std::map<int, Counters> fs_sizes;     // entry sizes
};

class IoTable {
 public:
  // A .prof line starting with "# IO_FILE", "# IO_ASKED", "# IO_FS", "# IO_FS_FAILED" or
  // "# IO_SHUFFLE" (true), or another line (false, untouched). Malformed I/O lines throw FormatError
  // "<source>:<line>: expected ...".
  bool add_prof_line(std::string_view line, std::string_view source, size_t line_no);
  // A job-file annotation with an io_ keyword (true), or another one (false).
  // `world_size` bounds every rank.
  bool add_job_annotation(const JobAnnotation& annotation, std::string_view source, int32_t world_size);

  // Adds another table's files (several dumps of one job).
  void merge(const IoTable& other);

  // identity -> file, in identity order.
  const std::map<std::string, FileInfo>& files() const { return files_; }
  bool empty() const { return files_.empty(); }

 private:
  friend struct IoRecordKinds;  // io_reader.cpp: the record kinds of both dialects
  FileInfo& file(std::string_view identity);
  std::map<std::string, FileInfo> files_;
};

// Is `line` one of the .prof I/O lines ("# MPI-IO" or "# IO_...")?
bool is_prof_io_line(std::string_view line);

}  // namespace mpimon::mpi_io
