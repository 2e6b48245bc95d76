// Report section: did the nonblocking collectives overlap? From the job file's
// `nbc_overlap` annotations (docs/formats.md), summed over the ranks per communicator
// (named by its `communicator` line) and kind. Lines whose fields do not parse are left out (the reader checked the
// rest).
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "heatmap.h"
#include "readers/job_reader.h"
#include "report/sections.h"

namespace mpimon::tools {

namespace {

constexpr int kBuckets = 10;

struct KindSummary {
  uint64_t ranks = 0, calls = 0, waited = 0, bytes = 0, before = 0, measured = 0;
  double duration = 0, blocked = 0, overlap_sum = 0;
  uint64_t histogram[kBuckets] = {};
  double lowest_mean = 2;  // the rank with the lowest mean overlap
  std::string lowest_rank;
};

bool parse(std::string_view text, uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size();
}
bool parse(std::string_view text, double& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size() && value >= 0;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Ten deciles as a row of small bars (height: share of the calls).
std::string histogram_cell(const uint64_t (&histogram)[kBuckets], uint64_t calls) {
  std::string svg = "<svg width=\"60\" height=\"16\" role=\"img\"><title>";
  for (int k = 0; k < kBuckets; ++k) svg += (k ? "," : "") + std::to_string(histogram[k]);
  svg += " calls per overlap decile</title>";
  for (int k = 0; k < kBuckets; ++k) {
    const int h =
        calls ? static_cast<int>(16.0 * static_cast<double>(histogram[k]) / static_cast<double>(calls) + 0.5) : 0;
    svg += "<rect x=\"" + std::to_string(6 * k) + "\" y=\"" + std::to_string(16 - h) + "\" width=\"5\" height=\"" +
           std::to_string(h) + "\" fill=\"#3b528b\"/>";
  }
  return svg + "</svg>";
}

}  // namespace

std::string nbc_overlap_section(const ReportInput& input) {
  // fields: rank communicator kind calls waited duration blocked bytes before mean histogram
  std::map<std::pair<std::string, std::string>, KindSummary> summaries;
  // Version 2 names the communicator by its identity; its `communicator <identity> <name>
  // <members>` line gives the name (version 1 wrote the name itself).
  std::map<std::string, std::string, std::less<>> names;
  for (const JobAnnotation& a : input.annotations)
    if (a.keyword == "communicator" && a.fields.size() == 3) names[a.fields[0]] = unescape_name(a.fields[1]);
  auto communicator_name = [&](const std::string& field) {
    const auto name = names.find(field);
    return name != names.end() ? name->second : unescape_name(field);
  };
  for (const JobAnnotation& a : input.annotations) {
    if (a.keyword != "nbc_overlap" || a.fields.size() != 11) continue;
    uint64_t calls, waited, bytes, before, histogram[kBuckets] = {};
    double duration, blocked, mean = 0;
    const bool has_mean = a.fields[9] != "-";  // "-": no call of its own to measure (a receiver)
    if (!parse(a.fields[3], calls) || !parse(a.fields[4], waited) || !parse(a.fields[5], duration) ||
        !parse(a.fields[6], blocked) || !parse(a.fields[7], bytes) || !parse(a.fields[8], before) ||
        (has_mean && !parse(a.fields[9], mean)) || calls == 0)
      continue;
    std::string_view buckets = a.fields[10];
    bool ok = true;
    for (int k = 0; k < kBuckets && ok; ++k) {
      const size_t comma = buckets.find(',');
      ok = parse(buckets.substr(0, comma), histogram[k]) && ((k == kBuckets - 1) == (comma == std::string_view::npos));
      buckets = comma == std::string_view::npos ? std::string_view{} : buckets.substr(comma + 1);
    }
    if (!ok) continue;
    uint64_t measured = 0;
    for (uint64_t h : histogram) measured += h;
    if (has_mean != (measured > 0) || measured > calls) continue;
    KindSummary& s = summaries[{communicator_name(a.fields[1]), a.fields[2]}];
    ++s.ranks;
    s.calls += calls;
    s.waited += waited;
    s.duration += duration;
    s.blocked += blocked;
    s.bytes += bytes;
    s.before += before;
    s.overlap_sum += mean * static_cast<double>(measured);
    s.measured += measured;
    for (int k = 0; k < kBuckets; ++k) s.histogram[k] += histogram[k];
    if (has_mean && mean < s.lowest_mean) {
      s.lowest_mean = mean;
      s.lowest_rank = a.fields[0];
    }
  }
  std::string out = "<h2>Nonblocking collectives: overlap</h2>\n";
  if (summaries.empty())
    return out + "<p>No nonblocking collective recorded (needs a job file from a run with the COLL layer).</p>\n";
  struct Row {
    const std::pair<std::string, std::string>* key;
    const KindSummary* summary;
  };
  // `nbc_sampling <rank> <N>`: that rank followed about one call in N (docs/formats.md).
  std::set<std::string> samplings;
  for (const JobAnnotation& a : input.annotations)
    if (a.keyword == "nbc_sampling" && a.fields.size() == 2) samplings.insert(a.fields[1]);
  if (!samplings.empty()) {
    std::string ns;
    for (const std::string& n : samplings) ns += (ns.empty() ? "" : ", ") + escape_markup(n);
    out += "<p>Sampled (coll_monitoring_nbc_sampling " + ns +
           "): about one call in N was followed, at random. Calls, durations, blocked time and bytes are those of "
           "the followed calls only; the overlaps estimate the whole. Run with coll_monitoring_nbc_sampling 1 for "
           "every call.</p>\n";
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
    const KindSummary& s = *row->summary;
    const double mean = s.measured ? s.overlap_sum / static_cast<double>(s.measured) : 0;
    const double weighted = s.bytes ? static_cast<double>(s.before) / static_cast<double>(s.bytes) : mean;
    out += "<tr><td class=\"name\">" + escape_markup(row->key->first) + "</td><td class=\"name\">" +
           escape_markup(row->key->second) + "</td><td>" + std::to_string(s.ranks) + "</td><td>" +
           std::to_string(s.calls) + "</td><td>" + std::to_string(s.waited) + "</td><td>" +
           fixed(1000.0 * s.duration / static_cast<double>(s.calls), 3) + "</td><td>" + fixed(s.blocked, 6) +
           "</td><td>" + (s.bytes || s.measured ? fixed(weighted, 3) : "-") + "</td><td>" +
           (s.measured ? fixed(mean, 3) : "-") + "</td><td>" +
           (s.measured ? escape_markup(s.lowest_rank) + " (" + fixed(s.lowest_mean, 3) + ")" : "-") + "</td><td>" +
           histogram_cell(s.histogram, s.measured) + "</td></tr>\n";
  }
  return out + "</table>\n" + more_rows_note(rows.size(), "with the most blocked time");
}

}  // namespace mpimon::tools
