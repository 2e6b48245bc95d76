// Report sections drawn from the per-pair records: totals, heatmaps, top talkers, sizes.
#include <algorithm>
#include <cstdio>

#include "heatmap.h"
#include "report/sections.h"
#include "size_histograms.h"

namespace mpimon::tools {

namespace {

std::string cell(const std::string& text) { return "<td>" + text + "</td>"; }
std::string name_cell(const std::string& text) { return "<td class=\"name\">" + escape_markup(text) + "</td>"; }

struct Talk {
  Cell cell;
  Category category;
};

// The `count` busiest cells of every category by bytes (ties: the lowest ranks first).
std::vector<Talk> busiest_talks(const TrafficMatrix& matrix, size_t count) {
  auto busier = [](const Talk& a, const Talk& b) {
    if (a.cell.traffic.bytes != b.cell.traffic.bytes) return a.cell.traffic.bytes > b.cell.traffic.bytes;
    return std::tie(a.cell.from, a.cell.to, a.category) < std::tie(b.cell.from, b.cell.to, b.category);
  };
  std::vector<Talk> top;  // a heap of at most `count`, the least busy on top
  for (int c = 0; c < kCategoryCount; ++c) {
    for (const Cell& x : matrix.cells(static_cast<Category>(c))) {
      top.push_back({x, static_cast<Category>(c)});
      std::push_heap(top.begin(), top.end(), busier);
      if (top.size() > count) {
        std::pop_heap(top.begin(), top.end(), busier);
        top.pop_back();
      }
    }
  }
  std::sort(top.begin(), top.end(), busier);
  return top;
}

}  // namespace

std::string totals_section(const ReportInput& input) {
  std::string out = "<h2>Totals</h2>\n<table><tr><th>traffic</th><th>messages</th><th>bytes</th><th>pairs</th></tr>\n";
  std::vector<Selection> rows;
  for (int c = 0; c < kCategoryCount; ++c) rows.push_back(Selection(static_cast<Category>(c)));
  rows.push_back(Selection::all());
  for (const Selection& s : rows) {
    const std::vector<Cell> cells = input.matrix.cells(s);
    if (cells.empty()) continue;
    Total messages = 0, bytes = 0;
    for (const Cell& x : cells) messages += x.traffic.messages, bytes += x.traffic.bytes;
    out += "<tr>" + name_cell(s.title()) + cell(total_text(messages)) + cell(total_text(bytes)) +
           cell(std::to_string(cells.size())) + "</tr>\n";
  }
  return out + "</table>\n";
}

std::string heatmaps_section(const ReportInput& input) {
  std::string out = "<h2>Who talks to whom (bytes)</h2>\n";
  out +=
      "<p class=\"note\">Rows: where the data came from; columns: where it went (one-sided gets: from the target "
      "read to the origin).</p>\n";
  std::vector<Selection> shown{Selection::all()};
  for (int c = 0; c < kCategoryCount; ++c) shown.push_back(Selection(static_cast<Category>(c)));
  for (const Selection& s : shown) {
    if (!input.matrix.has(s)) continue;
    out += "<h3>" + escape_markup(s.title()) + "</h3>\n" +
           format_svg_heatmap(bin_matrix(input.matrix, s, Metric::bytes), s.title() + ", bytes");
  }
  return out;
}

std::string top_talkers_section(const ReportInput& input) {
  std::string out =
      "<h2>Top talkers</h2>\n<table><tr><th>from</th><th>to</th><th>category</th><th>bytes</th><th>messages</th>"
      "<th>bytes per message</th></tr>\n";
  for (const Talk& t : busiest_talks(input.matrix, 10)) {
    const Traffic& x = t.cell.traffic;
    char average[32];
    std::snprintf(average, sizeof average, "%.1f", x.messages ? static_cast<double>(x.bytes) / x.messages : 0.0);
    out += "<tr>" + cell(std::to_string(t.cell.from)) + cell(std::to_string(t.cell.to)) +
           name_cell(category_name(t.category)) + cell(std::to_string(x.bytes)) + cell(std::to_string(x.messages)) +
           cell(average) + "</tr>\n";
  }
  return out + "</table>\n";
}

namespace {

// The sender whose data adds up to the most bytes in `all` (O(non-zeros)).
int32_t busiest_sender(const TrafficMatrix& matrix) {
  const std::vector<Cell> cells = matrix.cells(Selection::all());  // sorted by sender
  int32_t best = cells.empty() ? -1 : cells.front().from;
  Total best_bytes = 0, bytes = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    bytes += cells[i].traffic.bytes;
    if (i + 1 == cells.size() || cells[i + 1].from != cells[i].from) {
      if (bytes > best_bytes) best_bytes = bytes, best = cells[i].from;
      bytes = 0;
    }
  }
  return best;
}

}  // namespace

std::string message_sizes_section(const ReportInput& input) {
  const int32_t sender = busiest_sender(input.matrix);
  if (sender < 0) return {};
  const SizeHistograms h = size_histograms(input.files, sender, Selection::all(), input.load);
  std::string out = "<h2>Message sizes</h2>\n<p>Messages sent by rank " + std::to_string(sender) +
                    " (the busiest sender, all traffic), per size class and peer.</p>\n";
  // Columns: the busiest peers by messages, then the others together, then the total.
  constexpr size_t kPeerColumns = 12;
  std::vector<std::pair<Total, int32_t>> peers;
  for (const auto& [peer, counts] : h.per_peer) {
    uint64_t total = 0;
    for (uint64_t v : counts) total += v;
    peers.push_back({total, peer});
  }
  std::stable_sort(peers.begin(), peers.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const size_t shown = std::min(kPeerColumns, peers.size());
  std::sort(peers.begin(), peers.begin() + shown, [](const auto& a, const auto& b) { return a.second < b.second; });
  int low = kHistogramBuckets, high = -1;
  for (const auto& [peer, counts] : h.per_peer)
    for (int b = 0; b < kHistogramBuckets; ++b)
      if (counts[b]) low = std::min(low, b), high = std::max(high, b);
  if (high >= 0) {
    out += "<table><tr><th>size</th>";
    for (size_t i = 0; i < shown; ++i) out += "<th>to " + std::to_string(peers[i].second) + "</th>";
    if (peers.size() > shown) out += "<th>" + std::to_string(peers.size() - shown) + " other peers</th>";
    out += "<th>all</th></tr>\n";
    for (int b = low; b <= high; ++b) {
      Total others = 0, all = 0;
      for (size_t i = 0; i < peers.size(); ++i) {
        const uint64_t v = h.per_peer.at(peers[i].second)[b];
        all += v;
        if (i >= shown) others += v;
      }
      out += "<tr>" + name_cell(bucket_label(b) + " B");
      for (size_t i = 0; i < shown; ++i) {
        const uint64_t v = h.per_peer.at(peers[i].second)[b];
        out += cell(v ? std::to_string(v) : ".");
      }
      if (peers.size() > shown) out += cell(others ? total_text(others) : ".");
      out += cell(total_text(all)) + "</tr>\n";
    }
    out += "</table>\n";
  }
  if (const std::string notes = size_histogram_notes(h); !notes.empty())
    out += "<p class=\"note\">" + escape_markup(notes) + "</p>\n";
  return out;
}

}  // namespace mpimon::tools
