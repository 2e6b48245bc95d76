// Reading the frames of a series file by name (the scanning itself is the format's:
// formats/series_frame_scan.h). Pure C++, in
// mpimon_readers: the tools and tests link it, the runtime library never does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/series_frame_scan.h"

namespace mpimon::series {

// Calls on_frame for every valid frame of the file at `path`, in file order, reading it
// in chunks (memory: the largest frame, not the file). Skipped bytes go to `issues`.
// Throws FormatError when the file cannot be read.
void scan_frame_file(const std::string& path, const std::function<void(const Frame&)>& on_frame,
                     std::vector<ScanIssue>& issues);

}  // namespace mpimon::series
