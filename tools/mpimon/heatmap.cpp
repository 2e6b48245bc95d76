#include "heatmap.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace mpimon::tools {

double Grid::max() const {
  double m = 0;
  for (double v : cells) m = std::max(m, v);
  return m;
}

double Grid::min_non_zero() const {
  double m = 0;
  for (double v : cells)
    if (v > 0 && (m == 0 || v < m)) m = v;
  return m;
}

std::string Grid::label(int32_t bin) const {
  if (ranks_per_bin == 1) return "rank " + std::to_string(bin);
  const int64_t first = int64_t{bin} * ranks_per_bin, last = std::min<int64_t>(ranks, first + ranks_per_bin) - 1;
  return "ranks " + std::to_string(first) + "-" + std::to_string(last);
}

Grid bin_matrix(const TrafficMatrix& matrix, const Selection& selection, Metric metric, int32_t max_bins) {
  Grid g;
  g.ranks = matrix.ranks();
  max_bins = std::max(max_bins, 1);
  g.ranks_per_bin = static_cast<int32_t>(std::max<int64_t>(1, (int64_t{g.ranks} + max_bins - 1) / max_bins));
  g.bins = static_cast<int32_t>((int64_t{g.ranks} + g.ranks_per_bin - 1) / g.ranks_per_bin);
  if (selection.name() == category_name(Category::osc_recv)) {
    g.from_axis = "target (read from)";  // gets: the data left the target
    g.to_axis = "origin (reader)";
  }
  const size_t n = static_cast<size_t>(g.bins) * g.bins;
  std::vector<double> messages(n, 0), bytes(n, 0);
  for (int c = 0; c < kCategoryCount; ++c) {
    if (!selection.includes(static_cast<Category>(c))) continue;
    for (const Cell& cell : matrix.cells(static_cast<Category>(c))) {
      const size_t i = static_cast<size_t>(cell.from / g.ranks_per_bin) * g.bins + cell.to / g.ranks_per_bin;
      messages[i] += static_cast<double>(cell.traffic.messages);
      bytes[i] += static_cast<double>(cell.traffic.bytes);
    }
  }
  g.cells.resize(n);
  for (size_t i = 0; i < n; ++i) {
    g.cells[i] = metric == Metric::messages ? messages[i]
                 : metric == Metric::bytes  ? bytes[i]
                                            : (messages[i] > 0 ? bytes[i] / messages[i] : 0);
  }
  return g;
}

ColourScale::ColourScale(const Grid& grid) : low(grid.min_non_zero()), high(grid.max()) {
  logarithmic = low > 0 && high / low > 100;
}

double ColourScale::position(double v) const {
  if (v <= 0 || high <= low) return 1;
  const double p = logarithmic ? std::log(v / low) / std::log(high / low) : (v - low) / (high - low);
  return std::clamp(p, 0.0, 1.0);
}

