// Heatmaps of a traffic matrix: in the terminal (shades) and as an SVG image (colour
// scale, axis labels, the value in each cell when cells are large enough, a tooltip per
// cell). Large jobs are binned: at most `max_bins` rows and columns, each bin summing a
// block of consecutive ranks, so memory and work are O(non-zeros + bins^2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traffic_matrix.h"

namespace mpimon::tools {

struct Grid {
  int32_t ranks = 0;          // job size
  int32_t bins = 0;           // rows = columns
  int32_t ranks_per_bin = 1;  // 1: one cell per rank pair
  std::vector<double> cells;  // bins x bins, row = where the data came from
  std::string from_axis = "sender", to_axis = "receiver";
  double at(int32_t row, int32_t column) const { return cells[static_cast<size_t>(row) * bins + column]; }
  double max() const;
  double min_non_zero() const;  // 0 when every cell is 0
  int32_t first_rank(int32_t bin) const { return static_cast<int32_t>(int64_t{bin} * ranks_per_bin); }
  // "rank 5" or "ranks 64-127": what row/column `bin` covers.
  std::string label(int32_t bin) const;
};

// Averages are bytes / messages of the whole block.
Grid bin_matrix(const TrafficMatrix& matrix, const Selection& selection, Metric metric, int32_t max_bins = 64);

// Where a value sits on a grid's colour scale, in [0, 1]: from the smallest non-zero cell to
// the largest, linear when they are less than 100 times apart, logarithmic beyond.
struct ColourScale {
  double low = 0, high = 0;
  bool logarithmic = false;
  explicit ColourScale(const Grid& grid);
  double position(double value) const;
};

std::string format_terminal_heatmap(const Grid& grid, const std::string& title);
// Text for HTML/SVG: <, >, & and " escaped.
std::string escape_markup(const std::string& text);
std::string format_svg_heatmap(const Grid& grid, const std::string& title);
// 1234 -> "1234", 12345 -> "12.3k", 232e6 -> "232M", ...
std::string short_number(double value);

}  // namespace mpimon::tools
