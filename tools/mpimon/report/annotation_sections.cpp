// Report sections drawn from the job file's annotations (COLL and OSC layers).
#include "heatmap.h"
#include "sections.h"

namespace mpimon::tools {

std::string collective_classes_section(const ReportInput& input) {
  std::string rows;
  for (const JobAnnotation& a : input.annotations) {
    if (a.keyword != "collectives" || a.fields.size() != 8) continue;
    rows += "<tr><td>" + escape_markup(a.fields[0]) + "</td><td style=\"text-align:left\">" +
            escape_markup(unescape_name(a.fields[1])) + "</td>";
    for (int i = 2; i < 8; ++i) rows += "<td>" + escape_markup(a.fields[i]) + "</td>";
    rows += "</tr>\n";
  }
  std::string out = "<h2>Collectives per communicator</h2>\n";
  return out + (rows.empty() ? "<p>No collective classes recorded (needs a job file from a run with the COLL layer).</p>\n"
                             : "<table><tr><th>rank</th><th>communicator</th><th>one-to-all calls</th><th>bytes</th>"
                               "<th>all-to-one calls</th><th>bytes</th><th>all-to-all calls</th><th>bytes</th></tr>\n" +
                                   rows + "</table>\n");
}

std::string rma_synchronisation_section(const ReportInput& input) {
  std::string rows;
  for (const JobAnnotation& a : input.annotations) {
    if (a.keyword != "window_sync" || a.fields.size() != 5) continue;
    rows += "<tr><td>" + escape_markup(a.fields[0]) + "</td><td style=\"text-align:left\">" +
            escape_markup(unescape_name(a.fields[1])) + "</td><td style=\"text-align:left\">" +
            escape_markup(a.fields[2]) + "</td><td>" + escape_markup(a.fields[3]) + "</td><td>" +
            escape_markup(a.fields[4]) + "</td></tr>\n";
  }
  std::string out = "<h2>RMA synchronisation</h2>\n";
  return out + (rows.empty() ? "<p>No one-sided synchronisation recorded.</p>\n"
                             : "<table><tr><th>rank</th><th>window</th><th>kind</th><th>calls</th><th>seconds</th></tr>\n" +
                                   rows + "</table>\n");
}

}  // namespace mpimon::tools
