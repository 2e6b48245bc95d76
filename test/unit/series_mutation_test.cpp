// Hostile series folders, generated: thousands of mutations of a valid series (flipped
// bits, cuts, inserted and repeated bytes, and frames re-framed with a valid checksum
// around a mutated payload, which only a parser can refuse). Reading must either succeed
// or throw FormatError naming the file and the frame's offset: never crash, never any
// other error. Built plain and with AddressSanitizer + UBSan (series_asan.*).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "formats/job_format.h"
#include "readers/job_reader.h"
#include "readers/series_reader.h"
#include "series_builder.h"
#include "temp_dir.h"

namespace mpimon::series {
namespace {

class SeriesMutationTest : public test::TempDirTest {};

// A valid two-host series with records, annotations and final frames.
test::SeriesBuilder valid_series() {
  test::SeriesBuilder b;
  b.world_size = 3;
  b.start("a", 0).start("a", 1).start("b", 2);
  for (uint64_t k = 1; k <= 4; ++k) {
    b.frame("a", 0, k,
            "1 external 10 100 7:10\n2 internal 2 16 4:2\nannotations 1 1\n0 collectives 0 w 0 0 0 0 " +
                std::to_string(k) + " 8\n");
    b.frame("a", 1, k, "2 external 0 64\n0 coll 1 8 4:1\n");
    b.frame("b", 2, k, "0 osc_sent 3 24 4:3\n1 osc_recv 1 1 1:1\n");
  }
  b.frame("a", 0, 5, "end finalize\n1 external 1 1 1:1\n", FrameKind::final);
  b.frame("b", 2, 5, "end signal 15\n", FrameKind::final);
  return b;
}

// The frames of a file, as (header, payload) pairs, for re-framing.
std::vector<std::pair<FrameHeader, std::string>> frames_of(const std::string& bytes) {
  std::vector<std::pair<FrameHeader, std::string>> out;
  std::vector<ScanIssue> issues;
  scan_frames(
      bytes, [&](const Frame& f) { out.emplace_back(f.header, std::string(f.payload)); }, issues);
  return out;
}

std::string mutate(std::string bytes, std::mt19937& random) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : std::uniform_int_distribution<size_t>(0, n - 1)(random); };
  static const std::string pieces[] = {" ",           "\n",         "0",  "-1",          "18446744073709551616",
                                       "99999999999", ":",          ",",  "annotations", "end ",
                                       "external",    "@mpimon ",   "\t", "%",           "4:",
                                       "66:1",        "2147483647", "1e9"};
  switch (pick(6)) {
    case 0:  // flip a bit
      if (!bytes.empty()) bytes[pick(bytes.size())] ^= static_cast<char>(1 << pick(8));
      return bytes;
    case 1:  // cut
      return bytes.substr(0, pick(bytes.size() + 1));
    case 2:  // insert a token
      return bytes.insert(pick(bytes.size() + 1), pieces[pick(std::size(pieces))]);
    case 3: {  // repeat a chunk
      const size_t at = pick(bytes.size() + 1), length = pick(200);
      return bytes.insert(pick(bytes.size() + 1), bytes.substr(at, length));
    }
    default: {  // mutate one frame's payload (or header fields) and frame it again with a valid CRC
      auto frames = frames_of(bytes);
      if (frames.empty()) return bytes;
      auto& [header, payload] = frames[pick(frames.size())];
      switch (pick(5)) {
        case 0:
          header.rank = static_cast<int32_t>(pick(6));
          break;
        case 1:
          header.interval = pick(3) == 0 ? UINT64_MAX : pick(8);
          break;
        case 2:
          header.kind = static_cast<FrameKind>(pick(3));
          break;
        default:
          for (int n = 1 + static_cast<int>(pick(3)); n > 0; --n) {
            if (pick(2))
              payload.insert(pick(payload.size() + 1), pieces[pick(std::size(pieces))]);
            else if (!payload.empty())
              payload.erase(pick(payload.size()), 1 + pick(4));
          }
      }
      std::string out;
      for (const auto& [h, p] : frames) out += encode_frame(h, p);
      return out;
    }
  }
}

TEST_F(SeriesMutationTest, NoMutationCrashesTheReaderOrIsMisread) {
  const test::SeriesBuilder valid = valid_series();
  std::mt19937 random(20261123);
  size_t accepted = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string folder = dir_ + "/r" + std::to_string(round % 4) + ".series";
    std::filesystem::remove_all(folder);
    test::SeriesBuilder b = valid;
    for (int n = 1 + round % 3; n > 0; --n) {
      auto it = b.files.begin();
      std::advance(it, random() % b.files.size());
      it->second = mutate(it->second, random);
    }
    b.write(folder);
    try {
      SeriesTotals totals;
      const SeriesInfo info = read_series(folder, [&](const SeriesFrame& f) { totals.add(f); });
      // What was accepted is a job file our reader accepts too.
      parse_job_file(totals.job_file_text(info), "totals");
      (void)info.describe_end();
      ++accepted;
    } catch (const FormatError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(folder, 0), 0u) << what;  // names the folder or a file in it
      ++refused;
    }
  }
  EXPECT_GT(accepted, 100u);
  EXPECT_GT(refused, 100u);
}

}  // namespace
}  // namespace mpimon::series
