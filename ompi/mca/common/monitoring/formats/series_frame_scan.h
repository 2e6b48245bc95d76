// Scanning bytes of a series file (formats/series_frame.h) for its frames: every frame
// whose length and checksum hold, damaged and torn bytes skipped and reported. In the core
// (not the readers library) because the writer itself scans its host's file for the other
// ranks' final frames before a signal takes effect (series/series_writer.cpp,
// docs/time-series.md "Signals"); opening a file by path: readers/series_frame_reader.h.
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

// The same over bytes in memory (`source` names them in messages).
void scan_frames(std::string_view bytes, const std::function<void(const Frame&)>& on_frame,
                 std::vector<ScanIssue>& issues);

// The same over a stream: `read(into, n)` returns up to n bytes, 0 at its end.
void scan_frame_stream(const std::function<size_t(char*, size_t)>& read,
                       const std::function<void(const Frame&)>& on_frame, std::vector<ScanIssue>& issues);

}  // namespace mpimon::series
