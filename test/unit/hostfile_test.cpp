// mpirun's hostfile syntax: what Open MPI 4.1.4 accepts (each case checked against
// `mpirun --hostfile F --display-allocation --do-not-launch`) and what it refuses.
#include <gtest/gtest.h>

#include "hostfile.h"
#include "readers/format_error.h"

namespace mpimon::tools {
namespace {

std::vector<HostfileHost> parse(const std::string& text) { return parse_hostfile(text, "hf"); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Hostfile, SlotsGivenOrLeftToTheCores) {
  const auto hosts = parse("a slots=2\nb\n");
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].name, "a");
  EXPECT_EQ(hosts[0].slots, 2);
  EXPECT_EQ(hosts[1].name, "b");
  EXPECT_FALSE(hosts[1].slots.has_value());  // mpirun: as many as the host has cores
  EXPECT_EQ(hosts[1].line, 2);
}

TEST(Hostfile, ARepeatedHostCountsOneSlotPerLine) {
  const auto hosts = parse("a\na\nb slots=3 max_slots=5\n");
  EXPECT_EQ(hosts[0].slots, 2);
  EXPECT_EQ(hosts[1].slots, 3);
  EXPECT_EQ(hosts[1].max_slots, 5);
  EXPECT_EQ(parse("a slots=2\na\n")[0].slots, 3);  // slots= then a repetition: 3, as mpirun
}

TEST(Hostfile, MaxSlotsAloneGivesTheSlotsAndSlotsRaiseAnEarlierMax) {
  EXPECT_EQ(parse("a max_slots=3\n")[0].slots, 3);
  const auto raised = parse("a max-slots=2 slots=4\n");
  EXPECT_EQ(raised[0].slots, 4);
  EXPECT_EQ(raised[0].max_slots, 4);
  const auto synonyms = parse("a count=2\nb cpu=3\nc slots_max=4\nd cpu-max=5\n");
  EXPECT_EQ(synonyms[0].slots, 2);
  EXPECT_EQ(synonyms[1].slots, 3);
  EXPECT_EQ(synonyms[2].slots, 4);
  EXPECT_EQ(synonyms[3].slots, 5);
}

TEST(Hostfile, NamesAsMpirunKeysThem) {
  const auto hosts = parse("u@a slots=2\nnode7.example.org\n10.0.0.1 slots=2\nroot@10.0.0.2\nfe80::1\n");
  ASSERT_EQ(hosts.size(), 5u);
  EXPECT_EQ(hosts[0].name, "a");         // user dropped
  EXPECT_EQ(hosts[1].name, "node7");     // domain dropped
  EXPECT_EQ(hosts[2].name, "10.0.0.1");  // addresses kept whole
  EXPECT_EQ(hosts[3].name, "10.0.0.2");
  EXPECT_EQ(hosts[4].name, "fe80::1");
  EXPECT_EQ(parse("a.x\na.y\n")[0].slots, 2) << "one node for mpirun";
}

TEST(Hostfile, CommentsBlankLinesSpacesAndIgnoredWords) {
  const auto hosts =
      parse("# comment\n\n  a slots = 2 # c\n// x\n/* y\nz */ b slots=1\nc slots=2 3 foo\nd username=bob port=22\n");
  ASSERT_EQ(hosts.size(), 4u);
  EXPECT_EQ(hosts[0].slots, 2);
  EXPECT_EQ(hosts[1].name, "b");
  EXPECT_EQ(hosts[1].line, 6);  // the block comment's lines are counted
  EXPECT_EQ(hosts[2].slots, 2);
  EXPECT_FALSE(hosts[3].slots.has_value());
  EXPECT_EQ(parse("a slots=1 # no newline at the end")[0].slots, 1);
}

TEST(Hostfile, RankfileLinesTakeOneSlotEach) {
  const auto hosts = parse("rank 0=a slot=0\nrank 1=a slot=1\nrank 2=b slot=0:1\n");
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].slots, 2);
  EXPECT_EQ(hosts[1].slots, 1);
}

TEST(Hostfile, WhatMpirunRefusesIsAFileLineError) {
  EXPECT_EQ(error_of("a\na slots=4\n"),
            "hf:2: expected one slot count for a (mpirun refuses slots= on a host listed several times or given "
            "slots= twice)");
  EXPECT_EQ(error_of("a slots=2 b slots=3\n").substr(0, 38), "hf:1: expected one slot count for a (m");
  EXPECT_EQ(error_of("a slots=4 max_slots=2\n"), "hf:1: expected max_slots >= the host's 4 slot(s), not 2");
  EXPECT_EQ(error_of("a\n\nb slots=-1\n"), "hf:3: expected slots=<count from 0 to 10000000>, not 'slots=-1'");
  EXPECT_EQ(error_of("a slots=2x\n"), "hf:1: expected slots=<count from 0 to 10000000>, not 'slots=2x'");
  EXPECT_EQ(error_of("a slots\n"), "hf:1: expected slots=<count from 0 to 10000000>, not 'slots'");
  EXPECT_EQ(error_of("a slot=2\n"), "hf:1: expected slots=, max_slots=, username= or port=, not 'slot'");
  EXPECT_EQ(error_of("a foo=2\n"), "hf:1: expected slots=, max_slots=, username= or port=, not 'foo='");
  EXPECT_EQ(error_of("a cores=2\n"),
            "hf:1: expected slots=, max_slots=, username= or port=, not 'cores' (mpirun 4.1.4 rejects it in a "
            "hostfile)");
  EXPECT_EQ(error_of("a b.c\n"), "hf:1: expected one host per line, not 'b.c' after a");
  EXPECT_EQ(error_of("\"a\" slots=2\n"),
            "hf:1: expected a host name or a keyword, not the quoted string \"a\" (mpirun refuses quoted strings in "
            "a hostfile)");
  EXPECT_EQ(error_of("a\n^b\n"),
            "hf:2: expected a host name, not '^b' (Open MPI 4.1.4's hostfile reader rejects ^ exclusions: leave "
            "the host out)");
  EXPECT_EQ(error_of("+n0\n"),
            "hf:1: expected a host name, not the relative host '+n0' (mpirun has no prior allocation to take it from)");
  EXPECT_EQ(
      error_of("a_b-c slots=2\n"),
      "hf:1: expected a host name of letters, digits, dots and hyphens, not 'a_b-c' (mpirun cannot launch on it)");
  EXPECT_EQ(error_of("a@b@c\n"), "hf:1: expected user@host, not 'a@b@c'");
  EXPECT_EQ(error_of("slots=2\n"), "hf:1: expected a host name at the start of the line, not 'slots'");
  EXPECT_EQ(error_of("a max_slots=0\n"), "hf:1: expected max_slots >= the host's 1 slot(s), not 0");
  EXPECT_EQ(error_of("a\n/* open\n"), "hf:2: expected */ closing the comment opened here");
  EXPECT_EQ(error_of("a slots=2;\n"), "hf:1: expected a host name, a keyword or a comment, not ';'");
  EXPECT_EQ(error_of("# nothing\n\n"), "hf: expected at least one host line");
  EXPECT_EQ(error_of("rank 0 a\n"), "hf:1: expected rank <n>=<host> slot=<cores>");
}

TEST(Hostfile, UnreadableFileSaysWhy) {
  try {
    read_hostfile("/nonexistent/hf");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/hf"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpimon::tools
