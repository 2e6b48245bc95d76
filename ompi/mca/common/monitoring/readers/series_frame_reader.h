// Reading the frames of a series file (formats/series_frame.h): every frame whose length
// and checksum hold, damaged and torn bytes skipped and reported. Pure C++, in
// mpimon_format_readers: the tools and tests link it, the runtime library never does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/series_frame.h"

namespace mpimon::series {

struct Frame {
  FrameHeader header;
  std::string_view payload;  // valid during the callback only
  uint64_t offset = 0;       // of the header line in the file
};

// Bytes of a file that held no valid frame.
struct ScanIssue {
  enum Kind { damaged, torn_tail } kind = damaged;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// Calls on_frame for every valid frame of the file at `path`, in file order, reading it
// in chunks (memory: the largest frame, not the file). Skipped bytes go to `issues`.
// Throws FormatError when the file cannot be read.
void scan_frame_file(const std::string& path, const std::function<void(const Frame&)>& on_frame,
                     std::vector<ScanIssue>& issues);
// The same over bytes in memory (`source` names them in messages).
void scan_frames(std::string_view bytes, const std::function<void(const Frame&)>& on_frame,
                 std::vector<ScanIssue>& issues);

}  // namespace mpimon::series
