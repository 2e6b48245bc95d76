// A selection of a TrafficMatrix written out: the terminal table, CSV (dense, or only the
// non-zeros), Open MPI's profile2mat .mat text and MatrixMarket.
#pragma once

#include <cstdint>
#include <string>

#include "traffic_matrix.h"

namespace mpimon::tools {

enum class FileFormat { csv, sparse_csv, mat, matrix_market };

// Dense formats hold N x N cells, so they stop at these job sizes (std::invalid_argument
// naming the sparse alternatives beyond); sparse ones grow with the non-zeros only.
inline constexpr int32_t kDenseTextRanks = 128;   // the terminal table
inline constexpr int32_t kDenseFileRanks = 4096;  // csv and mat: 16.7 million cells

// The dense terminal table (rows: sender, columns: receiver); "." for zero.
std::string format_text_matrix(const TrafficMatrix& matrix, const Selection& selection, Metric metric,
                               bool symmetric = false);

// A whole matrix in a file format:
//   csv            header "sender,0,1,...", one row per sender (dense)
//   sparse_csv     header "sender,receiver,<metric>", one row per non-zero cell
//   mat            Open MPI's profile2mat text: "%.0f " per cell, one line per sender (dense)
//   matrix_market  coordinate format, 1-based, only non-zero cells
// `symmetric` gives (a->b + b->a) / 2 for messages and bytes, and their ratio for the
// average, as profile2mat does.
std::string format_matrix(const TrafficMatrix& matrix, const Selection& selection, Metric metric, FileFormat format,
                          bool symmetric);

// Cell (a, b) + cell (b, a) for every pair that has either, sorted; a diagonal cell counts
// twice (profile2mat adds a line to both (p1, p2) and (p2, p1)). Halve for the average.
std::vector<Cell> both_directions(const std::vector<Cell>& cells);

const char* metric_name(Metric metric);  // msg, size, avg (profile2mat's file names)
const char* file_extension(FileFormat format);

}  // namespace mpimon::tools
