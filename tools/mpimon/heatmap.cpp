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

std::string Grid::label(int32_t bin) const {
  if (ranks_per_bin == 1) return "rank " + std::to_string(bin);
  const int32_t first = bin * ranks_per_bin, last = std::min(ranks, first + ranks_per_bin) - 1;
  return "ranks " + std::to_string(first) + "-" + std::to_string(last);
}

Grid bin_matrix(const TrafficMatrix& matrix, Selection selection, Metric metric, int32_t max_bins) {
  Grid g;
  g.ranks = matrix.ranks();
  g.ranks_per_bin = std::max<int32_t>(1, (g.ranks + max_bins - 1) / max_bins);
  g.bins = (g.ranks + g.ranks_per_bin - 1) / g.ranks_per_bin;
  const size_t n = static_cast<size_t>(g.bins) * g.bins;
  std::vector<double> messages(n, 0), bytes(n, 0);
  for (const auto& [key, traffic] : matrix.entries()) {
    const auto& [category, source, destination] = key;
    if (!selection.all && category != selection.category) continue;
    const size_t cell = static_cast<size_t>(source / g.ranks_per_bin) * g.bins + destination / g.ranks_per_bin;
    messages[cell] += static_cast<double>(traffic.messages);
    bytes[cell] += static_cast<double>(traffic.bytes);
  }
  g.cells.resize(n);
  for (size_t i = 0; i < n; ++i) {
    g.cells[i] = metric == Metric::messages ? messages[i]
                 : metric == Metric::bytes  ? bytes[i]
                                            : (messages[i] > 0 ? bytes[i] / messages[i] : 0);
  }
  return g;
}

namespace {

// Position of v in [0, 1] on a log scale up to `max` (0 stays 0).
double level(double v, double max) {
  if (v <= 0 || max <= 0) return 0;
  return max <= 1 ? 1 : std::clamp(std::log1p(v) / std::log1p(max), 0.0, 1.0);
}

std::string short_number(double v) {
  char text[32];
  if (v >= 1e9) std::snprintf(text, sizeof text, "%.1fG", v / 1e9);
  else if (v >= 1e6) std::snprintf(text, sizeof text, "%.1fM", v / 1e6);
  else if (v >= 1e4) std::snprintf(text, sizeof text, "%.1fk", v / 1e3);
  else std::snprintf(text, sizeof text, "%.0f", v);
  return text;
}

}  // namespace

std::string format_terminal_heatmap(const Grid& g, const std::string& title) {
  static const std::array<const char*, 5> shades = {"░░", "▒▒", "▓▓", "██", "██"};
  const double max = g.max();
  std::string out = title + "\n";
  if (g.ranks_per_bin > 1)
    out += "(" + std::to_string(g.ranks) + " ranks binned by " + std::to_string(g.ranks_per_bin) + ")\n";
  const int width = static_cast<int>(std::to_string(std::max(g.bins - 1, 0)).size());
  auto pad = [&](int32_t v) {
    std::string s = std::to_string(v);
    return std::string(width - s.size(), ' ') + s;
  };
  // Column header: a bin number every 4 columns (2 characters each).
  std::string header(width + 3, ' ');
  for (int32_t c = 0; c < g.bins; c += 4) {
    std::string mark = std::to_string(c);
    header += mark + std::string(std::max<int>(0, 8 - static_cast<int>(mark.size())), ' ');
  }
  out += header + "  <- receiver\n";
  for (int32_t r = 0; r < g.bins; ++r) {
    out += pad(r) + " | ";
    for (int32_t c = 0; c < g.bins; ++c) {
      const double v = g.at(r, c);
      if (v <= 0) {
        out += r == c ? "\\\\" : "  ";
        continue;
      }
      out += shades[static_cast<size_t>(std::min(3.0, std::floor(level(v, max) * 3.999)))];
    }
    out += " |\n";
  }
  out += std::string(width + 1, ' ') + "scale (log): ░░ low  ▒▒  ▓▓  ██ " + short_number(max) +
         " (max)   blank: none   \\\\: self\n";
  return out;
}

namespace {

// Viridis at five stops, interpolated.
std::string colour(double t) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  char text[16];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
                static_cast<int>(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])),
                static_cast<int>(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
  return text;
}

}  // namespace

