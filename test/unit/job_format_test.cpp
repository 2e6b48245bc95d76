// The job file format (mpimon-job 3, and reading 2 and 1): writer, parser, integrity trailer,
// and the parser's errors.
#include <gtest/gtest.h>

#include <string>

#include "formats/checksum.h"
#include "formats/job_format.h"
#include "readers/job_reader.h"

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

// A version-2 file of 4 ranks where rank 2 has the sample records.
std::string valid_file() {
  return assemble_job_file(sample_header(), {"", "", format_job_records(2, sample_records()), ""});
}

// Header and record lines alone (what version 1 files hold), as version 1.
std::string version1(std::string text) {
  const size_t at = text.find("format mpimon-job 3");
  if (at != std::string::npos) text.replace(at, 19, "format mpimon-job 1");
  return text;
}
std::string header_v1() { return version1(format_job_header(sample_header())); }

void expect_error(const std::string& text, const std::string& message) {
  try {
    parse_job_file(text, "job.txt");
    FAIL() << "no error for:\n" << text;
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
  }
}

TEST(JobFormat, HeaderAndRecordsAreWrittenAsDocumented) {
  const std::string header =
      "# mpimon job file (one record per non-zero source, destination, category)\n"
      "format mpimon-job 3\nworld_size 4\nenable_level 2\nopen_mpi 4.1.4\n"
      "start 1970-01-01T00:00:00Z\nend 1970-01-02T01:01:01Z\nrecords\n";
  const std::string rank2 = "2 1 external 2 1024 0:1,11:1\n2 3 internal 1 12 4:1\n";
  EXPECT_EQ(format_job_header(sample_header()), header);
  EXPECT_EQ(format_job_records(2, sample_records()), rank2);
  // Each block ends with its size and CRC-32C; the last line gives the size before it.
  const std::string block0 =
      header + "checksum 0 " + std::to_string(header.size()) + " " + to_hex(crc32c(header), 8) + "\n";
  const std::string block1 = "checksum 1 0 00000000\n";
  const std::string block2 =
      rank2 + "checksum 2 " + std::to_string(rank2.size()) + " " + to_hex(crc32c(rank2), 8) + "\n";
  const std::string block3 = "checksum 3 0 00000000\n";
  const std::string blocks = block0 + block1 + block2 + block3;
  EXPECT_EQ(valid_file(), blocks + "eof " + std::to_string(blocks.size()) + "\n");
}

TEST(JobFormat, Crc32cIsCastagnoli) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c("6789", crc32c("12345")), 0xE3069283u);  // continues
}

TEST(JobFormat, SealedBlocksWrittenSeparatelyMakeTheAssembledFile) {
  // What the collective writer does: each rank seals its own block, the last adds eof.
  std::string blocks[4] = {format_job_header(sample_header()), format_job_records(1, sample_records()), "", ""};
  for (int rank = 0; rank < 4; ++rank) seal_job_block(rank, blocks[rank]);
  const std::string all = blocks[0] + blocks[1] + blocks[2] + blocks[3];
  const std::string file = all + job_end_line(all.size());
  EXPECT_EQ(file, assemble_job_file(sample_header(), {"", format_job_records(1, sample_records()), "", ""}));
  EXPECT_EQ(parse_job_file(file, "job.txt").records.size(), 2u);
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
  std::string text;
  for (const char* name : {"external", "internal", "coll", "osc_sent", "osc_recv", "io_shuffle"})
    text += std::string("0 1 ") + name + " 1 8 4:1\n";
  const JobFile file = parse_job_file(assemble_job_file(sample_header(), {text, "", "", ""}), "job.txt");
  ASSERT_EQ(file.records.size(), 6u);
  for (int c = 0; c < kCategoryCount; ++c) EXPECT_EQ(file.records[c].category, static_cast<Category>(c));
}

TEST(JobFormat, UnknownCategoryNamesTheLine) {
  expect_error(
      header_v1() + "0 1 external 1 8 4:1\n0 1 bogus 1 8 4:1\n",
      "job.txt:10: expected a category (external, internal, coll, osc_sent, osc_recv, io_shuffle), found 'bogus'");
}

