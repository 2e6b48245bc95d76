// Finding the frames of a series (formats/series_frame.h) in bytes: every frame whose
// length and checksum hold, damaged and torn bytes skipped and reported. Part of the
// format, shared by the runtime (a process waiting for its host's final frames after a
// SIGTERM, series/series_writer.cpp) and the readers (readers/series_frame_reader.h adds
// reading a file by name, with FormatError).
#pragma once

#include <cstddef>
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
  uint64_t offset = 0;       // of the header line in the source
};

// Bytes of a source that held no valid frame.
struct ScanIssue {
  enum Kind { damaged, torn_tail } kind = damaged;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// Calls on_frame for every valid frame of the bytes, in order. Skipped bytes go to `issues`.
void scan_frames(std::string_view bytes, const std::function<void(const Frame&)>& on_frame,
                 std::vector<ScanIssue>& issues);
// The same over a source read in chunks (memory: the largest frame, not the source):
// `read` fills up to n bytes and returns how many, 0 at the end.
void scan_frame_source(const std::function<size_t(char*, size_t)>& read,
                       const std::function<void(const Frame&)>& on_frame, std::vector<ScanIssue>& issues);

}  // namespace mpimon::series
