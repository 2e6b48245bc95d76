// Finding the frames of a series file (formats/series_frame.h) in bytes: every frame whose
// length and checksum hold, damaged and torn bytes skipped and reported. In mpimon_core:
// the tools read series files with it (readers/series_frame_reader.h) and the series writer
// looks for other processes' final frames after a SIGTERM (series/series_writer.h).
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

// Calls on_frame for every valid frame of `bytes`, in order; skipped bytes go to `issues`.
void scan_frames(std::string_view bytes, const std::function<void(const Frame&)>& on_frame,
                 std::vector<ScanIssue>& issues);

// The same over a stream: `read(into, n)` gives up to n bytes, 0 at its end (memory: the
// largest frame, not the stream).
void scan_frame_stream(const std::function<size_t(char*, size_t)>& read,
                       const std::function<void(const Frame&)>& on_frame, std::vector<ScanIssue>& issues);

}  // namespace mpimon::series
