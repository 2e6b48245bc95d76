// `mpimon report`: one self-contained HTML page (no external resource, viewable offline)
// about a job: totals, heatmaps per category, top talkers, message sizes, per-communicator
// collective classes and RMA synchronisation times.
#pragma once

#include <string>

#include "dumps.h"

namespace mpimon::tools {

// `dumps` as read_dumps(..., Annotations::read) returns them; `load` reads the files again
// (the message sizes section).
std::string format_html_report(Dumps dumps, const DumpLoader& load = load_dump_file);

}  // namespace mpimon::tools
