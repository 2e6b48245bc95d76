#include "matrix_formats.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace mpimon::tools {

namespace {

// How a cell's value is printed.
enum class Style {
  exact,       // integers in full, halves as ".5", averages in the shortest exact form
  profile2mat  // "%.0f" of every value, as profile2mat's printf
};

std::string shortest(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// The value of a cell: `halved` when the traffic is the sum of both directions.
std::string value_text(const Traffic& t, Metric metric, bool halved, Style style) {
  if (metric == Metric::average) {
    const double average = t.messages ? static_cast<double>(t.bytes) / static_cast<double>(t.messages) : 0.0;
    if (style == Style::exact) return shortest(average);
    char text[64];
    std::snprintf(text, sizeof text, "%.0f", average);
    return text;
  }
  const uint64_t v = metric == Metric::messages ? t.messages : t.bytes;
  if (style == Style::profile2mat) {
    char text[64];
    std::snprintf(text, sizeof text, "%.0f", halved ? static_cast<double>(v) / 2 : static_cast<double>(v));
    return text;
  }
  if (!halved) return std::to_string(v);
  return std::to_string(v / 2) + (v % 2 ? ".5" : "");
}

bool is_zero(const Traffic& t, Metric metric) {
  return metric == Metric::messages ? t.messages == 0 : t.bytes == 0;  // averages of no byte are 0
}

void check_dense(int32_t ranks, int32_t limit, const std::string& what) {
  if (ranks <= limit) return;
  throw std::invalid_argument(std::to_string(ranks) + " ranks: " + what + " stops at " + std::to_string(limit) +
                              " ranks (N x N cells); --format sparse (CSV of the non-zeros) or mtx (MatrixMarket) "
                              "list the non-zeros, `mpimon show` draws a binned heatmap");
}

std::vector<Cell> selected(const TrafficMatrix& matrix, const Selection& selection, bool symmetric) {
  std::vector<Cell> cells = matrix.cells(selection);
  return symmetric ? both_directions(cells) : cells;
}

// Calls row(from, cells of that row) for every row 0..ranks-1, in order, with the cells of
// the row (possibly none) as [begin, end).
template <typename Row>
void for_each_row(const std::vector<Cell>& cells, int32_t ranks, Row&& row) {
  auto it = cells.begin();
  for (int32_t from = 0; from < ranks; ++from) {
    auto end = it;
    while (end != cells.end() && end->from == from) ++end;
    row(from, it, end);
    it = end;
  }
}

}  // namespace

std::vector<Cell> both_directions(const std::vector<Cell>& cells) {
  std::vector<Cell> out;
  out.reserve(cells.size() * 2);
  for (const Cell& c : cells) {
    out.push_back(c);
    out.push_back({c.to, c.from, c.traffic});
  }
  std::sort(out.begin(), out.end(),
            [](const Cell& a, const Cell& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
  size_t n = 0;
  for (const Cell& c : out) {
    if (n > 0 && out[n - 1].from == c.from && out[n - 1].to == c.to) {
      out[n - 1].traffic.messages += c.traffic.messages;  // each below 4 x 2^60: no wrap-around
      out[n - 1].traffic.bytes += c.traffic.bytes;
    } else {
      out[n++] = c;
    }
  }
  out.resize(n);
  return out;
}

std::string format_text_matrix(const TrafficMatrix& matrix, const Selection& selection, Metric metric, bool symmetric) {
  const int32_t n = matrix.ranks();
  check_dense(n, kDenseTextRanks, "the terminal table");
  const std::vector<Cell> cells = selected(matrix, selection, symmetric);
  size_t width = std::to_string(std::max(n - 1, 0)).size();
  for (const Cell& c : cells) width = std::max(width, value_text(c.traffic, metric, symmetric, Style::exact).size());
  auto pad = [&](const std::string& s) { return std::string(width + 1 - s.size(), ' ') + s; };
  std::string out = std::string(width + 4, ' ');
  for (int32_t d = 0; d < n; ++d) out += pad(std::to_string(d));
  out += "   <- receiver\n";
  for_each_row(cells, n, [&](int32_t from, auto begin, auto end) {
    out += pad(std::to_string(from)) + " | ";
    int32_t next = 0;
    for (auto it = begin; it != end; ++it) {
      for (; next < it->to; ++next) out += pad(".");
      out += pad(is_zero(it->traffic, metric) ? "." : value_text(it->traffic, metric, symmetric, Style::exact));
      ++next;
    }
    for (; next < n; ++next) out += pad(".");
    out += '\n';
  });
  return out;
}

std::string format_matrix(const TrafficMatrix& matrix, const Selection& selection, Metric metric, FileFormat format,
                          bool symmetric) {
  const int32_t n = matrix.ranks();
  if (format == FileFormat::csv || format == FileFormat::mat)
    check_dense(n, kDenseFileRanks, format == FileFormat::csv ? "--format csv" : "--format mat");
  const std::vector<Cell> cells = selected(matrix, selection, symmetric);
  std::string out;
  const char* metric_word = metric == Metric::messages ? "messages" : metric == Metric::bytes ? "bytes" : "average";
  if (format == FileFormat::sparse_csv || format == FileFormat::matrix_market) {
    std::string body;
    size_t non_zeros = 0;
    for (const Cell& c : cells) {
      if (is_zero(c.traffic, metric)) continue;
      const std::string value = value_text(c.traffic, metric, symmetric, Style::exact);
      if (format == FileFormat::sparse_csv) {
        body += std::to_string(c.from) + ',' + std::to_string(c.to) + ',' + value + '\n';
      } else {
        body += std::to_string(int64_t{c.from} + 1) + ' ' + std::to_string(int64_t{c.to} + 1) + ' ' + value + '\n';
      }
      ++non_zeros;
    }
    if (format == FileFormat::sparse_csv) return std::string("sender,receiver,") + metric_word + '\n' + body;
    return "%%MatrixMarket matrix coordinate real general\n% mpimon: " + selection.name() + " " + metric_name(metric) +
           (symmetric ? " (symmetric average)" : "") + ", row = sender, column = receiver\n" + std::to_string(n) + ' ' +
           std::to_string(n) + ' ' + std::to_string(non_zeros) + '\n' + body;
  }
  const Style style = format == FileFormat::mat ? Style::profile2mat : Style::exact;
  const std::string zero = value_text({}, metric, false, style);
  if (format == FileFormat::csv) {
    out = "sender";
    for (int32_t d = 0; d < n; ++d) out += ',' + std::to_string(d);
    out += '\n';
  }
  // csv: "<from>,v,v,...", mat: "v v ... " (profile2mat's trailing space).
  auto cell_text = [&](const std::string& value) { return format == FileFormat::csv ? ',' + value : value + ' '; };
  for_each_row(cells, n, [&](int32_t from, auto begin, auto end) {
    if (format == FileFormat::csv) out += std::to_string(from);
    int32_t next = 0;
    for (auto it = begin; it != end; ++it) {
      for (; next < it->to; ++next) out += cell_text(zero);
      out += cell_text(value_text(it->traffic, metric, symmetric, style));
      ++next;
    }
    for (; next < n; ++next) out += cell_text(zero);
    out += '\n';
  });
  return out;
}

const char* metric_name(Metric metric) {
  switch (metric) {
    case Metric::messages:
      return "msg";
    case Metric::bytes:
      return "size";
    case Metric::average:
      return "avg";
  }
  return "?";
}

const char* file_extension(FileFormat format) {
  switch (format) {
    case FileFormat::csv:
      return "csv";
    case FileFormat::sparse_csv:
      return "csv";
    case FileFormat::mat:
      return "mat";
    case FileFormat::matrix_market:
      return "mtx";
  }
  return "?";
}

}  // namespace mpimon::tools
