// The subcommand template (templates/subcommand/pairs_command.cpp), parsed and run as
// main.cpp does, on the ring job of Debian's own component (test/data/distro-4.1.4).
#include "subcommand/pairs_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "readers/format_error.h"

namespace mpimon::tools {
namespace {

// `mpimon <arguments>` with only the template's subcommand: (exit status, stdout).
std::pair<int, std::string> mpimon(std::vector<std::string> arguments) {
  CLI::App app{"mpimon"};
  app.require_subcommand(1);
  std::ostringstream out;
  const Subcommand pairs = add_pairs_command(app, out);
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  app.parse(arguments);
  const int status = *pairs.app ? pairs.run() : -1;
  return {status, out.str()};
}

const std::string kRing = std::string(MPIMON_TEST_DATA) + "/distro-4.1.4/ring";

// The ring's .prof files: 4 E lines of 1024 bytes (the ring), 3 I lines of 64 bytes
// (Open MPI's own traffic to rank 0), 3 C lines of 64 bytes (rank 0's broadcast).
TEST(PairsCommand, CountsTheRingsRanksPairsAndBytes) {
  EXPECT_EQ(std::make_pair(0, std::string("4 ranks, 7 pairs that communicate, 4288 bytes (communication)\n")),
            mpimon({"pairs", kRing}));
}

TEST(PairsCommand, CategoryOptionSelectsTheCollectives) {
  EXPECT_EQ(std::make_pair(0, std::string("4 ranks, 3 pairs that communicate, 192 bytes (coll)\n")),
            mpimon({"pairs", kRing, "--category", "coll"}));
  EXPECT_EQ(std::make_pair(0, std::string("4 ranks, 4 pairs that communicate, 4096 bytes (external)\n")),
            mpimon({"pairs", kRing, "--category", "external"}));
}

TEST(PairsCommand, BadInputIsAFormatErrorForMain) { EXPECT_THROW(mpimon({"pairs", kRing + "-missing"}), FormatError); }

}  // namespace
}  // namespace mpimon::tools
