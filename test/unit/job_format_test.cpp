// The job file format (mpimon-job 1): writer, parser, and the parser's errors.
#include <gtest/gtest.h>

#include <string>

#include "job_format.h"

namespace mpimon {
namespace {

JobHeader sample_header() {
  JobHeader h;
  h.world_size = 4;
  h.enable_level = 2;
  h.open_mpi_version = "4.1.4";
  h.start_time = iso8601_utc(0);
  h.end_time = iso8601_utc(86400 + 3661);
  return h;
}

Snapshot sample_records() {
  Engine engine;
  engine.record(1, Category::external, 1024);
  engine.record(1, Category::external, 0);
  engine.record(3, Category::internal, 12);
  return engine.snapshot();
}

std::string valid_file() { return format_job_header(sample_header()) + format_job_records(2, sample_records()); }

void expect_error(const std::string& text, const std::string& message) {
  try {
    parse_job_file(text, "job.txt");
    FAIL() << "no error for:\n" << text;
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
  }
}

TEST(JobFormat, HeaderAndRecordsAreWrittenAsDocumented) {
  EXPECT_EQ(valid_file(),
            "# mpimon job file (one record per non-zero source, destination, category)\n"
            "format mpimon-job 1\nworld_size 4\nenable_level 2\nopen_mpi 4.1.4\n"
            "start 1970-01-01T00:00:00Z\nend 1970-01-02T01:01:01Z\nrecords\n"
            "2 1 external 2 1024 0:1,11:1\n"
            "2 3 internal 1 12 4:1\n");
}

TEST(JobFormat, RoundTripKeepsEveryField) {
  const JobFile file = parse_job_file(valid_file(), "job.txt");
  EXPECT_EQ(file.header.world_size, 4);
  EXPECT_EQ(file.header.enable_level, 2);
  EXPECT_EQ(file.header.open_mpi_version, "4.1.4");
  EXPECT_EQ(file.header.end_time, "1970-01-02T01:01:01Z");
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[0].source, 2);
  EXPECT_EQ(file.records[0].destination, 1);
  EXPECT_EQ(file.records[0].category, Category::external);
  EXPECT_EQ(file.records[0].counters.messages, 2u);
  EXPECT_EQ(file.records[0].counters.bytes, 1024u);
  EXPECT_EQ(file.records[0].counters.histogram[0], 1u);
  EXPECT_EQ(file.records[0].counters.histogram[11], 1u);
  EXPECT_EQ(file.records[1].category, Category::internal);
}

TEST(JobFormat, EveryCategoryNameParses) {
  std::string text = format_job_header(sample_header());
  for (const char* name : {"external", "internal", "coll", "osc_sent", "osc_recv"})
    text += std::string("0 1 ") + name + " 1 8 4:1\n";
  const JobFile file = parse_job_file(text, "job.txt");
  ASSERT_EQ(file.records.size(), 5u);
  for (int c = 0; c < kCategoryCount; ++c) EXPECT_EQ(file.records[c].category, static_cast<Category>(c));
}

TEST(JobFormat, UnknownCategoryNamesTheLine) {
  expect_error(format_job_header(sample_header()) + "0 1 external 1 8 4:1\n0 1 bogus 1 8 4:1\n",
               "job.txt:10: expected a category (external, internal, coll, osc_sent, osc_recv), found 'bogus'");
}

TEST(JobFormat, RankOutsideTheWorldIsRejected) {
  expect_error(format_job_header(sample_header()) + "0 4 external 1 8 4:1\n", "job.txt:9: expected ranks in [0, 4)");
}

TEST(JobFormat, HistogramMustSumToTheMessageCount) {
  expect_error(format_job_header(sample_header()) + "0 1 external 2 8 4:1\n",
               "job.txt:9: expected histogram counts summing to the message count 2, found 1");
}

TEST(JobFormat, HistogramBucketOutOfRange) {
  expect_error(format_job_header(sample_header()) + "0 1 external 1 8 66:1\n",
               "job.txt:9: expected a histogram bucket in [0, 65]");
}

TEST(JobFormat, NonNumericCountNamesTheField) {
  expect_error(format_job_header(sample_header()) + "0 1 external many 8 4:1\n",
               "job.txt:9: expected a message count, found 'many'");
}

TEST(JobFormat, ExtraFieldIsRejected) {
  expect_error(format_job_header(sample_header()) + "0 1 external 1 8 4:1 extra\n",
               "job.txt:9: expected end of line, found 'extra'");
}

TEST(JobFormat, OtherVersionIsRejected) {
  expect_error("format mpimon-job 2\n", "job.txt:1: expected format version 1, found 2");
}

TEST(JobFormat, RecordsBeforeFormatAreRejected) {
  expect_error("world_size 4\nrecords\n", "job.txt:2: expected a 'format mpimon-job 1' line before 'records'");
}

TEST(JobFormat, MissingRecordsLineIsReported) {
  expect_error("format mpimon-job 1\nworld_size 2\n", "job.txt: expected a 'records' line, found end of file");
}

TEST(JobFormat, UnknownHeaderKeyIsReported) {
  expect_error("format mpimon-job 1\ncolour blue\n", "job.txt:2: expected a header key");
}

TEST(JobFormat, MissingFileNamesThePath) {
  try {
    read_job_file("/nonexistent/job.txt");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/job.txt: cannot open: No such file or directory");
  }
}

}  // namespace
}  // namespace mpimon
