// Report sections drawn from the per-pair records: totals, heatmaps, top talkers, sizes.
#include <algorithm>
#include <cstdio>

#include "heatmap.h"
#include "sections.h"

namespace mpimon::tools {

namespace {

const char* const kTitles[kCategoryCount] = {"Point-to-point, application (E)", "Point-to-point, internal (I)",
                                              "Collectives, logical pattern (C)", "One-sided, sent (S)",
                                              "One-sided, received (R)"};

struct Talk {
  uint64_t bytes, messages;
  int32_t source, destination;
  Category category;
};

// Every non-zero pair of every category, the busiest first.
std::vector<Talk> talks_by_bytes(const TrafficMatrix& matrix) {
  std::vector<Talk> talks;
  for (const auto& [key, t] : matrix.entries()) {
    const auto& [category, s, d] = key;
    talks.push_back({t.bytes, t.messages, s, d, category});
  }
  std::stable_sort(talks.begin(), talks.end(), [](const Talk& a, const Talk& b) { return a.bytes > b.bytes; });
  return talks;
}

}  // namespace

std::string totals_section(const ReportInput& input) {
  std::string out = "<h2>Totals</h2>\n<table><tr><th>category</th><th>messages</th><th>bytes</th><th>pairs</th></tr>\n";
  for (int c = 0; c < kCategoryCount; ++c) {
    uint64_t messages = 0, bytes = 0, pairs = 0;
    for (const auto& [key, t] : input.matrix.entries()) {
      if (std::get<0>(key) != static_cast<Category>(c)) continue;
      messages += t.messages;
      bytes += t.bytes;
      ++pairs;
    }
    if (pairs)
      out += "<tr><td style=\"text-align:left\">" + std::string(kTitles[c]) + "</td><td>" + std::to_string(messages) +
             "</td><td>" + std::to_string(bytes) + "</td><td>" + std::to_string(pairs) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string heatmaps_section(const ReportInput& input) {
  std::string out = "<h2>Who talks to whom (bytes)</h2>\n";
  for (int c = 0; c < kCategoryCount; ++c) {
    if (!input.matrix.has(static_cast<Category>(c))) continue;
    out += "<h3>" + std::string(kTitles[c]) + "</h3>\n" +
           format_svg_heatmap(bin_matrix(input.matrix, Selection{false, static_cast<Category>(c)}, Metric::bytes),
                              kTitles[c]);
  }
  return out;
}

std::string top_talkers_section(const ReportInput& input) {
  const std::vector<Talk> talks = talks_by_bytes(input.matrix);
  std::string out =
      "<h2>Top talkers</h2>\n<table><tr><th>from</th><th>to</th><th>category</th><th>bytes</th><th>messages</th>"
      "<th>bytes per message</th></tr>\n";
  for (size_t i = 0; i < std::min<size_t>(10, talks.size()); ++i) {
    const Talk& t = talks[i];
    char average[32];
    std::snprintf(average, sizeof average, "%.1f", t.messages ? static_cast<double>(t.bytes) / t.messages : 0.0);
    out += "<tr><td>" + std::to_string(t.source) + "</td><td>" + std::to_string(t.destination) + "</td><td>" +
           category_name(t.category) + "</td><td>" + std::to_string(t.bytes) + "</td><td>" +
           std::to_string(t.messages) + "</td><td>" + average + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string message_sizes_section(const ReportInput& input) {
  const std::vector<Talk> talks = talks_by_bytes(input.matrix);
  if (talks.empty()) return {};
  return "<h2>Message sizes</h2>\n<pre>" +
         escape_markup(format_size_histograms(input.files, talks.front().source, Selection{true})) + "</pre>\n";
}

}  // namespace mpimon::tools