TEST(JobFormat, RankOutsideTheWorldIsRejected) {
  expect_error(header_v1() + "0 4 external 1 8 4:1\n", "job.txt:9: expected ranks in [0, 4)");
}

TEST(JobFormat, HistogramMustSumToTheMessageCount) {
  expect_error(header_v1() + "0 1 external 2 8 4:1\n",
               "job.txt:9: expected histogram counts summing to the message count 2, found 1");
}

TEST(JobFormat, HistogramBucketOutOfRange) {
  expect_error(header_v1() + "0 1 external 1 8 66:1\n", "job.txt:9: expected a histogram bucket in [0, 65]");
}

TEST(JobFormat, NonNumericCountNamesTheField) {
  expect_error(header_v1() + "0 1 external many 8 4:1\n", "job.txt:9: expected a message count, found 'many'");
}

TEST(JobFormat, ExtraFieldIsRejected) {
  expect_error(header_v1() + "0 1 external 1 8 4:1 extra\n", "job.txt:9: expected end of line, found 'extra'");
}

TEST(JobFormat, OtherVersionIsRejected) {
  expect_error("format mpimon-job 4\n", "job.txt:1: expected format version 1 to 3, found 4");
}

TEST(JobFormat, RecordsBeforeFormatAreRejected) {
  expect_error("world_size 4\nrecords\n", "job.txt:2: expected a 'format mpimon-job 3' line before 'records'");
}

// Version 3 adds the MPI-IO shuffle's category (and the io_* annotations).
TEST(JobFormat, ShuffleCategoryIsWrittenAsVersion3) {
  Engine engine;
  engine.record(0, Category::io_shuffle, 4096);
  const std::string v3 = assemble_job_file(sample_header(), {format_job_records(1, engine.snapshot()), "", "", ""});
  EXPECT_NE(v3.find("format mpimon-job 3\n"), std::string::npos);
  const JobFile file = parse_job_file(v3, "job.txt");
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].category, Category::io_shuffle);
  EXPECT_EQ(file.records[0].counters.bytes, 4096u);
}

TEST(JobFormat, Version2FilesAreStillRead) {
  // The header's version, then the trailer recomputed as a version-2 writer made it.
  const JobHeader header = sample_header();
  std::string block0 = format_job_header(header);
  block0.replace(block0.find("format mpimon-job 3"), 19, "format mpimon-job 2");
  std::string file;
  const std::vector<std::string> bodies = {"", "", format_job_records(2, sample_records()), ""};
  for (size_t rank = 0; rank < bodies.size(); ++rank) {
    std::string block = (rank == 0 ? block0 : std::string()) + bodies[rank];
    seal_job_block(static_cast<int32_t>(rank), block);
    file += block;
  }
  file += job_end_line(file.size());
  EXPECT_EQ(parse_job_file(file, "job.txt").records.size(), 2u);
}

TEST(JobFormat, Version1FilesAreStillReadWithoutATrailer) {
  const JobFile file = parse_job_file(header_v1() + format_job_records(2, sample_records()), "job.txt");
  EXPECT_EQ(file.records.size(), 2u);
}

// ---------------------------------------------------------------------------------------
// Version 2's integrity checks: a damaged file is an error, never less traffic.

TEST(JobFormat, AFileCutAnywhereIsIncompleteOrCorrupted) {
  const std::string full = valid_file();
  const size_t records_end = full.find("records\n") + 8;
  for (size_t cut = records_end; cut < full.size(); ++cut) {
    try {
      parse_job_file(full.substr(0, cut), "job.txt");
      FAIL() << "a file cut at byte " << cut << " of " << full.size() << " was accepted";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(" expected "), std::string::npos) << e.what();
    }
  }
}

