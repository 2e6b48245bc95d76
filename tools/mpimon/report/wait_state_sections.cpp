// Report section: RMA wait states (job files of runs with osc_monitoring_wait_states 1).
// The paper's Table 2 for the job and per window, and one who-makes-whom-wait heatmap per
// pattern found (rows: the waiting rank, columns: the rank it waited for).
#include <algorithm>
#include <cstdio>

#include "heatmap.h"
#include "sections.h"
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
  const int32_t bins = std::min<int32_t>(m.ranks, 32);
  const int32_t per_bin = (m.ranks + bins - 1) / std::max(bins, 1);
  std::vector<double> cells(static_cast<size_t>(bins) * bins, 0);
  for (const auto& [key, c] : m.cells) cells[(key.first / per_bin) * bins + key.second / per_bin] += c.seconds;
  const double max = *std::max_element(cells.begin(), cells.end());
  auto label = [&](int32_t b) {
    return per_bin == 1 ? std::to_string(b)
                        : std::to_string(b * per_bin) + "-" + std::to_string(std::min(m.ranks, (b + 1) * per_bin) - 1);
  };
  std::string out =
      "<h3>" + escape_markup(title) + "</h3>\n<table style=\"font-size:11px\"><tr><th>waiter \\ waited for</th>";
  for (int32_t c = 0; c < bins; ++c) out += "<th>" + label(c) + "</th>";
  out += "</tr>\n";
  for (int32_t r = 0; r < bins; ++r) {
    out += "<tr><th>" + label(r) + "</th>";
    for (int32_t c = 0; c < bins; ++c) {
      const double v = cells[static_cast<size_t>(r) * bins + c];
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

}  // namespace

std::string rma_wait_states_section(const ReportInput& input) {
  const std::string file = input.files.empty() ? std::string("job file") : input.files.back();
  const int32_t world = input.have_header ? input.header.world_size : input.matrix.ranks();
  const WaitSummary s = summarize_waits(input.annotations, file, world);
  if (!s.has_wait_states) return {};
  std::string out =
      "<h2>RMA wait states</h2>\n<p>Seconds waited in each pattern, summed over the ranks, and their share of the "
      "job's time (every rank's time from MPI_Init to MPI_Finalize, summed: " +
      fixed("%.3f", s.total_seconds) +
      " s). Indented patterns are parts of the one above (as in Hermanns et al., 2009, Table 2).</p>\n<pre>" +
      escape_markup(format_wait_table({{"job", s}}, false)) + "</pre>\n";
  out += "<table><tr><th>window</th><th>pattern</th><th>seconds</th><th>% of job time</th><th>occurrences</th></tr>\n";
  for (const auto& [window, t] : s.windows) {
    for (int p = 0; p < kPatternCount; ++p) {
      if (t.counts[p] == 0) continue;
      out += "<tr><td style=\"text-align:left\">" + escape_markup(window) + "</td><td style=\"text-align:left\">" +
             mpimon::wait_states::pattern_name(static_cast<Pattern>(p)) + "</td><td>" + fixed("%.6f", t.seconds[p]) +
             "</td><td>" + percent(t.seconds[p], s.total_seconds) + "</td><td>" + std::to_string(t.counts[p]) +
             "</td></tr>\n";
    }
  }
  out += "</table>\n";
  out += "<p>Clocks: largest offset uncertainty " + fixed("%.6f", s.max_clock_uncertainty) +
         " s, largest drift between window creation and free " + fixed("%.6f", s.max_clock_drift) + " s" +
         (s.unmatched ? "; " + std::to_string(s.unmatched) + " epochs without their remote timestamps (not analysed)"
                      : std::string()) +
         ".</p>\n";
  const auto waits = mpimon::wait_states::read_wait_annotations(input.annotations, file);
  for (int p = 0; p < kPatternCount; ++p) {
    if (s.job.counts[p] == 0) continue;
    const auto pattern = static_cast<Pattern>(p);
    out +=
        wait_heatmap(wait_matrix(waits, pattern, s.ranks),
                     std::string("Who made whom wait: ") + mpimon::wait_states::pattern_name(pattern) + " (seconds)");
  }
  return out;
}

}  // namespace mpimon::tools
