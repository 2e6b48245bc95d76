// Every input of the fuzz corpus (test/fuzz/corpus/dumps/*/, and corpus/series/*/ for the
// time series' files) through every command: read, or
// refused as an input error ("<file>:<line>: expected ..."); never a crash, never another
// exception. The corpus holds real dumps (ours and Open MPI's, captures, job files) and
// every crash the fuzzer or the issue reports found, as regression inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "every_command.h"
#include "hostfile.h"
#include "readers/format_error.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(MPIMON_FUZZ_CORPUS) / folder))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void replay(const std::string& folder, int expect_read,
            bool (*run)(std::string_view) = mpimon::tools::run_every_command) {
  const auto files = corpus(folder);
  ASSERT_FALSE(files.empty()) << folder;
  int read = 0;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    bool accepted = false;
    EXPECT_NO_THROW({ accepted = run(contents(file)); });
    read += accepted;
  }
  if (expect_read >= 0) {
    EXPECT_EQ(read, expect_read) << "inputs read (the rest refused) in " << folder;
  }
}

}  // namespace

TEST(FuzzCorpus, RealDumpsAreRead) {
  const size_t n = corpus("real").size();
  replay("real", static_cast<int>(n));
}

TEST(FuzzCorpus, RegressionInputsAreReadOrRefusedNeverACrash) { replay("regressions", -1); }

// The hostfile corpus (test/fuzz/corpus/hostfile/*/) through `mpimon place`'s reader:
// real hostfiles are read, the rest read or refused as "<file>:<line>: expected ...".
TEST(FuzzCorpus, HostfilesAreReadOrRefusedAsFileLineErrors) {
  int real = 0;
  for (const char* folder : {"real", "regressions"}) {
    for (const auto& e : fs::directory_iterator(fs::path(MPIMON_FUZZ_HOSTFILE_CORPUS) / folder)) {
      SCOPED_TRACE(e.path().string());
      try {
        EXPECT_FALSE(mpimon::tools::parse_hostfile(contents(e.path()), "hf").empty());
        real += std::string(folder) == "real";
      } catch (const mpimon::FormatError& error) {
        EXPECT_EQ(std::string(folder), "regressions") << error.what();
        EXPECT_EQ(std::string(error.what()).rfind("hf", 0), 0u) << error.what();
        EXPECT_NE(std::string(error.what()).find("expected"), std::string::npos) << error.what();
      }
    }
  }
  EXPECT_GE(real, 4);
}

// Time series' files (corpus/series/, docs/formats.md "Time series"): a real one is read and
// summed into a job file every command reads; hostile ones are refused or skipped, never a crash.
TEST(FuzzCorpus, RealSeriesAreRead) {
  const size_t n = corpus("../series/real").size();
  replay("../series/real", static_cast<int>(n), mpimon::tools::run_every_series_command);
}

TEST(FuzzCorpus, SeriesRegressionInputsAreReadOrRefusedNeverACrash) {
  replay("../series/regressions", -1, mpimon::tools::run_every_series_command);
}
