#include "wait_summary.h"

#include <stdexcept>

#include "matrix_formats.h"
#include "readers/wait_annotations_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace mpimon::tools {

namespace {

using mpimon::wait_states::pattern_name;
using mpimon::wait_states::read_wait_annotations;
using mpimon::wait_states::WaitAnnotations;

std::string number(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

namespace {

// The name errors are reported under (the annotations of several files are together).
std::string input_name(const Dumps& dumps) { return dumps.files.empty() ? "input" : dumps.files.back(); }

}  // namespace

WaitSummary summarize_waits(const Dumps& dumps) {
  const int32_t world = dumps.have_header ? dumps.header.world_size : 0;
  const WaitAnnotations waits = read_wait_annotations(dumps.annotations, input_name(dumps), world);
  WaitSummary s;
  s.has_wait_states = !waits.empty();
  s.ranks = std::max(world, dumps.matrix.ranks());
  for (const auto& [rank, seconds] : waits.process_seconds) {
    s.total_seconds += seconds;
    s.ranks = std::max(s.ranks, rank + 1);
  }
  for (const auto& w : waits.waits) {
    const auto p = static_cast<size_t>(w.pattern);
    for (WaitTimes* t : {&s.job, &s.windows[w.window]}) {
      t->seconds[p] += w.seconds;
      t->counts[p] += w.count;
    }
    s.ranks = std::max({s.ranks, w.waiter + 1, w.culprit + 1});
  }
  for (const auto& w : waits.windows) {
    s.job.rma_seconds += w.rma_seconds;
    s.windows[w.window].rma_seconds += w.rma_seconds;
    s.unmatched += w.unmatched;
    s.max_clock_uncertainty = std::max(s.max_clock_uncertainty, w.clock_uncertainty);
    if (w.clock_drift) s.max_clock_drift = std::max(s.max_clock_drift, std::fabs(*w.clock_drift));
  }
  // Time inside synchronisation calls.
  for (const WindowSyncRow& r : dumps.window_syncs) {
    s.job.sync_seconds += r.seconds;
    if (s.has_wait_states) s.windows[r.window].sync_seconds += r.seconds;
  }
  return s;
}

std::string format_wait_table(const std::vector<std::pair<std::string, WaitSummary>>& jobs, bool markdown) {
  struct Row {
    const char* label;
    int depth;
    double WaitSummary::*total;  // or nullptr: a field of WaitTimes / a pattern
    double WaitTimes::*times;
    int pattern;  // -1: none
  };
  const Row rows[] = {
      {"Total time", 0, &WaitSummary::total_seconds, nullptr, -1},
      {"RMA synchronisation", 0, nullptr, &WaitTimes::sync_seconds, -1},
      {"Wait at Fence", 1, nullptr, nullptr, static_cast<int>(Pattern::wait_at_fence)},
      {"Early Fence", 2, nullptr, nullptr, static_cast<int>(Pattern::early_fence)},
      {"Early Wait", 1, nullptr, nullptr, static_cast<int>(Pattern::early_wait)},
      {"Late Complete", 2, nullptr, nullptr, static_cast<int>(Pattern::late_complete)},
      {"Late Post", 1, nullptr, nullptr, static_cast<int>(Pattern::late_post)},
      {"Lock Competition", 1, nullptr, nullptr, static_cast<int>(Pattern::lock_competition)},
      {"RMA communication", 0, nullptr, &WaitTimes::rma_seconds, -1},
      {"Early Transfer", 1, nullptr, nullptr, static_cast<int>(Pattern::early_transfer)},
  };
  auto value = [](const Row& r, const WaitSummary& s) {
    if (r.total) return s.*(r.total);
    if (r.times) return s.job.*(r.times);
    return s.job.seconds[static_cast<size_t>(r.pattern)];
  };
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header{"metric"};
  for (const auto& [label, s] : jobs) {
    header.push_back(label + " [s]");
    header.push_back("%");
  }
  cells.push_back(header);
  for (const Row& r : rows) {
    std::string label = markdown ? std::string(r.depth * 2, '-') + (r.depth ? " " : "") + r.label
                                 : std::string(r.depth * 2, ' ') + r.label;
    std::vector<std::string> line{label};
    for (const auto& [name, s] : jobs) {
      const double v = value(r, s);
      line.push_back(number("%.3f", v));
      line.push_back(s.total_seconds > 0 ? number("%.1f", 100.0 * v / s.total_seconds) : "-");
    }
    cells.push_back(line);
  }
  std::string out;
  if (markdown) {
    for (size_t i = 0; i < cells.size(); ++i) {
      out += "|";
      for (const std::string& c : cells[i]) out += " " + c + " |";
      out += "\n";
      if (i == 0) {
        out += "|---|";
        for (size_t c = 1; c < cells[0].size(); ++c) out += "---:|";
        out += "\n";
      }
    }
    return out;
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& line : cells)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      out += c == 0 ? line[c] + pad : "  " + pad + line[c];
    }
    out += "\n";
  }
  return out;
}