TEST(JobFormat, CutAfterABlockSaysIncompleteOrCorrupted) {
  const std::string full = valid_file();
  const size_t eof = full.rfind("eof ");
  expect_error(full.substr(0, eof),
               "job.txt: incomplete or corrupted job file: expected an 'eof' line, found the end of the file after " +
                   std::to_string(eof) +
                   " bytes and the checksums of 4 ranks (cut short: a full disk, or a rank died "
                   "while writing?)");
}

TEST(JobFormat, AnAlteredByteFailsItsBlocksChecksum) {
  std::string text = valid_file();
  text[text.find("1024")] = '2';  // 2024 bytes: still a valid record
  expect_error(text, "job.txt:13: expected CRC-32C ");
  try {
    parse_job_file(text, "job.txt");
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("for the block of rank 2 (incomplete or corrupted job file)"),
              std::string::npos)
        << e.what();
  }
}

TEST(JobFormat, ZeroFilledBlockIsRejected) {
  // What Open MPI 4.1.4's MPI-IO left on a full disk: a hole of NUL bytes for a block.
  std::string text = valid_file();
  const size_t at = text.find("2 1 external");
  std::fill(text.begin() + static_cast<long>(at), text.begin() + static_cast<long>(at) + 20, '\0');
  EXPECT_THROW(parse_job_file(text, "job.txt"), FormatError);
}

TEST(JobFormat, MissingRankBlockIsRejected) {
  std::string text = valid_file();
  const size_t at = text.find("checksum 1 ");
  text.erase(at, text.find('\n', at) + 1 - at);
  expect_error(text, "job.txt:12: expected the checksum of rank 1 (incomplete or corrupted job file), found rank 2");
}

TEST(JobFormat, WrongEofSizeIsRejected) {
  std::string text = valid_file();
  const size_t at = text.rfind("eof ");
  text = text.substr(0, at) + "eof 12\n";
  expect_error(
      text, "job.txt:15: expected 'eof " + std::to_string(at) + "' (incomplete or corrupted job file), found 'eof 12'");
}

TEST(JobFormat, NothingMayFollowTheEofLine) {
  expect_error(valid_file() + "0 1 external 1 8 4:1\n",
               "job.txt:16: expected nothing after the 'eof' line (incomplete or corrupted job file)");
}

TEST(JobFormat, OneCommunicatorIdentityHasOneMemberList) {
  const std::string same = "communicator 4-00000000000000aa comm 0,1\n";
  EXPECT_EQ(parse_job_file(assemble_job_file(sample_header(), {same, same, "", ""}), "job.txt").annotations.size(), 2u);
  expect_error(
      assemble_job_file(sample_header(), {same, "communicator 4-00000000000000aa comm 2,3\n", "", ""}),
      "job.txt:11: expected one member list per communicator identity, found a second one for 4-00000000000000aa");
}

TEST(JobFormat, UnknownAnnotationsInsideABlockAreCoveredAndKept) {
  const std::string text = assemble_job_file(sample_header(), {"", "future_keyword 1 two\n", "", ""});
  const JobFile file = parse_job_file(text, "job.txt");
  ASSERT_EQ(file.annotations.size(), 1u);
  EXPECT_EQ(file.annotations[0].keyword, "future_keyword");
  EXPECT_EQ(file.annotations[0].fields, (std::vector<std::string>{"1", "two"}));
}

TEST(JobFormat, TheProgramAnnotationNamesTheExecutableEscaped) {
  EXPECT_EQ(format_job_program("my app%1"), "program my%20app%251\n");
  const JobFile named =
      parse_job_file(assemble_job_file(sample_header(), {format_job_program("my app%1"), "", "", ""}), "job.txt");
  EXPECT_EQ(job_program(named), "my app%1");
  EXPECT_EQ(job_program(parse_job_file(assemble_job_file(sample_header(), {"", "", "", ""}), "job.txt")), "");
}

TEST(JobFormat, MissingRecordsLineIsReported) {
  expect_error("format mpimon-job 2\nworld_size 2\n", "job.txt: expected a 'records' line, found end of file");
}

TEST(JobFormat, UnknownHeaderKeyIsReported) {
  expect_error("format mpimon-job 2\ncolour blue\n", "job.txt:2: expected a header key");
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