std::string short_number(double v) {
  char text[32];
  if (v >= 1e12)
    std::snprintf(text, sizeof text, "%.3gT", v / 1e12);
  else if (v >= 1e9)
    std::snprintf(text, sizeof text, "%.3gG", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(text, sizeof text, "%.3gM", v / 1e6);
  else if (v >= 1e4)
    std::snprintf(text, sizeof text, "%.3gk", v / 1e3);
  else if (v == std::floor(v))
    std::snprintf(text, sizeof text, "%.0f", v);
  else
    std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

namespace {

// The exact value when short_number rounds it.
std::string full_number(double v) {
  const std::string s = short_number(v);
  char text[64];
  std::snprintf(text, sizeof text, v == std::floor(v) ? "%.0f" : "%.6g", v);
  return s == text ? s : s + " (" + text + ")";
}

}  // namespace

std::string format_terminal_heatmap(const Grid& g, const std::string& title) {
  static const std::array<const char*, 4> shades = {"░░", "▒▒", "▓▓", "██"};
  const ColourScale scale(g);
  std::string out = title + "\n";
  if (g.ranks_per_bin > 1)
    out += "(" + std::to_string(g.ranks) + " ranks binned by " + std::to_string(g.ranks_per_bin) +
           "; rows and columns are labelled with their first rank)\n";
  const int width = static_cast<int>(std::to_string(g.first_rank(std::max(g.bins - 1, 0))).size());
  auto pad = [&](int64_t v) {
    std::string s = std::to_string(v);
    return std::string(width - static_cast<int>(s.size()), ' ') + s;
  };
  // Column labels: every `step`-th column (2 characters each), as dense as they fit.
  int step = 1;
  while (width + 1 > 2 * step) step *= 2;
  std::string header(width + 3, ' ');
  for (int32_t c = 0; c < g.bins; c += step) {
    const std::string mark = std::to_string(g.first_rank(c));
    header += mark + std::string(2 * step - mark.size(), ' ');
  }
  out += header + " <- " + g.to_axis + "\n";
  for (int32_t r = 0; r < g.bins; ++r) {
    out += pad(g.first_rank(r)) + " | ";
    for (int32_t c = 0; c < g.bins; ++c) {
      const double v = g.at(r, c);
      if (v <= 0) {
        out += r == c ? "\\\\" : "  ";
        continue;
      }
      out += shades[static_cast<size_t>(std::min(3.0, std::floor(scale.position(v) * 4)))];
    }
    out += " |\n";
  }
  out += std::string(width + 1, ' ') + "rows: " + g.from_axis + "; scale (" + (scale.logarithmic ? "log" : "linear") +
         "): ░░ " + short_number(scale.low) + "  ▒▒  ▓▓  ██ " + short_number(scale.high) +
         " (max)   blank: none   \\\\: self\n";
  return out;
}

namespace {

// Viridis at five stops, interpolated.
std::array<int, 3> rgb(double t) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  std::array<int, 3> c{};
  for (int k = 0; k < 3; ++k) c[k] = static_cast<int>(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
  return c;
}

std::string colour(double t) {
  const auto c = rgb(t);
  char text[16];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c[0], c[1], c[2]);
  return text;
}

}  // namespace

std::string escape_markup(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string format_svg_heatmap(const Grid& g, const std::string& title) {
  const int cell = std::clamp(640 / std::max(1, g.bins), 4, 64);
  const int left = 80, top = 50, side = cell * g.bins, bar = 20;
  const int width = left + side + 140, height = top + side + 60;
  const ColourScale scale(g);
  const bool numbers = cell >= 30;  // the value in each cell
  auto n = [](long v) { return std::to_string(v); };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + n(width) + "\" height=\"" + n(height) +
                  "\" viewBox=\"0 0 " + n(width) + " " + n(height) +
                  "\" style=\"max-width:100%;height:auto\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"" + n(left) + "\" y=\"20\" font-size=\"14\">" + escape_markup(title) + "</text>\n";
  s += "<text x=\"" + n(left + side / 2) + "\" y=\"" + n(top - 22) + "\" text-anchor=\"middle\">" +
       escape_markup(g.to_axis) + "</text>\n";
  s += "<text x=\"15\" y=\"" + n(top + side / 2) + "\" transform=\"rotate(-90 15 " + n(top + side / 2) +
       ")\" text-anchor=\"middle\">" + escape_markup(g.from_axis) + "</text>\n";
  // Empty cells are the grid's background; each other cell has its colour and a tooltip.
  s += "<rect x=\"" + n(left) + "\" y=\"" + n(top) + "\" width=\"" + n(side) + "\" height=\"" + n(side) +
       "\" fill=\"#f4f4f4\"/>\n";
  for (int32_t r = 0; r < g.bins; ++r) {
    for (int32_t c = 0; c < g.bins; ++c) {
      const double v = g.at(r, c);
      if (v <= 0) continue;
      const int x = left + c * cell, y = top + r * cell;
      s += "<rect x=\"" + n(x) + "\" y=\"" + n(y) + "\" width=\"" + n(cell) + "\" height=\"" + n(cell) + "\" fill=\"" +
           colour(scale.position(v)) + "\"><title>" + escape_markup(g.label(r)) + " -> " + escape_markup(g.label(c)) +
           ": " + full_number(v) + "</title></rect>\n";
      if (numbers)
        s += "<text x=\"" + n(x + cell / 2) + "\" y=\"" + n(y + cell / 2 + 4) +
             "\" text-anchor=\"middle\" font-size=\"" + n(std::min(12, cell / 3)) + "\" fill=\"" +
             (scale.position(v) > 0.6 ? "black" : "white") + "\" pointer-events=\"none\">" + short_number(v) +
             "</text>\n";
    }
  }
  // Axis labels (first rank of the bin): at most about 16 per axis.
  const int32_t step = std::max<int32_t>(1, (g.bins + 15) / 16);
  for (int32_t b = 0; b < g.bins; b += step) {
    const std::string label = std::to_string(g.first_rank(b));
    s += "<text x=\"" + n(left + b * cell + cell / 2) + "\" y=\"" + n(top - 6) + "\" text-anchor=\"middle\">" + label +
         "</text>\n";
    s += "<text x=\"" + n(left - 6) + "\" y=\"" + n(top + b * cell + cell / 2 + 4) + "\" text-anchor=\"end\">" + label +
         "</text>\n";
  }
  // Colour scale, the smallest non-zero value at the bottom.
  const int bx = left + side + 30, steps = 50;
  for (int i = 0; i < steps; ++i) {
    s += "<rect x=\"" + n(bx) + "\" y=\"" + n(top + side - (i + 1) * side / steps) + "\" width=\"" + n(bar) +
         "\" height=\"" + n(side / steps + 1) + "\" fill=\"" + colour(i / double(steps - 1)) + "\"/>\n";
  }
  s += "<text x=\"" + n(bx + bar + 4) + "\" y=\"" + n(top + 10) + "\">" + short_number(scale.high) + "</text>\n";
  s += "<text x=\"" + n(bx + bar + 4) + "\" y=\"" + n(top + side) + "\">" + short_number(scale.low) + "</text>\n";
  s += "<text x=\"" + n(bx) + "\" y=\"" + n(top + side + 20) + "\">" + (scale.logarithmic ? "log" : "linear") +
       " scale</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace mpimon::tools
