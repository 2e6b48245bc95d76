// The sections of `mpimon report`'s page. Each section is one function from what was read
// (ReportInput) to an HTML fragment (an <h2> heading and its content, or "" to leave the
// section out); report.cpp lists them in page order. A new kind of data gets a section
// file of its own here and one line in that list.
#pragma once

#include <string>
#include <vector>

#include "job_format.h"
#include "traffic_matrix.h"

namespace mpimon::tools {

struct ReportInput {
  std::vector<std::string> files;         // the dump files, expanded
  TrafficMatrix matrix;                   // every record of every file
  bool have_header = false;               // a job file was among them
  JobHeader header;                       // of the last job file
  std::vector<JobAnnotation> annotations; // of every job file
};

using ReportSection = std::string (*)(const ReportInput&);

// traffic_sections.cpp
std::string totals_section(const ReportInput& input);
std::string heatmaps_section(const ReportInput& input);
std::string top_talkers_section(const ReportInput& input);
std::string message_sizes_section(const ReportInput& input);
// annotation_sections.cpp
std::string collective_classes_section(const ReportInput& input);
std::string rma_synchronisation_section(const ReportInput& input);

}  // namespace mpimon::tools
