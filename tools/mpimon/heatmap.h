// Heatmaps of a traffic matrix: in the terminal (shades) and as an SVG image (colour
// scale, axis labels). Large jobs are binned: at most `max_bins` rows and columns, each
// bin summing a block of consecutive ranks.
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
  std::vector<double> cells;  // bins x bins, row = sender
  double at(int32_t row, int32_t column) const { return cells[static_cast<size_t>(row) * bins + column]; }
  double max() const;
  // "rank 5" or "ranks 64-127": what row/column `bin` covers.
  std::string label(int32_t bin) const;
};

// O(non-zeros + bins^2). Averages are bytes / messages of the whole block.
Grid bin_matrix(const TrafficMatrix& matrix, Selection selection, Metric metric, int32_t max_bins = 64);

std::string format_terminal_heatmap(const Grid& grid, const std::string& title);
// Text for HTML/SVG: <, > and & escaped.
std::string escape_markup(const std::string& text);
std::string format_svg_heatmap(const Grid& grid, const std::string& title);

}  // namespace mpimon::tools

namespace mpimon::tools {

// Message-size histograms of one sender, per peer (rows) and size bucket (columns), from
// the dumps' histograms: job files per category (or all summed), .prof files as Open MPI
// keeps them (one histogram per peer for E and I traffic together).
std::string format_size_histograms(const std::vector<std::string>& dump_files, int32_t sender, Selection selection);

}  // namespace mpimon::tools
