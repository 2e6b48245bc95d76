// Framed records: how the time series survives a process dying at any instant.
//
// A series file is a sequence of frames, each written with one write(2) (O_APPEND: the
// ranks of one host share one file). A frame is a text header line followed by a payload
// of exactly the announced length:
//
//   @mpimon <kind> <rank> <interval> <time_us> <length> <crc>\n<payload>
//
// kind: start | snapshot | final; rank: MPI_COMM_WORLD rank; interval: the tick the
// frame closes (interval k covers seconds (k-1)·I to k·I after the job's start);
// time_us: when the snapshot was taken (microseconds since the Unix epoch); length: the
// payload's bytes; crc: CRC-32C (8 lower-case hex digits) of the header line up to the
// space before it, followed by the payload.
//
// A reader (formats/series_frame_scan.h) never misreads a torn or damaged frame: the length and the checksum must
// both hold. A frame that fails is skipped up to the next "@mpimon " that starts a frame that holds (a write torn by a
// killed process may be followed by other processes' frames); failed bytes that reach the end of the file are a torn
// last write, dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mpimon::series {

enum class FrameKind : uint8_t { start, snapshot, final };
const char* frame_kind_name(FrameKind kind) noexcept;

struct FrameHeader {
  FrameKind kind = FrameKind::snapshot;
  int32_t rank = 0;
  uint64_t interval = 0;
  int64_t time_us = 0;
};

// The largest payload a reader accepts (a writer never comes near: a rank talking to
// 100 000 peers in every category writes about 15 MB).
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{64} << 20;
inline constexpr std::string_view kFrameMagic = "@mpimon ";

std::string encode_frame(const FrameHeader& header, std::string_view payload);

}  // namespace mpimon::series
