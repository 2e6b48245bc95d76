// Report section: RMA wait states (job files of runs with osc_monitoring_wait_states 1).
// The paper's Table 2 for the job and per window, and one who-makes-whom-wait heatmap per
// pattern found (rows: the waiting rank, columns: the rank it waited for).
#include <algorithm>
#include <cstdio>
#include <tuple>

#include "heatmap.h"
#include "report/sections.h"
#include "wait_summary.h"

namespace mpimon::tools {

namespace {

std::string fixed(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string percent(double v, double total) { return total > 0 ? fixed("%.1f", 100.0 * v / total) : "-"; }

// An HTML table coloured by value: at most 32 x 32 cells, blocks of ranks summed beyond.
std::string wait_heatmap(const WaitMatrix& m, const std::string& title) {
  const int64_t ranks = std::max<int64_t>(m.ranks, 1);
  const int64_t bins = std::min<int64_t>(ranks, 32);
  const int64_t per_bin = (ranks + bins - 1) / bins;
  std::vector<double> cells(static_cast<size_t>(bins * bins), 0);
  for (const auto& [key, c] : m.cells) cells[(key.first / per_bin) * bins + key.second / per_bin] += c.seconds;
  const double max = *std::max_element(cells.begin(), cells.end());
  auto label = [&](int64_t b) {
    return per_bin == 1 ? std::to_string(b)
                        : std::to_string(b * per_bin) + "-" + std::to_string(std::min(ranks, (b + 1) * per_bin) - 1);
  };
  std::string out =
      "<h3>" + escape_markup(title) + "</h3>\n<table style=\"font-size:11px\"><tr><th>waiter \\ waited for</th>";
  for (int64_t c = 0; c < bins; ++c) out += "<th>" + label(c) + "</th>";
  out += "</tr>\n";
  for (int64_t r = 0; r < bins; ++r) {
    out += "<tr><th>" + label(r) + "</th>";
    for (int64_t c = 0; c < bins; ++c) {
      const double v = cells[static_cast<size_t>(r * bins + c)];
      const double a = max > 0 ? v / max : 0;
      out += v > 0
                 ? "<td style=\"background:rgba(200,30,30," + fixed("%.2f", 0.1 + 0.9 * a) + ")\" title=\"" + label(r) +
                       " waited " + fixed("%.6f", v) + " s for " + label(c) + "\">" + fixed("%.3f", v) + "</td>"
                 : "<td></td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// Per window and pattern; the longest waits when they do not all fit.
std::string window_table(const WaitSummary& s) {
  struct Row {
    const std::string* window;
    int pattern;
    double seconds;
    uint64_t count;
  };
  std::vector<Row> rows;
  for (const auto& [window, t] : s.windows)
    for (int p = 0; p < kPatternCount; ++p)
      if (t.counts[p] != 0) rows.push_back({&window, p, t.seconds[p], t.counts[p]});
  const size_t total = rows.size();
  if (total > kMaxTableRows) {
    std::partial_sort(rows.begin(), rows.begin() + kMaxTableRows, rows.end(),
                      [](const Row& a, const Row& b) { return a.seconds > b.seconds; });
    rows.resize(kMaxTableRows);
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return std::tie(*a.window, a.pattern) < std::tie(*b.window, b.pattern);
    });
  }
  std::string out =
      "<table><tr><th>window</th><th>pattern</th><th>seconds</th><th>% of job time</th><th>occurrences</th></tr>\n";
  for (const Row& r : rows)
    out += "<tr><td class=\"name\">" + escape_markup(*r.window) + "</td><td class=\"name\">" +
           mpimon::wait_states::pattern_name(static_cast<Pattern>(r.pattern)) + "</td><td>" + fixed("%.6f", r.seconds) +
           "</td><td>" + percent(r.seconds, s.total_seconds) + "</td><td>" + std::to_string(r.count) + "</td></tr>\n";
  out += "</table>\n";
  if (total > kMaxTableRows)
    out += "<p class=\"note\">" + std::to_string(total - kMaxTableRows) + " more rows not shown (the " +
           std::to_string(kMaxTableRows) + " longest are).</p>\n";
  return out;
}

}  // namespace

std::string rma_wait_states_section(const ReportInput& input) {
  const WaitSummary s = summarize_waits(input);
  if (!s.has_wait_states) return {};
  std::string out =
      "<h2>RMA wait states</h2>\n<p>Seconds waited in each pattern, summed over the ranks, and their share of the "
      "job's time (every rank's time from MPI_Init to MPI_Finalize, summed: " +
      fixed("%.3f", s.total_seconds) +
      " s). Indented patterns are parts of the one above (as in Hermanns et al., 2009, Table 2).</p>\n<pre>" +
      escape_markup(format_wait_table({{"job", s}}, false)) + "</pre>\n" + window_table(s);
  out += "<p>Clocks: largest offset uncertainty " + fixed("%.6f", s.max_clock_uncertainty) +
         " s, largest drift between window creation and free " + fixed("%.6f", s.max_clock_drift) + " s" +
         (s.unmatched ? "; " + std::to_string(s.unmatched) + " epochs without their remote timestamps (not analysed)"
                      : std::string()) +
         ".</p>\n";
  for (int p = 0; p < kPatternCount; ++p) {
    if (s.job.counts[p] == 0) continue;
    const char* pattern = mpimon::wait_states::pattern_name(static_cast<Pattern>(p));
    out += wait_heatmap(read_wait_matrix(input, pattern), std::string("Who made whom wait: ") + pattern + " (seconds)");
  }
  return out;
}

}  // namespace mpimon::tools
