// The report's timeline, from the job's time series: how it ended, traffic per interval
// per category, the busiest pairs over time, and the moment the pattern changes (defined
// in timeline.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "heatmap.h"
#include "readers/job_reader.h"
#include "report/sections.h"
#include "timeline.h"

namespace mpimon::tools {

namespace {

namespace fs = std::filesystem;

// The series a job file names (its `series` line, relative to its folder) and the time
// range it was read for (`series_range`, from the commands' --from/--to).
struct SeriesOfReport {
  std::string folder;
  series::TimeRange range;
};

SeriesOfReport series_of(const ReportInput& input) {
  SeriesOfReport found;
  for (const JobAnnotation& a : input.annotations) {
    if (a.keyword == "series_range" && a.fields.size() == 2) {
      found.range.from = std::strtod(a.fields[0].c_str(), nullptr);
      found.range.to = std::strtod(a.fields[1].c_str(), nullptr);
    }
    if (a.keyword != "series" || a.fields.size() != 1 || !found.folder.empty()) continue;
    const fs::path named = unescape_name(a.fields[0]);
    if (named.is_absolute()) {
      found.folder = named.string();  // a series read into memory names itself
      continue;
    }
    // A finished job file's: relative to that file's folder.
    for (const std::string& path : input.files) {
      const std::string text = input.load(path);
      if (is_job_text(text) && text.find("\nseries " + a.fields[0] + "\n") != std::string::npos) {
        found.folder = (fs::path(path).parent_path() / named).string();
        break;
      }
    }
  }
  return found;
}

// A small inline chart of one pair's bytes per interval.
std::string sparkline(const std::vector<uint64_t>& values) {
  const int width = 240, height = 24;
  const double max = values.empty() ? 0 : static_cast<double>(*std::max_element(values.begin(), values.end()));
  std::string points;
  char text[48];
  for (size_t i = 0; i < values.size(); ++i) {
    const double x =
        values.size() > 1 ? static_cast<double>(i) * width / static_cast<double>(values.size() - 1) : width / 2.0;
    const double y = height - 2 - (max > 0 ? static_cast<double>(values[i]) / max : 0) * (height - 4);
    std::snprintf(text, sizeof text, "%.1f,%.1f ", x, y);
    points += text;
  }
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
         std::to_string(height) + "\"><polyline fill=\"none\" stroke=\"#3b528b\" stroke-width=\"1.5\" points=\"" +
         points + "\"/></svg>";
}

std::string number(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

std::string timeline_section(const ReportInput& input) {
  const SeriesOfReport source = series_of(input);
  if (source.folder.empty()) return {};
  const Timeline t = build_timeline(source.folder, source.range);
  std::string out = "<h2>Over time</h2>\n";
  const std::string end = t.info.describe_end();
  out += t.info.finished() ? "<p>The job " + escape_markup(end) + ".</p>\n"
                           : "<p style=\"color:#b00;font-weight:bold\">The job " + escape_markup(end) +
                                 ". Every figure of this report covers the job up to its last snapshot.</p>\n";
  for (const std::string& note : t.info.notes) out += "<p style=\"color:#888\">" + escape_markup(note) + "</p>\n";
  if (t.intervals() == 0) return out + "<p>No snapshot in the selected time range.</p>\n";
  out += "<h3>Traffic per interval</h3>\n" +
         format_svg_timeline(t, TimelineMetric::bytes,
                             "bytes per interval of " + number(t.interval_seconds, "%g") + " s, per category");
  if (t.has_sync) {
    double total = 0;
    for (double s : t.sync_seconds) total += s;
    out += "<p>One-sided synchronisation time, all ranks: " + number(total, "%.6f") + " s over the range.</p>\n";
  }
  out +=
      "<h3>Busiest pairs over time</h3>\n<table><tr><th>from</th><th>to</th><th>category</th><th>bytes</th>"
      "<th>bytes per interval</th></tr>\n";
  for (const Timeline::Pair& p : t.top_pairs)
    out += "<tr><td>" + std::to_string(p.source) + "</td><td>" + std::to_string(p.destination) + "</td><td>" +
           category_name(p.category) + "</td><td>" + std::to_string(p.bytes) + "</td><td>" + sparkline(p.per_interval) +
           "</td></tr>\n";
  out +=
      "</table>\n<h3>When the pattern changes</h3>\n"
      "<p>A sender's pattern in an interval is how its bytes split over (receiver, category); its change is the "
      "total variation distance to its previous interval with traffic (0: same split, 1: all new pairs). An "
      "interval's change is the mean over its senders, weighted by their bytes. The pattern changes where that "
      "reaches " +
      number(Timeline::kChangeThreshold, "%.1f") + ".</p>\n";
  if (const auto moment = t.change_moment()) {
    out += "<p>The pattern changes most at <b>" + number(t.start_of(*moment), "%.1f") + " s</b> (interval " +
           std::to_string(*moment) + ", change " + number(t.change[*moment - t.first], "%.2f") + ").</p>\n";
  } else {
    double largest = 0;
    for (double c : t.change) largest = std::max(largest, c);
    out += "<p>The pattern is steady: the largest change is " + number(largest, "%.2f") + ".</p>\n";
  }
  return out;
}

}  // namespace mpimon::tools
