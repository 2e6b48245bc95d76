// The time series' framing (formats/series_frame.h): frames round-trip; a torn last write, a
// damaged frame in the middle, flipped bits and garbage are detected and skipped, never
// misread.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "formats/series_frame.h"
#include "readers/format_error.h"
#include "readers/series_frame_reader.h"
#include "temp_dir.h"

namespace mpimon::series {
namespace {

struct Scanned {
  std::vector<FrameHeader> headers;
  std::vector<std::string> payloads;
  std::vector<uint64_t> offsets;
  std::vector<ScanIssue> issues;
};

Scanned scan(std::string_view bytes) {
  Scanned s;
  scan_frames(
      bytes,
      [&](const Frame& f) {
        s.headers.push_back(f.header);
        s.payloads.emplace_back(f.payload);
        s.offsets.push_back(f.offset);
      },
      s.issues);
  return s;
}

std::string frame(int32_t rank, uint64_t interval, std::string_view payload, FrameKind kind = FrameKind::snapshot) {
  return encode_frame({kind, rank, interval, 1700000000000000 + static_cast<int64_t>(interval)}, payload);
}

TEST(SeriesFrame, HeaderIsReadableText) {
  const std::string f = frame(3, 17, "0 external 1 8 4:1\n");
  EXPECT_EQ(f.substr(0, f.find('\n') - 8), "@mpimon snapshot 3 17 1700000000000017 19 ");
  EXPECT_EQ(f.substr(f.find('\n') + 1), "0 external 1 8 4:1\n");
}

TEST(SeriesFrame, FramesRoundTrip) {
  const std::string bytes =
      frame(0, 0, "a\n", FrameKind::start) + frame(1, 1, "") + frame(2, 5, "x y\nz\n", FrameKind::final);
  const Scanned s = scan(bytes);
  ASSERT_EQ(s.headers.size(), 3u);
  EXPECT_TRUE(s.issues.empty());
  EXPECT_EQ(s.headers[0].kind, FrameKind::start);
  EXPECT_EQ(s.headers[1].rank, 1);
  EXPECT_EQ(s.headers[2].kind, FrameKind::final);
  EXPECT_EQ(s.headers[2].interval, 5u);
  EXPECT_EQ(s.headers[2].time_us, 1700000000000005);
  EXPECT_EQ(s.payloads[2], "x y\nz\n");
  EXPECT_EQ(s.offsets[1], frame(0, 0, "a\n", FrameKind::start).size());
}

TEST(SeriesFrame, EveryTornLastWriteIsDroppedAndReported) {
  const std::string good = frame(0, 1, "0 external 1 8 4:1\n");
  const std::string last = frame(1, 1, "0 external 2 16 4:2\n");
  for (size_t cut = 1; cut < last.size(); ++cut) {
    const Scanned s = scan(good + last.substr(0, cut));
    ASSERT_EQ(s.headers.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(s.payloads[0], "0 external 1 8 4:1\n");
    ASSERT_EQ(s.issues.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(s.issues[0].kind, ScanIssue::torn_tail);
    EXPECT_EQ(s.issues[0].offset, good.size());
    EXPECT_EQ(s.issues[0].bytes, cut);
  }
}

TEST(SeriesFrame, TornFrameFollowedByOtherProcessesFramesIsSkipped) {
  // A process killed in the middle of its write; the others of the host append after it.
  const std::string torn = frame(2, 3, "1 external 5 50 6:5\n").substr(0, 30);
  const std::string bytes = frame(0, 3, "p\n") + torn + frame(1, 3, "q\n") + frame(3, 3, "r\n");
  const Scanned s = scan(bytes);
  ASSERT_EQ(s.payloads.size(), 3u);
  EXPECT_EQ(s.payloads[1], "q\n");
  EXPECT_EQ(s.payloads[2], "r\n");
  ASSERT_EQ(s.issues.size(), 1u);
  EXPECT_EQ(s.issues[0].kind, ScanIssue::damaged);
  EXPECT_EQ(s.issues[0].bytes, torn.size());
}

TEST(SeriesFrame, AnyFlippedBitIsDetected) {
  const std::string f = frame(4, 9, "4 internal 12 96 4:12\n0 coll 1 8 4:1\n");
  for (size_t i = 0; i < f.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = f;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      const Scanned s = scan(damaged);
      EXPECT_TRUE(s.payloads.empty()) << "byte " << i << " bit " << bit;
      EXPECT_EQ(s.issues.size(), 1u);
    }
  }
}

TEST(SeriesFrame, GarbageAroundFramesIsSkipped) {
  const std::string bytes = "garbage @mpimon not a frame\n\x01\x02" + frame(0, 1, "a\n") +
                            "@mpimon snapshot 1 2 3 999999 00000000\n" + frame(1, 1, "b\n") + "trailing";
  const Scanned s = scan(bytes);
  ASSERT_EQ(s.payloads.size(), 2u);
  EXPECT_EQ(s.payloads[0], "a\n");
  EXPECT_EQ(s.payloads[1], "b\n");
  ASSERT_EQ(s.issues.size(), 3u);
  EXPECT_EQ(s.issues[0].kind, ScanIssue::damaged);
  EXPECT_EQ(s.issues[0].offset, 0u);
  EXPECT_EQ(s.issues[1].kind, ScanIssue::damaged);
  EXPECT_EQ(s.issues[2].kind, ScanIssue::torn_tail);
  EXPECT_EQ(s.issues[2].bytes, 8u);
}

TEST(SeriesFrame, HugeAnnouncedLengthIsRefusedWithoutReadingIt) {
  std::string header = "@mpimon snapshot 0 1 2 " + std::to_string(kMaxPayloadBytes + 1) + " 00000000\n";
  const Scanned s = scan(header + "x");
  EXPECT_TRUE(s.payloads.empty());
  ASSERT_EQ(s.issues.size(), 1u);
  EXPECT_EQ(s.issues[0].kind, ScanIssue::torn_tail);
}

class SeriesFrameFile : public test::TempDirTest {};

TEST_F(SeriesFrameFile, FileIsReadInChunksAcrossFrameBoundaries) {
  // Frames larger than the reader's chunk, and many small ones, with a torn one between.
  std::string bytes;
  std::vector<std::string> payloads;
  for (int i = 0; i < 300; ++i) {
    std::string payload(static_cast<size_t>(i % 7 == 0 ? 100000 + i : 10 + i), static_cast<char>('a' + i % 26));
    payload += '\n';
    payloads.push_back(payload);
    bytes += frame(i, static_cast<uint64_t>(i), payload);
    if (i == 150) bytes += frame(9, 9, std::string(70000, 'z')).substr(0, 66000);
  }
  const std::string path = dir_ + "/host";
  std::ofstream(path, std::ios::binary) << bytes;
  std::vector<std::string> read;
  std::vector<ScanIssue> issues;
  scan_frame_file(
      path, [&](const Frame& f) { read.emplace_back(f.payload); }, issues);
  EXPECT_EQ(read, payloads);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, ScanIssue::damaged);
  EXPECT_EQ(issues[0].bytes, 66000u);
}

TEST_F(SeriesFrameFile, UnreadableFileIsAFormatErrorNamingIt) {
  std::vector<ScanIssue> issues;
  try {
    scan_frame_file(
        dir_ + "/missing", [](const Frame&) {}, issues);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("missing: cannot open: No such file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpimon::series
