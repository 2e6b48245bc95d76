#include "report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "heatmap.h"
#include "job_format.h"
#include "traffic_matrix.h"

namespace mpimon::tools {

namespace {


const char* const kTitles[kCategoryCount] = {"Point-to-point, application (E)", "Point-to-point, internal (I)",
                                              "Collectives, logical pattern (C)", "One-sided, sent (S)",
                                              "One-sided, received (R)"};

}  // namespace

std::string format_html_report(const std::vector<std::string>& files) {
  const TrafficMatrix matrix = read_dump_files(files);
  std::vector<JobAnnotation> annotations;
  JobHeader header;
  bool have_header = false;
  for (const std::string& path : files) {
    if (!is_job_file(path)) continue;
    header = for_each_job_record(read_dump_text(path), path, [](const JobRecord&) {},
                                 [&](JobAnnotation&& a) { annotations.push_back(std::move(a)); });
    have_header = true;
  }

  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mpimon report</title>\n"
      "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}"
      "h2{border-bottom:2px solid #3b528b;padding-bottom:4px}pre{background:#f6f6f6;padding:8px}</style>\n"
      "</head><body>\n<h1>mpimon report</h1>\n";
  out += "<p>" + std::to_string(matrix.ranks()) + " ranks";
  if (have_header)
    out += ", Open MPI " + escape_markup(header.open_mpi_version) + ", monitoring level " +
           std::to_string(header.enable_level) + ", from " + escape_markup(header.start_time) + " to " + escape_markup(header.end_time);
  out += ".</p>\n";

  // Totals per category.
  out += "<h2>Totals</h2>\n<table><tr><th>category</th><th>messages</th><th>bytes</th><th>pairs</th></tr>\n";
  struct Talk {
    uint64_t bytes, messages;
    int32_t source, destination;
    Category category;
  };
  std::vector<Talk> talks;
  for (int c = 0; c < kCategoryCount; ++c) {
    uint64_t messages = 0, bytes = 0, pairs = 0;
    for (const auto& [key, t] : matrix.entries()) {
      const auto& [category, s, d] = key;
      if (category != static_cast<Category>(c)) continue;
      messages += t.messages;
      bytes += t.bytes;
      ++pairs;
      talks.push_back({t.bytes, t.messages, s, d, category});
    }
    if (pairs)
      out += "<tr><td style=\"text-align:left\">" + std::string(kTitles[c]) + "</td><td>" + std::to_string(messages) +
             "</td><td>" + std::to_string(bytes) + "</td><td>" + std::to_string(pairs) + "</td></tr>\n";
  }
  out += "</table>\n";

  // Heatmaps.
  out += "<h2>Who talks to whom (bytes)</h2>\n";
  for (int c = 0; c < kCategoryCount; ++c) {
    if (!matrix.has(static_cast<Category>(c))) continue;
    out += "<h3>" + std::string(kTitles[c]) + "</h3>\n" +
           format_svg_heatmap(bin_matrix(matrix, Selection{false, static_cast<Category>(c)}, Metric::bytes),
                              kTitles[c]);
  }

  // Top talkers.
  std::sort(talks.begin(), talks.end(), [](const Talk& a, const Talk& b) { return a.bytes > b.bytes; });
  out += "<h2>Top talkers</h2>\n<table><tr><th>from</th><th>to</th><th>category</th><th>bytes</th><th>messages</th>"
         "<th>bytes per message</th></tr>\n";
  for (size_t i = 0; i < std::min<size_t>(10, talks.size()); ++i) {
    const Talk& t = talks[i];
    char average[32];
    std::snprintf(average, sizeof average, "%.1f", t.messages ? static_cast<double>(t.bytes) / t.messages : 0.0);
    out += "<tr><td>" + std::to_string(t.source) + "</td><td>" + std::to_string(t.destination) + "</td><td>" +
           category_name(t.category) + "</td><td>" + std::to_string(t.bytes) + "</td><td>" +
           std::to_string(t.messages) + "</td><td>" + average + "</td></tr>\n";
  }
  out += "</table>\n";

  // Message sizes of the busiest sender.
  if (!talks.empty()) {
    out += "<h2>Message sizes</h2>\n<pre>" +
           escape_markup(format_size_histograms(files, talks.front().source, Selection{true})) + "</pre>\n";
  }

  // Collective classes and RMA synchronisation, from the job file's annotations.
  std::string classes, sync;
  for (const JobAnnotation& a : annotations) {
    if (a.keyword == "collectives" && a.fields.size() == 8) {
      classes += "<tr><td>" + escape_markup(a.fields[0]) + "</td><td style=\"text-align:left\">" + escape_markup(unescape_name(a.fields[1])) +
                 "</td>";
      for (int i = 2; i < 8; ++i) classes += "<td>" + escape_markup(a.fields[i]) + "</td>";
      classes += "</tr>\n";
    } else if (a.keyword == "window_sync" && a.fields.size() == 5) {
      sync += "<tr><td>" + escape_markup(a.fields[0]) + "</td><td style=\"text-align:left\">" + escape_markup(unescape_name(a.fields[1])) +
              "</td><td style=\"text-align:left\">" + escape_markup(a.fields[2]) + "</td><td>" + escape_markup(a.fields[3]) +
              "</td><td>" + escape_markup(a.fields[4]) + "</td></tr>\n";
    }
  }
  out += "<h2>Collectives per communicator</h2>\n";
  out += classes.empty() ? "<p>No collective classes recorded (needs a job file from a run with the COLL layer).</p>\n"
                         : "<table><tr><th>rank</th><th>communicator</th><th>one-to-all calls</th><th>bytes</th>"
                           "<th>all-to-one calls</th><th>bytes</th><th>all-to-all calls</th><th>bytes</th></tr>\n" +
                               classes + "</table>\n";
  out += "<h2>RMA synchronisation</h2>\n";
  out += sync.empty() ? "<p>No one-sided synchronisation recorded.</p>\n"
                      : "<table><tr><th>rank</th><th>window</th><th>kind</th><th>calls</th><th>seconds</th></tr>\n" +
                            sync + "</table>\n";
  out += "<p style=\"color:#888\">Generated by mpimon.</p>\n</body></html>\n";
  return out;
}

}  // namespace mpimon::tools
