// Reading a time series (readers/series_reader.h): totals over time ranges, each rank's
// annotation block, how the job ended, and hostile folders: errors that name the file and
// the frame's offset, never a crash, never a misread.
#include <gtest/gtest.h>

#include "formats/job_format.h"
#include "readers/job_reader.h"
#include "readers/series_reader.h"
#include "series_builder.h"
#include "temp_dir.h"

namespace mpimon::series {
namespace {

using test::SeriesBuilder;

class SeriesReaderTest : public test::TempDirTest {
 protected:
  std::string folder() const { return dir_ + "/job.txt.series"; }
  // Totals of the folder over `range`, as a parsed job file.
  JobFile totals(TimeRange range = {}) {
    SeriesTotals sums(range);
    info_ = read_series(folder(), [&](const SeriesFrame& f) { sums.add(f); });
    return parse_job_file(sums.job_file_text(info_), "totals");
  }
  std::string error_of() {
    try {
      totals();
    } catch (const FormatError& e) {
      return e.what();
    }
    return "";
  }
  // Two ranks on two hosts, three intervals, rank 1 killed after its second.
  SeriesBuilder two_hosts() {
    SeriesBuilder b;
    b.world_size = 2;
    b.start("a", 0).start("b", 1);
    b.frame("a", 0, 1, "1 external 10 100 7:10\nannotations 1 1\n0 collectives 0 c 0 0 0 0 1 4\n");
    b.frame("b", 1, 1, "0 external 5 50 6:5\n");
    b.frame("a", 0, 2, "1 external 10 100 7:10\nannotations 1 1\n0 collectives 0 c 0 0 0 0 2 8\n");
    b.frame("b", 1, 2, "0 external 5 50 6:5\n0 coll 1 4 3:1\n");
    b.frame("a", 0, 3, "end signal 15\n1 external 3 30 5:3\n", FrameKind::final);
    return b;
  }
  SeriesInfo info_;
};

TEST_F(SeriesReaderTest, TotalsAreTheSumsOfTheSnapshots) {
  two_hosts().write(folder());
  const JobFile job = totals();
  EXPECT_EQ(job.header.world_size, 2);
  ASSERT_EQ(job.records.size(), 3u);
  EXPECT_EQ(job.records[0].source, 0);
  EXPECT_EQ(job.records[0].counters.messages, 23u);
  EXPECT_EQ(job.records[0].counters.bytes, 230u);
  EXPECT_EQ(job.records[0].counters.histogram[7], 20u);
  EXPECT_EQ(job.records[0].counters.histogram[5], 3u);
  EXPECT_EQ(job.records[1].counters.messages, 10u);  // 1 -> 0 external
  EXPECT_EQ(job.records[2].category, Category::coll);
  ASSERT_EQ(job.annotations.size(), 1u);  // rank 0's block as of its last change
  EXPECT_EQ(job.annotations[0].fields.back(), "8");
  EXPECT_TRUE(info_.notes.empty());
}

TEST_F(SeriesReaderTest, TimeRangeSelectsIntervals) {
  two_hosts().write(folder());
  const JobFile second = totals({1, 2});  // interval 2: seconds 1 to 2
  ASSERT_EQ(second.records.size(), 3u);
  EXPECT_EQ(second.records[0].counters.messages, 10u);
  EXPECT_EQ(second.records[1].counters.messages, 5u);
  const JobFile first = totals({0, 1});
  ASSERT_EQ(first.records.size(), 2u);
  ASSERT_EQ(first.annotations.size(), 1u);
  EXPECT_EQ(first.annotations[0].fields.back(), "4");  // annotations: totals at the range's end
  EXPECT_TRUE(totals({10, 20}).records.empty());
  EXPECT_TRUE(TimeRange({1, 2}).contains_interval(2, 1.0));
  EXPECT_FALSE(TimeRange({1, 2}).contains_interval(1, 1.0));
  EXPECT_TRUE(TimeRange({0.5, 1.0}).contains_interval(2, 0.5));
}

TEST_F(SeriesReaderTest, HowTheJobEndedIsToldRankByRank) {
  // Three ranks; rank 2 never wrote (the same frames as two_hosts otherwise).
  const SeriesBuilder two = two_hosts();
  SeriesBuilder c;
  c.world_size = 3;
  c.start("a", 0).start("b", 1);
  for (const char* host : {"a", "b"}) {
    const std::string& bytes = two.files.at(host);
    c.files[host] += bytes.substr(bytes.find("@mpimon snapshot"));
  }
  c.write(folder());
  totals();
  EXPECT_FALSE(info_.finished());
  EXPECT_EQ(info_.describe_end(),
            "did not finish (data up to its last snapshot, at 3.0 s); rank 1: no final snapshot (killed?), last at "
            "2.0 s; rank 0: final snapshot at SIGTERM, 3.0 s; rank 2: no frames at all");
  ASSERT_EQ(info_.notes.size(), 1u);
  EXPECT_NE(info_.notes[0].find("no frames from rank 2"), std::string::npos) << info_.notes[0];
}

TEST_F(SeriesReaderTest, FinishedWhenEveryRankReachedMpiFinalize) {
  SeriesBuilder b;
  b.world_size = 1;
  b.start("a", 0).frame("a", 0, 1, "end finalize\n0 external 1 1 1:1\n", FrameKind::final).write(folder());
  totals();
  EXPECT_TRUE(info_.finished());
  EXPECT_EQ(info_.describe_end(), "finished: every rank reached MPI_Finalize (last snapshot at 1.0 s)");
}

TEST_F(SeriesReaderTest, DamagedAndTornFramesAreSkippedAndNamed) {
  SeriesBuilder b = two_hosts();
  std::string& a = b.files["a"];
  const size_t second = a.find("@mpimon snapshot 0 2");
  a[second + 70] ^= 0x20;  // a flipped bit in rank 0's second snapshot
  b.files["b"] += encode_frame({FrameKind::snapshot, 1, 3, 0}, "0 external 1 1 1:1\n").substr(0, 20);
  b.write(folder());
  const JobFile job = totals();
  EXPECT_EQ(job.records[0].counters.messages, 13u);  // that snapshot lost, nothing misread
  ASSERT_EQ(info_.notes.size(), 2u);
  EXPECT_NE(info_.notes[0].find("/a: "), std::string::npos);
  EXPECT_NE(info_.notes[0].find("hold no valid frame"), std::string::npos) << info_.notes[0];
  EXPECT_NE(info_.notes[1].find("/b: 20 bytes at offset"), std::string::npos) << info_.notes[1];
  EXPECT_NE(info_.notes[1].find("torn write"), std::string::npos) << info_.notes[1];
}

TEST_F(SeriesReaderTest, HostileFoldersGiveErrorsNamingFileAndOffset) {
  auto error_for = [&](SeriesBuilder b) {
    std::filesystem::remove_all(folder());
    b.write(folder());
    return error_of();
  };
  SeriesBuilder b;
  b.world_size = 2;
  b.start("a", 0);
  const std::string at = folder() + "/a:" + std::to_string(b.files["a"].size()) + ": expected ";

  SeriesBuilder other_job = b;
  other_job.job_start_us += 1;
  other_job.start("a", 1);
  SeriesBuilder mixed = b;
  mixed.files["a"] += other_job.files["a"].substr(b.files["a"].size());
  EXPECT_EQ(error_for(mixed).rfind(at + "the same job as the series' other start frames", 0), 0u) << error_for(mixed);

  SeriesBuilder orphan = b;
  orphan.frame("a", 1, 1, "0 external 1 1 1:1\n");
  EXPECT_EQ(error_for(orphan), at + "rank 1's start frame before its snapshots");

  SeriesBuilder backwards = b;
  backwards.frame("a", 0, 2, "1 external 1 1 1:1\n");
  const size_t second = backwards.files["a"].size();
  backwards.frame("a", 0, 2, "1 external 1 1 1:1\n");
  EXPECT_EQ(error_for(backwards),
            folder() + "/a:" + std::to_string(second) + ": expected rank 0's intervals increasing, found 2 after 2");

  SeriesBuilder after_end = b;
  after_end.frame("a", 0, 1, "end finalize\n", FrameKind::final);
  const size_t third = after_end.files["a"].size();
  after_end.frame("a", 0, 2, "1 external 1 1 1:1\n");
  EXPECT_EQ(error_for(after_end),
            folder() + "/a:" + std::to_string(third) + ": expected no frame after rank 0's end (finalize)");

  SeriesBuilder big_rank = b;
  big_rank.start("a", 7);
  EXPECT_EQ(error_for(big_rank), at + "a rank below the world size 2, found 7");

  SeriesBuilder twice = b;
  twice.start("a", 0);
  EXPECT_EQ(error_for(twice), at + "one start frame for rank 0");

  SeriesBuilder huge = b;
  huge.frame("a", 0, 1, "1 external 18446744073709551615 1 4:18446744073709551615\n");
  EXPECT_EQ(error_for(huge), at + "totals below 2^60 (1 EiB) (rank 0)");

  SeriesBuilder overflow = b;  // 2^59 twice
  overflow.frame("a", 0, 1, "1 external 576460752303423488 1 4:576460752303423488\n");
  const size_t fourth = overflow.files["a"].size();
  overflow.frame("a", 0, 2, "1 external 576460752303423488 1 4:576460752303423488\n");
  EXPECT_EQ(error_for(overflow),
            folder() + "/a:" + std::to_string(fourth) + ": expected totals below 2^60 (1 EiB) (rank 0)");

  SeriesBuilder bad_payload = b;
  bad_payload.frame("a", 0, 1, "1 external 1 1 4:2\n");
  EXPECT_EQ(error_for(bad_payload), at.substr(0, at.size() - 11) +
                                        ": line 1: expected histogram counts summing to the message count 1, found 2");

  SeriesBuilder garbage;
  garbage.raw("a", "not a series at all\n");
  EXPECT_EQ(error_for(garbage), folder() + ": expected a start frame in its files, found none");

  std::filesystem::remove_all(folder());
  std::filesystem::create_directories(folder());
  EXPECT_EQ(error_of(), folder() + ": expected series files (one per host), found none");
  std::filesystem::remove_all(folder());
  EXPECT_NE(error_of().find(": cannot list the series folder"), std::string::npos);
}

}  // namespace
}  // namespace mpimon::series