WaitMatrix wait_matrix(const WaitAnnotations& annotations, std::optional<Pattern> pattern, int32_t world_size) {
  WaitMatrix m;
  m.ranks = world_size;
  for (const auto& w : annotations.waits) {
    if (pattern && w.pattern != *pattern) continue;
    WaitCell& c = m.cells[{w.waiter, w.culprit}];
    c.seconds += w.seconds;
    c.count += w.count;
    m.ranks = std::max({m.ranks, w.waiter + 1, w.culprit + 1});
  }
  return m;
}

WaitMatrix read_wait_matrix(const Dumps& dumps, const std::string& pattern) {
  const int32_t world = dumps.have_header ? dumps.header.world_size : 0;
  return wait_matrix(read_wait_annotations(dumps.annotations, input_name(dumps), world),
                     mpimon::wait_states::pattern_of(pattern), std::max(world, dumps.matrix.ranks()));
}

std::string format_wait_matrix(const WaitMatrix& m, WaitMatrixFormat format, bool counts) {
  auto text_of = [&](const WaitCell& c) { return counts ? std::to_string(c.count) : number("%.6f", c.seconds); };
  std::string out;
  if (format == WaitMatrixFormat::sparse_csv) {
    out = std::string("waiter,culprit,") + (counts ? "occurrences" : "seconds") + "\n";
    for (const auto& [key, c] : m.cells)
      out += std::to_string(key.first) + "," + std::to_string(key.second) + "," + text_of(c) + "\n";
    return out;
  }
  if (format == WaitMatrixFormat::matrix_market) {
    out = "%%MatrixMarket matrix coordinate " + std::string(counts ? "integer" : "real") +
          " general\n% row: waiting rank, column: the rank it waited for (1-based); " +
          (counts ? "occurrences" : "seconds") + "\n" + std::to_string(m.ranks) + " " + std::to_string(m.ranks) + " " +
          std::to_string(m.cells.size()) + "\n";
    for (const auto& [key, c] : m.cells)
      out += std::to_string(key.first + 1) + " " + std::to_string(key.second + 1) + " " + text_of(c) + "\n";
    return out;
  }
  const bool csv = format == WaitMatrixFormat::csv;
  const int32_t limit = csv ? kDenseFileRanks : kDenseTextRanks;
  if (m.ranks > limit)
    throw std::invalid_argument("a dense " + std::string(csv ? "CSV" : "text") + " matrix of " +
                                std::to_string(m.ranks) + " ranks (at most " + std::to_string(limit) +
                                "): use --format sparse or mtx");
  std::vector<std::vector<std::string>> grid(static_cast<size_t>(m.ranks),
                                             std::vector<std::string>(static_cast<size_t>(m.ranks), csv ? "0" : "."));
  for (const auto& [key, c] : m.cells) grid[key.first][key.second] = text_of(c);
  if (csv) {
    out = "waiter";
    for (int32_t c = 0; c < m.ranks; ++c) out += "," + std::to_string(c);
    out += "\n";
    for (int32_t r = 0; r < m.ranks; ++r) {
      out += std::to_string(r);
      for (const std::string& v : grid[r]) out += "," + v;
      out += "\n";
    }
    return out;
  }
  size_t width = std::to_string(m.ranks).size();
  for (const auto& row : grid)
    for (const std::string& v : row) width = std::max(width, v.size());
  const size_t label = std::max<size_t>(std::to_string(m.ranks).size(), 2);
  out = std::string(label + 3, ' ');
  for (int32_t c = 0; c < m.ranks; ++c) {
    const std::string h = std::to_string(c);
    out += std::string(width - h.size() + 1, ' ') + h;
  }
  out += "   <- waited for\n";
  for (int32_t r = 0; r < m.ranks; ++r) {
    const std::string h = std::to_string(r);
    out += std::string(label - h.size() + 1, ' ') + h + " |";
    for (const std::string& v : grid[r]) out += std::string(width - v.size() + 1, ' ') + v;
    out += "\n";
  }
  return out;
}

std::vector<std::string> wait_pattern_choices() {
  std::vector<std::string> out;
  for (int p = 0; p < kPatternCount; ++p) out.push_back(pattern_name(static_cast<Pattern>(p)));
  out.push_back("all");
  return out;
}

}  // namespace mpimon::tools
