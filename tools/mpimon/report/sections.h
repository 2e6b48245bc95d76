// The sections of `mpimon report`'s page. Each section is one function from what was read
// (ReportInput) to an HTML fragment (an <h2> heading and its content, or "" to leave the
// section out); report.cpp lists them in page order. A new kind of data gets a section
// file of its own here and one line in that list.
//
// Sections stay bounded whatever the job size: heatmaps are binned, tables show their
// first or busiest rows (kMaxTableRows) and say how many more there are.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "dumps.h"

namespace mpimon::tools {

// What was read (Dumps: files, matrix, have_header, header, the job files' annotations that
// the readers do not turn into collectives and window_syncs rows), and how to read the
// files again.
struct ReportInput : Dumps {
  DumpLoader load = load_dump_file;
};

inline constexpr size_t kMaxTableRows = 64;

// For the sections' tables. The rows to show: all of them when they fit, else the `kMaxTableRows` that come first by
// `busier`; then in reading order (`before`).
template <typename Row, typename Busier, typename Before>
std::vector<const Row*> bounded_rows(const std::vector<Row>& rows, Busier busier, Before before) {
  std::vector<const Row*> shown;
  for (const Row& r : rows) shown.push_back(&r);
  if (shown.size() > kMaxTableRows) {
    std::partial_sort(shown.begin(), shown.begin() + kMaxTableRows, shown.end(),
                      [&](const Row* a, const Row* b) { return busier(*a, *b); });
    shown.resize(kMaxTableRows);
  }
  std::sort(shown.begin(), shown.end(), [&](const Row* a, const Row* b) { return before(*a, *b); });
  return shown;
}

inline std::string more_rows_note(size_t total, const char* order) {
  if (total <= kMaxTableRows) return {};
  return "<p class=\"note\">" + std::to_string(total - kMaxTableRows) + " more rows not shown (the " +
         std::to_string(kMaxTableRows) + " " + order + " are).</p>\n";
}

using ReportSection = std::string (*)(const ReportInput&);

// traffic_sections.cpp
std::string totals_section(const ReportInput& input);
std::string heatmaps_section(const ReportInput& input);
std::string top_talkers_section(const ReportInput& input);
std::string message_sizes_section(const ReportInput& input);
// annotation_sections.cpp
std::string collective_classes_section(const ReportInput& input);
std::string rma_synchronisation_section(const ReportInput& input);
// wait_state_sections.cpp
std::string rma_wait_states_section(const ReportInput& input);
// nbc_section.cpp
std::string nbc_overlap_section(const ReportInput& input);
// io_section.cpp
std::string io_section(const ReportInput& input);

// timeline_section.cpp
std::string timeline_section(const ReportInput& input);

}  // namespace mpimon::tools
