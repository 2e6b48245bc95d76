// Per-file totals over the ranks of the MPI-IO records (readers/io_reader.h): what the
// application asked against what reached the file system and what failed there, the
// shuffle, the aggregators, the time. One summary for `mpimon report` (HTML) and
// `mpimon show` (terminal text); memory grows with the files, the table with at most
// kMaxFileRows rows (the busiest).
#pragma once

#include <string>
#include <vector>

#include "readers/io_reader.h"
#include "traffic_matrix.h"  // Total

namespace mpimon::tools {

struct IoFileSummary {
  std::string name;        // the file's name, its identity if no line named it
  size_t ranks = 0;        // ranks with a record of the file
  std::string components;  // "ompio/vulcan", "romio321", ... distinct, space-separated
  Total asked[mpi_io::kDirectionCount] = {}, reached[mpi_io::kDirectionCount] = {};
  Total failed_operations[mpi_io::kDirectionCount] = {}, failed_bytes[mpi_io::kDirectionCount] = {};
  Total shuffle = 0;  // bytes
  size_t aggregators = 0;
  double seconds[mpi_io::kTimerCount] = {};
  bool file_system = false;  // some rank ran ompio (the file-system view exists)

  Total bytes() const;  // asked + reached + failed: how busy the file was
  bool any_failed() const;
};

// In identity order.
std::vector<IoFileSummary> summarize_files(const mpi_io::IoTable& io);

// "read asked ... failed" as a terminal table (one line per file, the busiest
// kMaxFileRows, then a line saying how many more), or "" without files.
inline constexpr size_t kMaxFileRows = 64;
std::string format_io_summary_text(const std::vector<IoFileSummary>& files);

}  // namespace mpimon::tools
