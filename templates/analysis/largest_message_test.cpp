// The analysis template (templates/analysis/largest_message.h): what is recorded comes back
// from the job-file lines exactly; a damaged line is a FormatError naming file and line.
#include "analysis/largest_message.h"

#include <gtest/gtest.h>

#include "readers/job_reader.h"

namespace mpimon::templates {
namespace {

// The annotations of a job file whose body holds `lines` (world size 4).
std::vector<JobAnnotation> annotations_of(const std::string& lines) {
  const std::string text = "format mpimon-job 1\nworld_size 4\nrecords\n" + lines;
  return parse_job_file(text, "job.txt").annotations;
}

TEST(LargestMessage, LinesArePerPeerInPeerOrder) {
  LargestMessage analysis;
  analysis.record(3, 100);
  analysis.record(1, 8);
  analysis.record(3, 4096);
  analysis.record(3, 50);
  EXPECT_EQ("largest_message 0 1 8\nlargest_message 0 3 4096\n", analysis.job_lines(0));
}

TEST(LargestMessage, WhatIsWrittenIsReadBack) {
  LargestMessage analysis;
  analysis.record(2, 1 << 20);
  const std::vector<LargestMessageLine> read =
      read_largest_message_lines(annotations_of(analysis.job_lines(1)), "job.txt", 4);
  ASSERT_EQ(1u, read.size());
  EXPECT_EQ(1, read[0].rank);
  EXPECT_EQ(2, read[0].peer);
  EXPECT_EQ(uint64_t{1} << 20, read[0].bytes);
}

TEST(LargestMessage, DamagedLineNamesFileAndLine) {
  const auto annotations = annotations_of("largest_message 0 1 8\nlargest_message 0 4 8\n");
  try {
    read_largest_message_lines(annotations, "job.txt", 4);
    FAIL() << "a peer outside the world was accepted";
  } catch (const FormatError& e) {
    EXPECT_STREQ("job.txt:5: expected 'largest_message <rank> <peer> <bytes>' with ranks in [0, 4)", e.what());
  }
}

}  // namespace
}  // namespace mpimon::templates
