// The time series' payloads (formats/series_format.h): start frames, snapshot deltas
// (sparse records, annotation lines by position), and the reader's checks.
#include <gtest/gtest.h>

#include "formats/series_format.h"
#include "readers/format_error.h"
#include "readers/series_payload_reader.h"

namespace mpimon::series {
namespace {

Record record(int32_t peer, Category category, uint64_t messages, uint64_t bytes, int bucket) {
  Record r;
  r.peer = peer;
  r.category = category;
  r.counters.messages = messages;
  r.counters.bytes = bytes;
  r.counters.histogram[bucket] = messages;
  return r;
}

// The payload of totals `now` (a snapshot's records).
std::string payload(DeltaEncoder& encoder, const Snapshot& now, const std::vector<std::string>& lines,
                    std::string_view end_reason = {}) {
  return encoder.payload(view_of(now), lines, end_reason);
}

std::string error_of(std::string_view payload, bool final = false, int world_size = 8) {
  try {
    parse_snapshot_payload(payload, final, world_size, "f:12");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

TEST(SeriesFormat, StartPayloadRoundTrips) {
  SeriesStart s{4, 2, "4.1.4", 1700000000123456, 250000, "node-1", 4242};
  const SeriesStart back = parse_start_payload(format_start_payload(s), "f:0");
  EXPECT_EQ(back.world_size, 4);
  EXPECT_EQ(back.enable_level, 2);
  EXPECT_EQ(back.open_mpi_version, "4.1.4");
  EXPECT_EQ(back.job_start_us, 1700000000123456);
  EXPECT_EQ(back.interval_us, 250000);
  EXPECT_EQ(back.host, "node-1");
  EXPECT_EQ(back.pid, 4242);
}

TEST(SeriesFormat, StartPayloadChecksItsKeys) {
  SeriesStart s{4, 2, "4.1.4", 1, 1000, "h", 1};
  std::string text = format_start_payload(s);
  EXPECT_NO_THROW(parse_start_payload(text + "later_key 7\n", "f:0"));  // a later version's key
  EXPECT_THROW(parse_start_payload(text + "world_size 4\n", "f:0"), FormatError);
  EXPECT_THROW(parse_start_payload(text.substr(text.find('\n') + 1), "f:0"), FormatError);  // no world_size
  std::string zero = text;
  zero.replace(zero.find("interval_us 1000"), 16, "interval_us 0");
  EXPECT_THROW(parse_start_payload(zero, "f:0"), FormatError);
}

TEST(SeriesFormat, DeltaHoldsOnlyWhatChangedAndSumsToTheTotals) {
  DeltaEncoder encoder;
  const Snapshot first{record(1, Category::external, 2, 2048, 11), record(3, Category::internal, 1, 8, 4)};
  const std::string p1 = payload(encoder, first, {});
  EXPECT_EQ(p1, "1 external 2 2048 11:2\n3 internal 1 8 4:1\n");
  encoder.commit();
  Snapshot second = first;
  second[0].counters.messages = 5;
  second[0].counters.bytes = 5120;
  second[0].counters.histogram[11] = 5;
  second.push_back(record(6, Category::coll, 1, 0, 0));
  const std::string p2 = payload(encoder, second, {});
  EXPECT_EQ(p2, "1 external 3 3072 11:3\n6 coll 1 0 0:1\n");  // peer 3 unchanged: absent
  EXPECT_TRUE(encoder.changed());
  encoder.commit();
  EXPECT_EQ(payload(encoder, second, {}), "");
  EXPECT_FALSE(encoder.changed());

  const SnapshotDelta d = parse_snapshot_payload(p2, false, 8, "f:1");
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].peer, 1);
  EXPECT_EQ(d.records[0].counters.messages, 3u);
  EXPECT_EQ(d.records[0].counters.bytes, 3072u);
  EXPECT_EQ(d.records[0].counters.histogram[11], 3u);
  EXPECT_EQ(d.records[1].category, Category::coll);
}

TEST(SeriesFormat, UncommittedSnapshotIsFoldedIntoTheNext) {
  DeltaEncoder encoder;
  payload(encoder, {record(1, Category::external, 2, 20, 5)}, {});  // its write failed: no commit
  EXPECT_EQ(payload(encoder, {record(1, Category::external, 3, 30, 5)}, {}), "1 external 3 30 5:3\n");
}

TEST(SeriesFormat, HalfCountedMessageKeepsCountsAndHistogramTogether) {
  // A snapshot taken between a message's bytes and its count: bytes now, count later.
  DeltaEncoder encoder;
  Record r = record(2, Category::external, 0, 64, 7);
  const std::string p = payload(encoder, {r}, {});
  EXPECT_EQ(p, "2 external 0 64\n");
  EXPECT_EQ(parse_snapshot_payload(p, false, 4, "f:1").records[0].counters.bytes, 64u);
}

TEST(SeriesFormat, AnnotationLinesAreWrittenByPositionWhenTheyChange) {
  DeltaEncoder encoder;
  const std::vector<std::string> lines{"collectives 0 MPI_COMM_WORLD 0 0 0 0 1 8", "communicator MPI_COMM_WORLD 0,1"};
  EXPECT_EQ(payload(encoder, {}, lines),
            "annotations 2 2\n0 collectives 0 MPI_COMM_WORLD 0 0 0 0 1 8\n1 communicator MPI_COMM_WORLD 0,1\n");
  encoder.commit();
  std::vector<std::string> next = lines;
  next[0] = "collectives 0 MPI_COMM_WORLD 0 0 0 0 2 16";
  next.push_back("window_sync 0 window%201 fence 3 0.000100000");
  const std::string p = payload(encoder, {}, next);
  EXPECT_EQ(
      p,
      "annotations 3 2\n0 collectives 0 MPI_COMM_WORLD 0 0 0 0 2 16\n2 window_sync 0 window%201 fence 3 0.000100000\n");
  encoder.commit();
  EXPECT_EQ(payload(encoder, {}, next), "");  // unchanged: nothing

  std::vector<std::string> block = lines;
  apply_annotation_changes(parse_snapshot_payload(p, false, 2, "f:2"), block);
  EXPECT_EQ(block, next);
  EXPECT_EQ(payload(encoder, {}, {next[0]}), "annotations 1 0\n");  // shrank
}

TEST(SeriesFormat, FinalFrameStartsWithItsReason) {
  DeltaEncoder encoder;
  const std::string p = payload(encoder, {record(0, Category::osc_sent, 1, 8, 4)}, {}, "signal 15");
  EXPECT_EQ(p, "end signal 15\n0 osc_sent 1 8 4:1\n");
  EXPECT_EQ(parse_snapshot_payload(p, true, 1, "f:3").end_reason, "signal 15");
  EXPECT_EQ(parse_snapshot_payload("end finalize\n", true, 1, "f:3").end_reason, "finalize");
  EXPECT_EQ(parse_snapshot_payload("end exit\n", true, 1, "f:3").end_reason, "exit");
}

TEST(SeriesFormat, MalformedPayloadsNameTheLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("1 external 2 20 5:2\n9 external 1 1 1:1\n"), "f:12: line 2: expected a peer rank in [0, 8)");
  EXPECT_EQ(error_of("1 external 2 20 5:1\n"),
            "f:12: line 1: expected histogram counts summing to the message count 2, found 1");
  EXPECT_EQ(
      error_of("1 extern 2 20 5:2\n"),
      "f:12: line 1: expected a category (external, internal, coll, osc_sent, osc_recv, io_shuffle), found 'extern'");
  EXPECT_EQ(error_of("1 external 1 8 4:1\n1 external 1 8 4:1\n"),
            "f:12: line 2: expected records in increasing (peer, category) order, each once");
  EXPECT_EQ(error_of("1 external 0 0\n"), "f:12: line 1: expected a record with a non-zero count");
  EXPECT_EQ(error_of("1 external 18446744073709551615 1 4:18446744073709551615,5:1\n"),
            "f:12: line 1: expected histogram counts whose sum fits in 64 bits");
  EXPECT_EQ(error_of("1 external 1 8 66:1\n"), "f:12: line 1: expected histogram buckets increasing within [0, 65]");
  EXPECT_EQ(error_of("1 external 1 8 4:1"), "f:12: expected a payload ending with a newline");
  EXPECT_EQ(error_of("annotations 1 2\n"), "f:12: line 1: expected at most 1 changed lines");
  EXPECT_EQ(error_of("annotations 2 1\n2 collectives 0\n"), "f:12: line 2: expected an index below 2");
  EXPECT_EQ(error_of("annotations 2 1\n0 Collectives\n"),
            "f:12: line 2: expected an annotation line (a lower-case keyword and fields)");
  EXPECT_EQ(error_of("annotations 2 2\n0 a\n"), "f:12: expected 1 more annotation lines, found the end of the payload");
  EXPECT_EQ(error_of("annotations 2 1\n0 a\n1 b\n"),
            "f:12: line 3: expected end of the payload after the announced annotation lines");
  EXPECT_EQ(error_of("0 external 1 8 4:1\n", true),
            "f:12: line 1: expected 'end <reason>' as a final frame's first line");
  EXPECT_EQ(error_of("end signal 99\n", true), "f:12: line 1: expected a signal number in [1, 64]");
  EXPECT_EQ(error_of("", true), "f:12: expected 'end <reason>' in a final frame");
}

}  // namespace
}  // namespace mpimon::series
