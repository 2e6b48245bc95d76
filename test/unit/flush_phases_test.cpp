// Flush phases (live/flush_phases.h): a failed flush is an error and loses nothing; an empty
// prefix writes nothing and ends no phase; a phase file is never overwritten.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "live/flush_phases.h"
#include "readers/prof_reader.h"
#include "temp_dir.h"

namespace mpimon {
namespace {

namespace fs = std::filesystem;

class FlushPhasesTest : public test::TempDirTest {
 protected:
  Engine engine;
  FlushPhases phases;

  // Messages to peer 1 in the .prof file of a phase.
  uint64_t messages_in(const std::string& prefix) {
    const ProfFile file = read_prof_file(dir_ + "/" + prefix + ".0.prof");
    uint64_t total = 0;
    for (const ProfLine& l : file.lines) total += l.messages;
    return total;
  }
  FileError flush(const std::string& prefix) {
    phases.set_prefix(prefix.empty() ? "" : dir_ + "/" + prefix);
    if (FileError error = phases.prepare(engine.snapshot(), 0, true)) return error;  // MPI_T_pvar_stop's read
    return phases.commit();                                                          // its notification
  }
  void send(int messages) {
    for (int i = 0; i < messages; ++i) engine.record(1, Category::external, 8);
  }
};

TEST_F(FlushPhasesTest, EachFlushHoldsTheTrafficSinceThePreviousOne) {
  send(1);
  ASSERT_FALSE(flush("phase_1"));
  send(2);
  ASSERT_FALSE(flush("phase_2"));
  EXPECT_EQ(messages_in("phase_1"), 1u);
  EXPECT_EQ(messages_in("phase_2"), 2u);
}

TEST_F(FlushPhasesTest, AMissingFolderIsAnErrorAndTheNextFlushHasEverything) {
  send(3);
  const FileError error = flush("missing/phase_1");
  EXPECT_EQ(error.code, ENOENT) << error.message;
  EXPECT_NE(error.message.find("missing/phase_1.0.prof"), std::string::npos) << error.message;
  send(4);
  ASSERT_FALSE(flush("phase_2"));
  EXPECT_EQ(messages_in("phase_2"), 7u);
}

TEST_F(FlushPhasesTest, A5000CharacterPrefixIsAnErrorAndLosesNothing) {
  send(2);
  const FileError error = flush(std::string(5000, 'p'));
  EXPECT_EQ(error.code, ENAMETOOLONG) << error.message;
  ASSERT_FALSE(flush("phase_2"));
  EXPECT_EQ(messages_in("phase_2"), 2u);
}

TEST_F(FlushPhasesTest, AnEmptyPrefixWritesNothingAndEndsNoPhase) {
  send(2);
  EXPECT_FALSE(flush(""));  // as Open MPI's monitoring_test.c: "no output file"
  EXPECT_TRUE(fs::is_empty(dir_));
  send(1);
  ASSERT_FALSE(flush("phase_2"));
  EXPECT_EQ(messages_in("phase_2"), 3u);
}

TEST_F(FlushPhasesTest, AnExistingPhaseFileIsNeverOverwritten) {
  std::ofstream(dir_ + "/phase_1.0.prof") << "earlier run\n";
  send(1);
  const FileError error = flush("phase_1");
  EXPECT_EQ(error.code, EEXIST) << error.message;
  std::ifstream in(dir_ + "/phase_1.0.prof");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "earlier run\n");
  ASSERT_FALSE(flush("phase_2"));
  EXPECT_EQ(messages_in("phase_2"), 1u);
}

TEST_F(FlushPhasesTest, ANameTakenBetweenTheReadAndTheStopIsReportedByTheNextCall) {
  send(1);
  phases.set_prefix(dir_ + "/phase_1");
  ASSERT_FALSE(phases.prepare(engine.snapshot(), 0, true));
  std::ofstream(dir_ + "/phase_1.0.prof") << "someone else\n";
  EXPECT_EQ(phases.commit().code, EEXIST);
  const FileError next = phases.prepare(engine.snapshot(), 0, true);
  EXPECT_EQ(next.message.rfind("the previous flush was not written: ", 0), 0u) << next.message;
  ASSERT_FALSE(flush("phase_2"));
  EXPECT_EQ(messages_in("phase_2"), 1u);
}

TEST_F(FlushPhasesTest, ReadingTwiceBeforeTheStopWritesOneFile) {
  send(1);
  phases.set_prefix(dir_ + "/phase_1");
  ASSERT_FALSE(phases.prepare(engine.snapshot(), 0, true));  // MPI_T_pvar_write on a started handle
  ASSERT_FALSE(phases.prepare(engine.snapshot(), 0, true));  // MPI_T_pvar_stop
  ASSERT_FALSE(phases.commit());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  EXPECT_EQ(messages_in("phase_1"), 1u);
}

TEST_F(FlushPhasesTest, AFreedHandleLeavesNothing) {
  send(1);
  phases.set_prefix(dir_ + "/phase_1");
  ASSERT_FALSE(phases.prepare(engine.snapshot(), 0, true));
  phases.drop_prepared();
  EXPECT_FALSE(phases.commit());
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace mpimon
