// Who sent how much to whom, per category: the sparse matrix every command reads, and the
// selections (one category, or a named sum of categories) the commands show.
//
// Orientation: every matrix is oriented by data flow. A cell (from, to) holds the data that
// left process `from` and reached process `to`. The layers record at the process that made
// the call, so for every category but one the recorder is `from`; for one-sided gets
// (osc_recv, `R` lines) the caller is where the data arrived, so those records are
// transposed: target -> origin. docs/formats.md, "Reading the matrices".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"

namespace mpimon::tools {

struct Traffic {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

// Every count the tools keep stays below kCountLimit (engine/engine.h: 2^60, 1 EiB), once the
// inputs are summed, so that adding up the categories of a selection and both directions
// of a pair never overflows 64 bits (8 terms x 2^60 = 2^63). Larger counts are reported as
// input errors.

// Sums over any number of cells (each below kCountLimit) never wrap around in 128 bits.
using Total = unsigned __int128;
std::string total_text(Total total);  // in decimal

// One non-zero cell: data went from `from` to `to`.
struct Cell {
  int32_t from = 0;
  int32_t to = 0;
  Traffic traffic;
};

// What a matrix shows: one category or a named sum of categories. The sums are defined in
// one place, Selection::of:
//   all  = external + internal + osc_sent + osc_recv + io_shuffle: every byte that moved,
//          once. `coll` is left out because it is the collectives' logical pattern, whose
//          real messages are already in `internal` (or `external` at enable level 1): adding
//          it would count collectives twice.
//   communication = all but io_shuffle: what processes send each other, not the MPI-IO
//          library's collective-buffering shuffle (what `mpimon place` places by default).
//   osc  = osc_sent + osc_recv (profile2mat's `osc`).
class Selection {
 public:
  Selection() : Selection(Category::external) {}
  explicit Selection(Category category);
  // A category's name, osc, communication or all; throws std::invalid_argument.
  static Selection of(std::string_view name);
  static Selection all() { return of("all"); }
  // The names of() accepts (--category).
  static std::vector<std::string> names();

  bool includes(Category category) const { return (mask_ >> static_cast<int>(category)) & 1u; }
  const std::string& name() const { return name_; }
  // What it shows, for titles: "point-to-point, application (E)", ...
  std::string title() const;

 private:
  Selection(unsigned mask, std::string name) : mask_(mask), name_(std::move(name)) {}
  unsigned mask_;
  std::string name_;
};

class TrafficMatrix {
 public:
  // Adds one record as a dump holds it: `recorder` is the process that wrote it, `peer`
  // the other side (osc_recv records are transposed here). Records of the same category
  // and pair are summed (phases, concatenated .prof files); counts must be below
  // kCountLimit. The sums are formed by finish().
  void add(Category category, int32_t recorder, int32_t peer, Traffic traffic);
  // The job has at least `ranks` processes (a job file's world size, a .prof file's rank).
  void cover_ranks(int32_t ranks);
  // Sorts the cells and sums duplicates; throws FormatError when a sum reaches
  // kCountLimit. The accessors below call it when needed.
  void finish() const;

  // For a reader that must not find a pair twice in one input (a job file): where the cells
  // added so far end, and a (category, cell) added at least twice since then, if any.
  using Mark = std::array<size_t, kCategoryCount>;
  Mark mark() const;
  std::optional<std::pair<Category, Cell>> repeated_since(const Mark& mark);

  int32_t ranks() const { return ranks_; }  // highest rank seen + 1, or the world size
  bool has(Category category) const { return !cells(category).empty(); }
  bool has(const Selection& selection) const;
  // One category's cells, sorted by (from, to).
  const std::vector<Cell>& cells(Category category) const;
  // A selection's cells, sorted by (from, to), categories summed.
  std::vector<Cell> cells(const Selection& selection) const;
  Traffic at(Category category, int32_t from, int32_t to) const;
  size_t non_zeros() const;

 private:
  mutable std::array<std::vector<Cell>, kCategoryCount> cells_;  // O(non-zeros), 24 bytes each
  mutable bool sorted_ = true;
  int32_t ranks_ = 0;
};

// The highest rank an MPI job can have: sizes are `int`.
inline constexpr int32_t kMaxRank = 2147483646;

enum class Metric { messages, bytes, average };  // average: bytes / messages

}  // namespace mpimon::tools
