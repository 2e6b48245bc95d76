// Report section: did the nonblocking collectives overlap? From the job file's
// `nbc_overlap` annotations (docs/formats.md), summed over the ranks per communicator and
// kind (nbc_summary.h); a kind none of whose calls was followed says "not followed".
#include <cstdio>
#include <string_view>

#include "heatmap.h"
#include "nbc_summary.h"
#include "report/sections.h"

namespace mpimon::tools {

namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Ten deciles as a row of small bars (height: share of the calls).
std::string histogram_cell(const uint64_t (&histogram)[kNbcBuckets], uint64_t calls) {
  std::string svg = "<svg width=\"60\" height=\"16\" role=\"img\"><title>";
  for (int k = 0; k < kNbcBuckets; ++k) svg += (k ? "," : "") + std::to_string(histogram[k]);
  svg += " calls per overlap decile</title>";
  for (int k = 0; k < kNbcBuckets; ++k) {
    const int h =
        calls ? static_cast<int>(16.0 * static_cast<double>(histogram[k]) / static_cast<double>(calls) + 0.5) : 0;
    svg += "<rect x=\"" + std::to_string(6 * k) + "\" y=\"" + std::to_string(16 - h) + "\" width=\"5\" height=\"" +
           std::to_string(h) + "\" fill=\"#3b528b\"/>";
  }
  return svg + "</svg>";
}

}  // namespace

std::string nbc_overlap_section(const ReportInput& input) {
  const NbcSummary summary = summarize_nbc(input.annotations);
  const auto& summaries = summary.kinds;
  std::string out = "<h2>Nonblocking collectives: overlap</h2>\n";
  if (summaries.empty())
    return out + "<p>No nonblocking collective recorded (needs a job file from a run with the COLL layer).</p>\n";
  struct Row {
    const std::pair<std::string, std::string>* key;
    const NbcKindSummary* summary;
  };
  // `nbc_sampling`: ranks that left calls unfollowed, and their schedule (docs/formats.md).
  if (!summary.samplings.empty()) {
    std::string ns;
    for (const std::string& n : summary.samplings) ns += (ns.empty() ? "" : ", ") + escape_markup(n);
    out += "<p>Sampled (coll_monitoring_nbc_sampling " + ns +
           "): past the first calls of a communicator (coll_monitoring_nbc_exact_calls), about one call in N was "
           "followed, at random. Calls, durations, blocked time and bytes are those of the followed calls only; the "
           "overlaps estimate the whole; \"not followed\": no call of the kind was followed, nothing was measured. "
           "Run with coll_monitoring_nbc_sampling 1 for every call.</p>\n";
  }
  std::vector<Row> rows;
  for (const auto& [key, s] : summaries) rows.push_back({&key, &s});
  const auto shown = bounded_rows(
      rows, [](const Row& a, const Row& b) { return a.summary->blocked > b.summary->blocked; },
      [](const Row& a, const Row& b) { return *a.key < *b.key; });
  out +=
      "<p>Overlap of a call: the share of its point-to-point bytes posted before the application started to wait "
      "for it (1 if it completed before any wait; calls that sent nothing of their own and were waited for are left "
      "out of the mean and the deciles). Byte-weighted: over every call's bytes. Blocked: time in wait calls on "
      "it.</p>\n<table><tr><th>communicator</th><th>kind</th><th>ranks</th><th>calls (all ranks)</th><th>waited "
      "for</th><th>mean duration (ms)</th><th>blocked (s, all ranks)</th><th>byte-weighted overlap</th><th>mean "
      "overlap</th><th>lowest rank (mean)</th><th>overlap deciles</th></tr>\n";
  for (const Row* row : shown) {
    const NbcKindSummary& s = *row->summary;
    out += "<tr><td class=\"name\">" + escape_markup(row->key->first) + "</td><td class=\"name\">" +
           escape_markup(row->key->second) + "</td><td>";
    if (s.not_followed()) {
      out += std::to_string(s.not_followed_ranks) + "</td><td colspan=\"8\">not followed</td></tr>\n";
      continue;
    }
    out += std::to_string(s.ranks) +
           (s.not_followed_ranks ? " (+" + std::to_string(s.not_followed_ranks) + " not followed)" : "") + "</td><td>" +
           std::to_string(s.calls) + "</td><td>" + std::to_string(s.waited) + "</td><td>" +
           fixed(1000.0 * s.duration / static_cast<double>(s.calls), 3) + "</td><td>" + fixed(s.blocked, 6) +
           "</td><td>" + overlap_text(s.weighted_overlap(), 3) + "</td><td>" + overlap_text(s.mean_overlap(), 3) +
           "</td><td>" + (s.measured ? escape_markup(s.lowest_rank) + " (" + fixed(s.lowest_mean, 3) + ")" : "-") +
           "</td><td>" + histogram_cell(s.histogram, s.measured) + "</td></tr>\n";
  }
  return out + "</table>\n" + more_rows_note(rows.size(), "with the most blocked time");
}

}  // namespace mpimon::tools
