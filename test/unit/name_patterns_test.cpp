// Slurm's filename patterns in output names (files/name_patterns.h).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "files/name_patterns.h"

namespace mpimon {
namespace {

NameContext context_of(const std::map<std::string, std::string>& environment, const std::string& user = "ada") {
  return name_context(
      [&](const char* name) -> const char* {
        const auto it = environment.find(name);
        return it == environment.end() ? nullptr : it->second.c_str();
      },
      user);
}

const std::map<std::string, std::string> kStep = {{"SLURM_JOB_ID", "4242"},
                                                  {"SLURM_STEP_ID", "3"},
                                                  {"SLURM_JOB_NAME", "cfd"},
                                                  {"SLURM_JOB_NODELIST", "node[07-09,12],gpu1"}};

TEST(NamePatterns, EveryLetterTakesSlurmsValue) {
  const NameContext c = context_of(kStep);
  EXPECT_TRUE(c.in_slurm_job);
  EXPECT_EQ(expand_name_pattern("run-%j.%s-%u-%x-%N.txt", c), "run-4242.3-ada-cfd-node07.txt");
  EXPECT_EQ(expand_name_pattern("out/%J/prof", c), "out/4242.3/prof");
  EXPECT_EQ(expand_name_pattern("100%%-%j", c), "100%-4242");
  EXPECT_EQ(expand_name_pattern("plain.txt", c), "plain.txt");
}

TEST(NamePatterns, OutsideSlurmTheJobLettersSayThereIsNone) {
  const NameContext c = context_of({});
  EXPECT_FALSE(c.in_slurm_job);
  EXPECT_EQ(expand_name_pattern("%j.%s.%x.%N.%u", c), "nojob.nostep.noname.nonode.ada");
}

TEST(NamePatterns, TheBatchScriptIsStepBatchAndTheOldVariableNamesCount) {
  const NameContext c = context_of({{"SLURM_JOBID", "17"}});
  EXPECT_TRUE(c.in_slurm_job);
  EXPECT_EQ(expand_name_pattern("%J", c), "17.batch");
  EXPECT_EQ(expand_name_pattern("%x %N", c), "noname nonode");
}

// Under mpirun in an allocation, the ranks on mpirun's node have no step and the others
// the step of Open MPI's daemons: every rank takes mpirun's PMIx namespace instead.
TEST(NamePatterns, UnderMpirunTheStepIsMpirunsJobOnEveryRank) {
  auto on_mpiruns_node = kStep;
  on_mpiruns_node.erase("SLURM_STEP_ID");
  on_mpiruns_node["PMIX_NAMESPACE"] = "49676289";
  auto elsewhere = kStep;
  elsewhere["SLURM_STEP_ID"] = "0";
  elsewhere["PMIX_NAMESPACE"] = "49676289";
  EXPECT_EQ(expand_name_pattern("%J", context_of(on_mpiruns_node)), "4242.49676289");
  EXPECT_EQ(expand_name_pattern("%J", context_of(elsewhere)), "4242.49676289");
  auto by_srun = kStep;
  by_srun["PMIX_NAMESPACE"] = "slurm.pmix.4242.3";
  EXPECT_EQ(expand_name_pattern("%J", context_of(by_srun)), "4242.3");
}

TEST(NamePatterns, AValueNeverAddsAFolder) {
  const NameContext c = context_of({{"SLURM_JOB_ID", "5"}, {"SLURM_JOB_NAME", "../etc/x"}}, "a/b");
  EXPECT_EQ(expand_name_pattern("%x-%u", c), ".._etc_x-a_b");
}

TEST(NamePatterns, FirstHostOfSlurmHostLists) {
  EXPECT_EQ(first_host("host1"), "host1");
  EXPECT_EQ(first_host("host[1-2]"), "host1");
  EXPECT_EQ(first_host("node[001-004,7]"), "node001");
  EXPECT_EQ(first_host("a,b[1-3]"), "a");
  EXPECT_EQ(first_host("rack[2,5]-n[3-4]"), "rack2-n3");
  EXPECT_EQ(first_host(""), "");
}

TEST(NamePatterns, AnUnknownLetterOrALonePercentIsAClearError) {
  const NameContext c = context_of(kStep);
  try {
    expand_name_pattern("run-%q.txt", c);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "'run-%q.txt': unknown pattern %q (mpimon knows %j job id, %s step, %J job.step, %u user, %x job "
                 "name, %N first node, %% a literal %; no widths)");
  }
  EXPECT_THROW(expand_name_pattern("run-%3j", c), std::invalid_argument);  // Slurm's widths: not supported
  try {
    expand_name_pattern("run-%", c);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "'run-%' ends with a lone % (write %% for a literal %)");
  }
}

TEST(NamePatterns, TheDefaultJobFileCarriesJobAndStepUnderSlurmOnly) {
  EXPECT_EQ(default_job_file_pattern(context_of({})), "mpimon-job.txt");
  EXPECT_EQ(expand_name_pattern(default_job_file_pattern(context_of(kStep)), context_of(kStep)),
            "mpimon-job-4242.3.txt");
}

}  // namespace
}  // namespace mpimon
