// `mpimon report`: one self-contained HTML page (no external resource, viewable offline)
// about a job: totals, heatmaps per category, top talkers, message sizes, per-communicator
// collective classes and RMA synchronisation times.
#pragma once

#include <string>
#include <vector>

namespace mpimon::tools {

std::string format_html_report(const std::vector<std::string>& dump_files);

}  // namespace mpimon::tools
