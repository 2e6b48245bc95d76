#include "formats/series_frame.h"

#include <cstdio>

#include "formats/checksum.h"

namespace mpimon::series {

const char* frame_kind_name(FrameKind kind) noexcept {
  switch (kind) {
    case FrameKind::start:
      return "start";
    case FrameKind::snapshot:
      return "snapshot";
    case FrameKind::final:
      return "final";
  }
  return "unknown";
}

namespace {

// "<kind> <rank> <interval> <time_us> <length>" of a header, after the magic.
std::string header_fields(const FrameHeader& h, uint64_t length) {
  return std::string(frame_kind_name(h.kind)) + ' ' + std::to_string(h.rank) + ' ' + std::to_string(h.interval) + ' ' +
         std::to_string(h.time_us) + ' ' + std::to_string(length);
}

}  // namespace

std::string encode_frame(const FrameHeader& header, std::string_view payload) {
  std::string out(kFrameMagic);
  out += header_fields(header, payload.size());
  const uint32_t crc = crc32c(payload, crc32c(out));
  char hex[16];
  const int n = std::snprintf(hex, sizeof hex, " %08x\n", crc);
  out.append(hex, static_cast<size_t>(n));
  out += payload;
  return out;
}

}  // namespace mpimon::series
