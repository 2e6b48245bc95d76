// The report's MPI-IO section (job files' io_* annotations, .prof "# IO_*" lines): per
// file, the bytes the application asked for against the bytes that reached the file
// system, by rank; the aggregators; the shuffle (its matrix is the io_shuffle heatmap).
#include <cstdio>

#include "heatmap.h"
#include "io_summary.h"
#include "sections.h"

namespace mpimon::tools {

namespace {

using mpi_io::Direction;
using mpi_io::RankUse;

std::string cell(const std::string& text) { return "<td>" + text + "</td>"; }
std::string name_cell(const std::string& text) { return "<td class=\"name\">" + escape_markup(text) + "</td>"; }
std::string seconds_cell(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f", seconds);
  return cell(text);
}

std::string reached_cell(const IoFileSummary& f, int d) {
  return f.file_system ? cell(total_text(f.reached[d])) : cell("-");
}

// "<n> ops, <B> B", "0" or "-" (ROMIO: no file-system view).
std::string failed_text(bool file_system, Total operations, Total bytes) {
  if (!file_system) return "-";
  return operations == 0 ? "0" : total_text(operations) + " ops, " + total_text(bytes) + " B";
}

// One rank's use of one file, for the per-rank table.
struct RankRow {
  const std::string* file;
  int32_t rank;
  const RankUse* use;
  Total bytes() const {
    return Total{use->asked_bytes(Direction::read)} + use->asked_bytes(Direction::write) + use->fs[0].bytes +
           use->fs[1].bytes + use->fs[0].failed_bytes + use->fs[1].failed_bytes;
  }
};

}  // namespace

std::string io_section(const ReportInput& input) {
  const auto& files = input.io.files();
  if (files.empty()) return {};
  std::string out = "<h2>MPI-IO</h2>\n";
  out +=
      "<p class=\"note\">Asked: what the application's MPI-IO calls asked for (count &times; type size). Reached "
      "the file system: what ompio handed to its fbtl, before data sieving (ompio only; - under ROMIO). Failed: the "
      "fbtl operations that failed (an error, or a short write: a full disk) and the bytes they did not move, never "
      "counted as reached. "
      "Shuffle: the collective-buffering messages of the I/O library, kept out of the application's traffic "
      "(the io_shuffle heatmap above). Aggregators: ranks that accessed the file system for their group in a "
      "collective call.</p>\n";
  out +=
      "<table><tr><th>file</th><th>ranks</th><th>io</th><th>read asked</th><th>read reached</th>"
      "<th>read failed</th><th>written asked</th><th>written reached</th><th>write failed</th>"
      "<th>shuffle bytes</th><th>aggregators</th><th>read s</th><th>write s</th><th>meta s</th></tr>\n";
  std::vector<RankRow> ranks;
  const std::vector<IoFileSummary> summaries = summarize_files(input.io);
  size_t index = 0;
  for (const auto& [identity, f] : files) {
    const IoFileSummary& t = summaries[index++];
    out += "<tr>" + name_cell(t.name) + cell(std::to_string(t.ranks)) + name_cell(t.components) +
           cell(total_text(t.asked[0])) + reached_cell(t, 0) +
           cell(failed_text(t.file_system, t.failed_operations[0], t.failed_bytes[0])) + cell(total_text(t.asked[1])) +
           reached_cell(t, 1) + cell(failed_text(t.file_system, t.failed_operations[1], t.failed_bytes[1])) +
           cell(total_text(t.shuffle)) + cell(t.file_system ? std::to_string(t.aggregators) : "-") +
           seconds_cell(t.seconds[0]) + seconds_cell(t.seconds[1]) + seconds_cell(t.seconds[2]) + "</tr>\n";
    for (const auto& [rank, use] : f.ranks) ranks.push_back({&t.name, rank, &use});
  }
  out += "</table>\n<h3>By rank</h3>\n";
  const auto rows = bounded_rows(
      ranks, [](const RankRow& a, const RankRow& b) { return a.bytes() > b.bytes(); },
      [](const RankRow& a, const RankRow& b) { return std::tie(*a.file, a.rank) < std::tie(*b.file, b.rank); });
  out +=
      "<table><tr><th>file</th><th>rank</th><th>read asked</th><th>read reached</th><th>read failed</th>"
      "<th>written asked</th><th>written reached</th><th>write failed</th><th>collective calls</th>"
      "<th>aggregated</th><th>shuffle sent</th></tr>\n";
  for (const RankRow* r : rows) {
    Total shuffle = 0;
    for (const auto& [peer, traffic] : r->use->shuffle) shuffle += traffic.bytes;
    const bool fs = r->use->io == "ompio";
    out += "<tr>" + name_cell(*r->file) + cell(std::to_string(r->rank)) +
           cell(std::to_string(r->use->asked_bytes(Direction::read))) +
           cell(fs ? std::to_string(r->use->fs[0].bytes) : "-") +
           cell(failed_text(fs, r->use->fs[0].failed_operations, r->use->fs[0].failed_bytes)) +
           cell(std::to_string(r->use->asked_bytes(Direction::write))) +
           cell(fs ? std::to_string(r->use->fs[1].bytes) : "-") +
           cell(failed_text(fs, r->use->fs[1].failed_operations, r->use->fs[1].failed_bytes)) +
           cell(std::to_string(r->use->collective_calls)) + cell(fs ? std::to_string(r->use->aggregated_calls) : "-") +
           cell(total_text(shuffle)) + "</tr>\n";
  }
  return out + "</table>\n" + more_rows_note(ranks.size(), "with the most bytes");
}

}  // namespace mpimon::tools