std::string escape_markup(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::string format_svg_heatmap(const Grid& g, const std::string& title) {
  const int cell = std::max(4, 640 / std::max(1, g.bins));
  const int left = 80, top = 50, side = cell * g.bins, bar = 20;
  const int width = left + side + 120, height = top + side + 60;
  const double max = g.max();
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                  std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"" + std::to_string(left) + "\" y=\"20\" font-size=\"14\">" + escape_markup(title) + "</text>\n";
  s += "<text x=\"" + std::to_string(left + side / 2) + "\" y=\"" + std::to_string(top - 22) +
       "\" text-anchor=\"middle\">receiver</text>\n";
  s += "<text x=\"15\" y=\"" + std::to_string(top + side / 2) + "\" transform=\"rotate(-90 15 " +
       std::to_string(top + side / 2) + ")\" text-anchor=\"middle\">sender</text>\n";
  for (int32_t r = 0; r < g.bins; ++r) {
    for (int32_t c = 0; c < g.bins; ++c) {
      const double v = g.at(r, c);
      s += "<rect x=\"" + std::to_string(left + c * cell) + "\" y=\"" + std::to_string(top + r * cell) +
           "\" width=\"" + std::to_string(cell) + "\" height=\"" + std::to_string(cell) + "\" fill=\"" +
           (v > 0 ? colour(level(v, max)) : std::string("#f4f4f4")) + "\"><title>" + escape_markup(g.label(r)) +
           " -> " + escape_markup(g.label(c)) + ": " + short_number(v) + "</title></rect>\n";
    }
  }
  // Axis labels: at most about 16 per axis.
  const int32_t step = std::max<int32_t>(1, (g.bins + 15) / 16);
  for (int32_t b = 0; b < g.bins; b += step) {
    const std::string label = std::to_string(b * g.ranks_per_bin);
    s += "<text x=\"" + std::to_string(left + b * cell + cell / 2) + "\" y=\"" + std::to_string(top - 6) +
         "\" text-anchor=\"middle\">" + label + "</text>\n";
    s += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(top + b * cell + cell / 2 + 4) +
         "\" text-anchor=\"end\">" + label + "</text>\n";
  }
  // Colour scale (log), min at the bottom.
  const int bx = left + side + 30;
  for (int i = 0; i < 50; ++i) {
    s += "<rect x=\"" + std::to_string(bx) + "\" y=\"" + std::to_string(top + side - (i + 1) * side / 50) +
         "\" width=\"" + std::to_string(bar) + "\" height=\"" + std::to_string(side / 50 + 1) + "\" fill=\"" +
         colour(i / 49.0) + "\"/>\n";
  }
  s += "<text x=\"" + std::to_string(bx + bar + 4) + "\" y=\"" + std::to_string(top + 10) + "\">" + short_number(max) +
       "</text>\n";
  s += "<text x=\"" + std::to_string(bx + bar + 4) + "\" y=\"" + std::to_string(top + side) + "\">1</text>\n";
  s += "<text x=\"" + std::to_string(bx) + "\" y=\"" + std::to_string(top + side + 20) + "\">log scale</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace mpimon::tools

#include <fstream>
#include <map>

namespace mpimon::tools {

namespace {

// "[1 KiB, 2 KiB)" style label of a histogram bucket.
std::string bucket_label(int bucket) {
  if (bucket == 0) return "0";
  auto size = [](unsigned long long v) {
    static const char* units[] = {"", "K", "M", "G", "T", "P", "E"};
    int u = 0;
    while (v >= 1024 && v % 1024 == 0 && u < 6) v /= 1024, ++u;
    return std::to_string(v) + units[u];
  };
  return "<" + size(bucket == 64 ? ~0ull : 1ull << bucket);
}

}  // namespace

std::string format_size_histograms(const std::vector<std::string>& files, int32_t sender, Selection selection) {
  std::map<int32_t, std::array<uint64_t, kHistogramBuckets>> per_peer;
  for (const std::string& path : files) {
    if (is_job_file(path)) {
      for_each_job_record(read_dump_text(path), path, [&](const JobRecord& r) {
        if (r.source != sender || (!selection.all && r.category != selection.category)) return;
        auto& h = per_peer[r.destination];
        for (int b = 0; b < kHistogramBuckets; ++b) h[b] += r.counters.histogram[b];
      });
    } else {
      for (const ProfLine& l : read_prof_file(path).lines)
        if (l.me == sender && l.has_histogram) {
          auto& h = per_peer[l.peer];
          for (int b = 0; b < kHistogramBuckets; ++b) h[b] += l.histogram[b];
        }
    }
  }
  if (per_peer.empty()) return "rank " + std::to_string(sender) + " sent no message with a size histogram\n";
  int low = kHistogramBuckets, high = -1;
  for (const auto& [peer, h] : per_peer)
    for (int b = 0; b < kHistogramBuckets; ++b)
      if (h[b]) low = std::min(low, b), high = std::max(high, b);
  std::string out = "message sizes sent by rank " + std::to_string(sender) + " (" + selection.name() +
                    "), messages per size class\n";
  auto cell = [](const std::string& s) { return std::string(s.size() < 8 ? 8 - s.size() : 0, ' ') + s; };
  out += cell("to") + " |";
  for (int b = low; b <= high; ++b) out += cell(bucket_label(b));
  out += "\n";
  std::array<uint64_t, kHistogramBuckets> total{};
  for (const auto& [peer, h] : per_peer) {
    out += cell(std::to_string(peer)) + " |";
    for (int b = low; b <= high; ++b) {
      out += cell(h[b] ? std::to_string(h[b]) : ".");
      total[b] += h[b];
    }
    out += "\n";
  }
  out += cell("all") + " |";
  for (int b = low; b <= high; ++b) out += cell(std::to_string(total[b]));
  out += "\n";
  return out;
}

}  // namespace mpimon::tools
