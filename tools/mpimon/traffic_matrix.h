// Who sent how much to whom, per category, read from dump files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine.h"
#include "job_format.h"
#include "prof_format.h"

namespace mpimon::tools {

struct Traffic {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

class TrafficMatrix {
 public:
  void add(Category category, int32_t source, int32_t destination, Traffic traffic);
  // Adds every E/I/S/R/C line of a parsed .prof file.
  void add_prof(const ProfFile& file);
  // Adds every record of a job file (and takes its world size).
  void add_job(const JobFile& file);
  // The job has at least `ranks` processes (a job file's world size).
  void cover_ranks(int32_t ranks) { ranks_ = std::max(ranks_, ranks); }

  Traffic at(Category category, int32_t source, int32_t destination) const;
  int32_t ranks() const { return ranks_; }  // highest rank seen + 1
  bool has(Category category) const;
  const std::map<std::tuple<Category, int32_t, int32_t>, Traffic>& entries() const { return entries_; }

 private:
  std::map<std::tuple<Category, int32_t, int32_t>, Traffic> entries_;  // O(non-zeros)
  int32_t ranks_ = 0;
};

// Expands arguments to dump files: a file is taken as is, a folder gives its *.prof
// files, anything else is a prefix P giving P.<rank>.prof. Sorted by rank. Throws
// FormatError when nothing matches.
std::vector<std::string> expand_dump_arguments(const std::vector<std::string>& arguments);
// A job file is recognised by its first line (anything else is read as .prof).
bool is_job_file(const std::string& path);
// Reads job files and .prof files into one matrix.
TrafficMatrix read_dump_files(const std::vector<std::string>& paths);

enum class Metric { messages, bytes, average };  // average: bytes / messages

// Which records a matrix shows: one category, or all of them summed (as Open MPI's
// profile2mat.pl does for "all").
struct Selection {
  bool all = false;
  Category category = Category::external;
  std::string name() const { return all ? "all" : category_name(category); }
};

// The value of one cell; `symmetric` averages both directions, (a->b + b->a) / 2, for
// messages and bytes, and divides those for the average (Open MPI's profile2mat.pl).
double cell_value(const TrafficMatrix& matrix, Selection selection, Metric metric, int32_t source,
                  int32_t destination, bool symmetric);

// A dense text table (rows: sender, columns: receiver); "." for zero.
std::string format_text_matrix(const TrafficMatrix& matrix, Category category, Metric metric);

enum class FileFormat { csv, mat, matrix_market };
// A whole matrix in a file format:
//   csv            header "sender,<0>,<1>,...", one row per sender
//   mat            Open MPI's profile2mat.pl text: "%.0f " per cell, one line per sender
//   matrix_market  coordinate format, 1-based, only non-zero cells (O(non-zeros))
std::string format_matrix(const TrafficMatrix& matrix, Selection selection, Metric metric, FileFormat format,
                          bool symmetric);
const char* metric_name(Metric metric);
const char* file_extension(FileFormat format);

}  // namespace mpimon::tools
