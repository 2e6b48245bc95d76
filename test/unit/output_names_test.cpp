// The re-run rule (files/output_names.h): one run number for every file of a run, decided by
// all ranks together, and publishing that never overwrites.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "files/output_names.h"
#include "temp_dir.h"

namespace mpimon {
namespace {

namespace fs = std::filesystem;

TEST(OutputNames, RunNumberIsAppendedToTheNameGiven) {
  EXPECT_EQ(numbered_name("mpimon-job.txt", 0), "mpimon-job.txt");
  EXPECT_EQ(numbered_name("mpimon-job.txt", 2), "mpimon-job.txt.2");
  EXPECT_EQ(prof_file_name("out/prof", 0, 7), "out/prof.7.prof");
  EXPECT_EQ(prof_file_name("out/prof", 1, 7), "out/prof.1.7.prof");
}

// `ranks` threads play the ranks of one job; the collective is a barrier-based allreduce.
std::vector<int> agree(const std::vector<std::set<int>>& taken_per_rank, int* collective_calls = nullptr) {
  const int ranks = static_cast<int>(taken_per_rank.size());
  std::vector<int> contributions(ranks), results(ranks);
  std::barrier<> sync(ranks);
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      results[r] = agree_on_run_number([&](int n) { return taken_per_rank[r].count(n) != 0; },
                                       [&](int mine) {
                                         contributions[r] = mine;
                                         sync.arrive_and_wait();
                                         const auto [lo, hi] =
                                             std::minmax_element(contributions.begin(), contributions.end());
                                         const std::pair<int, int> result{*hi, *lo};
                                         if (r == 0) ++calls;
                                         sync.arrive_and_wait();
                                         return result;
                                       });
    });
  }
  for (std::thread& t : threads) t.join();
  if (collective_calls) *collective_calls = calls;
  return results;
}

TEST(OutputNames, AFreshFolderUsesTheNamesGivenInOneCollective) {
  int calls = 0;
  EXPECT_EQ(agree({{}, {}, {}, {}}, &calls), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(calls, 1);
}

TEST(OutputNames, AnEarlierRunWithFewerRanksMovesTheWholeRun) {
  // Run 1 had 2 ranks (files 0 and 1 taken at number 0); this run has 4: never a mix.
  EXPECT_EQ(agree({{0}, {0}, {}, {}}), (std::vector<int>{1, 1, 1, 1}));
}

TEST(OutputNames, GapsAreSkippedUntilEveryRankIsFree) {
  // Rank 0: 0,1,2 taken; rank 1: 3 taken; rank 2: 0 taken. First free for all: 4.
  int calls = 0;
  EXPECT_EQ(agree({{0, 1, 2}, {3}, {0}}, &calls), (std::vector<int>{4, 4, 4}));
  EXPECT_LE(calls, 3);
}

class RunOutputs : public test::TempDirTest {
 protected:
  // A complete temporary for `path` holding "this run\n".
  NewFile this_run(const std::string& path) {
    FileError error;
    NewFile file = NewFile::create(path, error);
    EXPECT_FALSE(error) << error.message;
    EXPECT_TRUE(file.write("this run\n", error)) << error.message;
    return file;
  }
  std::set<std::string> names() const {
    std::set<std::string> found;
    for (const auto& e : fs::directory_iterator(dir_)) found.insert(e.path().filename().string());
    return found;
  }
};

TEST_F(RunOutputs, PublishesUnderTheFirstFreeNumberAndNeverOverwrites) {
  std::ofstream(dir_ + "/prof.0.prof") << "earlier run\n";
  NewFile file = this_run(dir_ + "/prof.0.prof");
  std::vector<RunOutput> outputs(2);
  outputs[0].file = &file;
  outputs[0].name_for = [&](int n) { return prof_file_name(dir_ + "/prof", n, 0); };
  outputs[1].name_for = [&](int n) { return numbered_name(dir_ + "/none", n); };  // no file on this rank
  const int run = publish_run_outputs(outputs, [](int mine) { return std::make_pair(mine, mine); });
  EXPECT_EQ(run, 1);
  EXPECT_FALSE(outputs[0].error) << outputs[0].error.message;
  std::ifstream earlier(dir_ + "/prof.0.prof"), now(dir_ + "/prof.1.0.prof");
  std::string a, b;
  std::getline(earlier, a);
  std::getline(now, b);
  EXPECT_EQ(a, "earlier run");
  EXPECT_EQ(b, "this run");
  EXPECT_EQ(names(), (std::set<std::string>{"prof.0.prof", "prof.1.0.prof"}));
}

TEST_F(RunOutputs, ANameTakenBetweenTheDecisionAndThePublicationMovesEveryoneToTheNextNumber) {
  NewFile file = this_run(dir_ + "/job.txt");
  std::vector<RunOutput> outputs(1);
  outputs[0].file = &file;
  outputs[0].name_for = [&](int n) { return numbered_name(dir_ + "/job.txt", n); };
  int calls = 0;
  const int run = publish_run_outputs(outputs, [&](int mine) {
    // Another rank of the run found its name at number 0 taken by a concurrent job just
    // as we published ours: the clash vote (second call) says so.
    ++calls;
    return calls == 2 ? std::make_pair(1, 0) : std::make_pair(mine, mine);
  });
  EXPECT_EQ(run, 1);
  EXPECT_FALSE(fs::exists(dir_ + "/job.txt")) << "our name at number 0 was taken back";
  EXPECT_TRUE(fs::exists(dir_ + "/job.txt.1"));
  EXPECT_EQ(names(), (std::set<std::string>{"job.txt.1"})) << "no temporary left";
}

// The time series reserves the run's number at MPI_Init (its folder J.2.series exists
// from then on): the end-of-job files start their search there, even where lower numbers
// are free, so the finished job file is J.2, beside its series.
TEST_F(RunOutputs, PublishingStartsFromTheNumberReservedAtTheStart) {
  NewFile file = this_run(dir_ + "/job.txt");
  std::vector<RunOutput> outputs(1);
  outputs[0].file = &file;
  outputs[0].name_for = [&](int n) { return numbered_name(dir_ + "/job.txt", n); };
  const int run = publish_run_outputs(
      outputs, [](int mine) { return std::make_pair(mine, mine); }, 2);
  EXPECT_EQ(run, 2);
  EXPECT_EQ(names(), (std::set<std::string>{"job.txt.2"}));
}

}  // namespace
}  // namespace mpimon
