// Report sections drawn from the job file's annotations and the .prof files' communicator
// and synchronisation lines (COLL and OSC layers).
#include <algorithm>
#include <cstdio>

#include "heatmap.h"
#include "report/sections.h"

namespace mpimon::tools {

namespace {

std::string cell(const std::string& text) { return "<td>" + text + "</td>"; }
std::string name_cell(const std::string& text) { return "<td class=\"name\">" + escape_markup(text) + "</td>"; }

}  // namespace

std::string collective_classes_section(const ReportInput& input) {
  std::string out = "<h2>Collectives per communicator</h2>\n";
  if (input.collectives.empty())
    return out +
           "<p>No collective classes recorded (needs the COLL layer: a job file, or .prof files with D "
           "lines).</p>\n";
  auto bytes = [](const CollectiveRow& r) {
    return Total{r.classes[0].bytes} + r.classes[1].bytes + r.classes[2].bytes;
  };
  const auto rows = bounded_rows(
      input.collectives, [&](const CollectiveRow& a, const CollectiveRow& b) { return bytes(a) > bytes(b); },
      [](const CollectiveRow& a, const CollectiveRow& b) {
        return std::tie(a.communicator, a.rank) < std::tie(b.communicator, b.rank);
      });
  out +=
      "<table><tr><th>rank</th><th>communicator</th><th>one-to-all calls</th><th>bytes</th>"
      "<th>all-to-one calls</th><th>bytes</th><th>all-to-all calls</th><th>bytes</th></tr>\n";
  for (const CollectiveRow* r : rows) {
    out += "<tr>" + cell(std::to_string(r->rank)) + name_cell(r->communicator);
    for (const Traffic& t : r->classes) out += cell(std::to_string(t.messages)) + cell(std::to_string(t.bytes));
    out += "</tr>\n";
  }
  return out + "</table>\n" + more_rows_note(input.collectives.size(), "with the most bytes");
}

std::string rma_synchronisation_section(const ReportInput& input) {
  std::string out = "<h2>RMA synchronisation</h2>\n";
  if (input.window_syncs.empty()) return out + "<p>No one-sided synchronisation recorded.</p>\n";
  const auto rows = bounded_rows(
      input.window_syncs, [](const WindowSyncRow& a, const WindowSyncRow& b) { return a.seconds > b.seconds; },
      [](const WindowSyncRow& a, const WindowSyncRow& b) {
        return std::tie(a.window, a.rank, a.kind) < std::tie(b.window, b.rank, b.kind);
      });
  out += "<table><tr><th>rank</th><th>window</th><th>kind</th><th>calls</th><th>seconds</th></tr>\n";
  for (const WindowSyncRow* r : rows) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.9f", r->seconds);
    out += "<tr>" + cell(std::to_string(r->rank)) + name_cell(r->window) + name_cell(r->kind) +
           cell(std::to_string(r->calls)) + cell(seconds) + "</tr>\n";
  }
  return out + "</table>\n" + more_rows_note(input.window_syncs.size(), "with the most time");
}

}  // namespace mpimon::tools
