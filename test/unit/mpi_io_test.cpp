// The MPI-IO records (ompi/mca/common/monitoring/mpi_io): FileRecord, FileRegistry, the
// dump lines and their reader.
#include <gtest/gtest.h>

#include <thread>

#include "analyses/communicator_classes.h"  // members_hash
#include "analyses/mpi_io/file_registry.h"
#include "formats/io_format.h"
#include "formats/job_format.h"
#include "readers/format_error.h"
#include "readers/io_reader.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

namespace mpimon::mpi_io {
namespace {

FileIdentity identity(const std::string& name, const std::vector<int32_t>& members, int32_t me) {
  FileIdentity id;
  id.name = name;
  id.members_hash = members_hash(members);
  id.members = static_cast<int32_t>(members.size());
  id.first_member = !members.empty() && members.front() == me;
  if (id.first_member) id.member_ranges = format_rank_ranges(members);
  return id;
}

TEST(FileRecord, AccessesCountCallsBytesAndSizesPerFamily) {
  FileRecord r(identity("out.dat", {0, 1, 2, 3}, 0), false);
  r.add_access(Access::write_at_all, Call::blocking, 4096, 10);
  r.add_access(Access::write_at_all, Call::nonblocking, 8, 5);
  r.add_access(Access::read_shared, Call::split, 0, 7);
  const FileTotals t = r.totals();
  EXPECT_EQ(t.asked[static_cast<int>(Access::write_at_all)].messages, 2u);
  EXPECT_EQ(t.asked[static_cast<int>(Access::write_at_all)].bytes, 4104u);
  EXPECT_EQ(t.asked[static_cast<int>(Access::write_at_all)].histogram[13], 1u);  // 4096 in [2^12, 2^13)
  EXPECT_EQ(t.asked[static_cast<int>(Access::write_at_all)].histogram[4], 1u);   // 8 in [8, 16)
  EXPECT_EQ(t.asked[static_cast<int>(Access::read_shared)].histogram[0], 1u);    // 0 bytes
  EXPECT_EQ(t.asked[static_cast<int>(Access::write_at)].messages, 0u);
  EXPECT_EQ(t.nonblocking_calls, 1u);
  EXPECT_EQ(t.split_calls, 1u);
  EXPECT_EQ(t.ticks[static_cast<int>(Timer::write)], 15u);
  EXPECT_EQ(t.ticks[static_cast<int>(Timer::read)], 7u);
  EXPECT_EQ(r.calls(Access::write_at_all), 2u);
  EXPECT_EQ(r.bytes(Access::write_at_all), 4104u);
}

TEST(FileRecord, AccessFamiliesAreTheTwelveBlockingFunctions) {
  EXPECT_STREQ(access_name(Access::read_at), "read_at");
  EXPECT_STREQ(access_name(Access::write_ordered), "write_ordered");
  EXPECT_EQ(direction_of(Access::read_ordered), Direction::read);
  EXPECT_EQ(direction_of(Access::write_at), Direction::write);
  EXPECT_TRUE(is_collective(Access::read_all));
  EXPECT_TRUE(is_collective(Access::write_ordered));
  EXPECT_FALSE(is_collective(Access::write_shared));
  for (int a = 0; a < kAccessCount; ++a) {
    Access parsed;
    ASSERT_TRUE(parse_access(access_name(static_cast<Access>(a)), parsed));
    EXPECT_EQ(static_cast<int>(parsed), a);
  }
  Access unused;
  EXPECT_FALSE(parse_access("write_all_begin", unused));
}

TEST(FileRecord, FileSystemEntriesConsecutiveAndSequentialAsDarshan) {
  FileRecord r(identity("f", {0}, 0), false);
  using Entry = std::pair<uint64_t, uint64_t>;
  const std::vector<Entry> writes = {
      {0, 100},   // first: neither
      {100, 50},  // starts where the previous ended: both
      {200, 10},  // after: sequential only
      {0, 10},    // before: neither
  };
  r.add_fs_operation(Direction::write, writes.size(), [&](size_t i) { return writes[i]; });
  // Directions are apart: the first read is neither.
  r.add_fs_operation(Direction::read, 1, [](size_t) { return Entry{210, 1}; });
  const FsTotals w = r.fs(Direction::write);
  EXPECT_EQ(w.operations, 1u);
  EXPECT_EQ(w.entries.messages, 4u);
  EXPECT_EQ(w.entries.bytes, 170u);
  EXPECT_EQ(w.consecutive, 1u);
  EXPECT_EQ(w.sequential, 2u);
  EXPECT_EQ(w.end, 210u);
  EXPECT_EQ(r.fs(Direction::read).consecutive, 0u);
  EXPECT_EQ(r.fs(Direction::read).entries.messages, 1u);
}

TEST(FileRecord, CollectiveCallsAndAggregatorCalls) {
  FileRecord r(identity("f", {0, 1}, 0), false);
  r.add_collective(true);
  r.add_collective(false);
  r.add_shuffle(1, 4096);
  r.add_shuffle(1, 4096);
  r.add_shuffle(0, 8);
  const FileTotals t = r.totals();
  EXPECT_EQ(t.collective_calls, 2u);
  EXPECT_EQ(t.aggregated_calls, 1u);
  ASSERT_EQ(t.shuffle.size(), 2u);
  EXPECT_EQ(t.shuffle.at(1).messages, 2u);
  EXPECT_EQ(t.shuffle.at(1).bytes, 8192u);
  EXPECT_EQ(t.shuffle.at(0).bytes, 8u);
}

TEST(FileRecord, ThreadedWritersLoseNothing) {
  FileRecord r(identity("f", {0}, 0), true);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) r.add_access(Access::write, Call::blocking, 8, 1);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(r.calls(Access::write), 40000u);
  EXPECT_EQ(r.bytes(Access::write), 320000u);
}

TEST(FileIdentity, SameNameAndMembersSameIdentityElseDistinct) {
  const std::string a = identity("out.dat", {0, 1, 2, 3}, 0).identity();
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a, identity("out.dat", {0, 1, 2, 3}, 2).identity());
  EXPECT_NE(a, identity("out.dat", {0, 1, 2}, 0).identity());
  EXPECT_NE(a, identity("out2.dat", {0, 1, 2, 3}, 0).identity());
}

TEST(RankRanges, RunsBecomeRangesAndBack) {
  EXPECT_EQ(format_rank_ranges({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(format_rank_ranges({0, 1, 2, 3, 8, 10, 11, 12}), "0-3,8,10-12");
  EXPECT_EQ(format_rank_ranges({5}), "5");
  EXPECT_EQ(format_rank_ranges({3, 2, 1}), "3,2,1");  // rank order is kept
  std::vector<int32_t> ranks;
  ASSERT_TRUE(parse_rank_ranges("0-3,8,10-12", 16, ranks));
  EXPECT_EQ(ranks, (std::vector<int32_t>{0, 1, 2, 3, 8, 10, 11, 12}));
  ASSERT_TRUE(parse_rank_ranges("3,2,1", 4, ranks));
  EXPECT_EQ(ranks, (std::vector<int32_t>{3, 2, 1}));
}

TEST(RankRanges, MalformedOrBeyondTheWorldIsRefused) {
  std::vector<int32_t> ranks;
  for (const char* bad : {"", ",", "1,", "3-1", "a", "-1", "1--2", "0-4", "0-2147483646", "+1", "1,,2"})
    EXPECT_FALSE(parse_rank_ranges(bad, 4, ranks)) << bad;
  EXPECT_FALSE(parse_rank_ranges("0-3,0-3", 4, ranks));  // more members than the world
}

TEST(FileRegistry, ReopenedFileKeepsOneClosedRecord) {
  FileRegistry registry;
  for (int i = 0; i < 1000; ++i) {
    FileRecord* r = registry.open(identity("out.dat", {0, 1}, 0));
    r->add_access(Access::write_at, Call::blocking, 8, 1);
    r->add_meta(MetaOp::open, 1);
    registry.close(r);
  }
  EXPECT_EQ(registry.open_files(), 0u);
  EXPECT_EQ(registry.closed_files(), 1u);
  registry.for_each([](const FileRecord& r) {
    EXPECT_EQ(r.calls(Access::write_at), 1000u);
    EXPECT_EQ(r.totals().meta[static_cast<int>(MetaOp::open)], 1000u);
  });
}

TEST(FileRegistry, FilesOfOtherNamesOrMembersStayApart) {
  FileRegistry registry;
  registry.close(registry.open(identity("a", {0, 1}, 0)));
  registry.close(registry.open(identity("a", {0}, 0)));
  registry.close(registry.open(identity("b", {0, 1}, 0)));
  EXPECT_EQ(registry.closed_files(), 3u);
}

TEST(FileRegistry, CommunicatorsBelongToTheirFileUntilItIsClosed) {
  FileRegistry registry;
  FileRecord* a = registry.open(identity("a", {0, 1}, 0));
  FileRecord* b = registry.open(identity("b", {0, 1}, 0));
  ASSERT_TRUE(registry.add_communicator(5, a));
  ASSERT_TRUE(registry.add_communicator(70, b));
  EXPECT_FALSE(registry.add_communicator(FileRegistry::kCommunicatorLimit, b));
  EXPECT_TRUE(registry.is_file_communicator(5));
  EXPECT_TRUE(registry.is_file_communicator(70));
  EXPECT_FALSE(registry.is_file_communicator(6));
  EXPECT_FALSE(registry.is_file_communicator(FileRegistry::kCommunicatorLimit));
  registry.record_shuffle(5, 1, 4096);
  registry.record_shuffle(70, 0, 16);
  registry.record_shuffle(6, 0, 1);  // not a file's: ignored
  EXPECT_EQ(a->totals().shuffle.at(1).bytes, 4096u);
  EXPECT_EQ(b->totals().shuffle.at(0).bytes, 16u);
  registry.close(a);
  EXPECT_FALSE(registry.is_file_communicator(5));
  EXPECT_TRUE(registry.is_file_communicator(70));
}

int window_switches = 0;
bool window_active = false;
void window_switch(bool active) {
  ++window_switches;
  window_active = active;
}

TEST(FileRegistry, WindowSwitchesOnlyAtTheOutermostCall) {
  FileRegistry registry;
  window_switches = 0;
  registry.add_switch(window_switch);
  registry.enter_communicating_call();
  registry.enter_communicating_call();
  EXPECT_TRUE(window_active);
  registry.leave_communicating_call();
  EXPECT_TRUE(window_active);
  registry.leave_communicating_call();
  EXPECT_FALSE(window_active);
  EXPECT_EQ(window_switches, 2);
}

// A registry holding one closed file, filled once by `fill`.
FileRegistry& one_file_registry(FileRegistry& registry, const FileIdentity& id, void (*fill)(FileRecord&)) {
  if (registry.open_files() + registry.closed_files() == 0) {
    FileRecord* r = registry.open(id);
    fill(*r);
    registry.close(r);
  }
  return registry;
}

// The 4-rank write_at_all of docs/io.md, seen by rank 0 (the aggregator).
FileRegistry& aggregator_registry() {
  static FileRegistry registry;
  return one_file_registry(registry, identity("out dat%", {0, 1, 2, 3}, 0), [](FileRecord& r) {
    r.set_components("ompio", "vulcan");
    r.add_meta(MetaOp::open, 1000000000);
    r.add_access(Access::write_at_all, Call::blocking, 4096, 2000000000);
    r.add_collective(true);
    r.add_fs_operation(Direction::write, 1, [](size_t) { return std::pair<uint64_t, uint64_t>{0, 16384}; });
    r.add_shuffle(0, 4096);
    r.add_meta(MetaOp::close, 500000000);
  });
}

// Every line of .prof text, read into one table (each must be an I/O line).
IoTable read_prof_text(const std::string& text) {
  IoTable table;
  size_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t nl = text.find('\n', start);
    EXPECT_TRUE(table.add_prof_line(std::string_view(text).substr(start, nl - start), "p", ++line_no));
    start = nl + 1;
  }
  return table;
}

// Job-file annotation lines, read into one table (each must be an I/O line).
IoTable read_job_text(const std::string& annotations, int32_t world_size) {
  IoTable table;
  const JobFile file = parse_job_file(
      "format mpimon-job 1\nworld_size " + std::to_string(world_size) + "\nrecords\n" + annotations, "j");
  for (const JobAnnotation& a : file.annotations) EXPECT_TRUE(table.add_job_annotation(a, "j", world_size));
  return table;
}

TEST(IoFormat, ProfLinesOfTheAggregator) {
  const std::string text = format_prof_files(0, aggregator_registry(), 1e-9);
  const std::string id = identity("out dat%", {0, 1, 2, 3}, 0).identity();
  std::string zeros13;  // 13 zero buckets, then the 4096-byte one
  for (int b = 0; b < 13; ++b) zeros13 += "0,";
  std::string tail;  // buckets 14..65
  for (int b = 14; b < kHistogramBuckets; ++b) tail += ",0";
  std::string fs_zeros;
  for (int b = 0; b < 15; ++b) fs_zeros += "0,";
  std::string fs_tail;
  for (int b = 16; b < kHistogramBuckets; ++b) fs_tail += ",0";
  EXPECT_EQ(text, "# IO_FILE\t0\t" + id +
                      "\tout dat%25\tompio\tvulcan\t1 open\t1 close\t0 set_view\t0 sync\t"
                      "0 set_size\t0 seek\t0 nonblocking\t0 split\t1 collective\t1 aggregated\t0.000000000 s read\t"
                      "2.000000000 s write\t1.500000000 s meta\n"
                      "# IO_ASKED\t0\t" +
                      id + "\twrite_at_all\t1 calls\t4096 bytes\t" + zeros13 + "1" + tail +
                      "\n"
                      "# IO_FS\t0\t" +
                      id + "\twrite\t1 ops\t1 entries\t16384 bytes\t0 consecutive\t0 sequential\t16384 end\t" +
                      fs_zeros + "1" + fs_tail +
                      "\n"
                      "# IO_SHUFFLE\t0\t" +
                      id + "\t0\t4096 bytes\t1 msgs sent\n");
}

TEST(IoFormat, JobLinesOfTheAggregatorListTheMembersOnce) {
  const std::string text = format_job_files(0, aggregator_registry(), 1e-9);
  const std::string id = identity("out dat%", {0, 1, 2, 3}, 0).identity();
  EXPECT_EQ(text, "io_file " + id +
                      " out%20dat%25 0-3\n"
                      "io_rank 0 " +
                      id +
                      " ompio vulcan 1 1 0 0 0 0 0 0 1 1 0.000000000 2.000000000 1.500000000\n"
                      "io_asked 0 " +
                      id +
                      " write_at_all 1 4096 13:1\n"
                      "io_fs 0 " +
                      id +
                      " write 1 1 16384 0 0 16384 15:1\n"
                      "io_shuffle 0 " +
                      id + " 0 1 4096\n");
}

// A full disk: two failed writes (one error, one short by 100 bytes of 1024) and one that
// worked.
FileRegistry& full_disk_registry() {
  static FileRegistry registry;
  return one_file_registry(registry, identity("full.dat", {0}, 0), [](FileRecord& r) {
    r.set_components("ompio", "");
    r.add_fs_failure(Direction::write, 65536);
    r.add_fs_operation(Direction::write, 1, [](size_t) { return std::pair<uint64_t, uint64_t>{0, 4096}; });
    r.add_fs_failure(Direction::write, 100, 924);  // a short write of 1024 bytes
  });
}

TEST(FileRecord, FailedOperationsAreCountedApart) {
  const FileTotals t = summarize(full_disk_registry()).at(0).totals;
  const FsTotals& w = t.fs[static_cast<int>(Direction::write)];
  EXPECT_EQ(w.operations, 1u);
  EXPECT_EQ(w.entries.bytes, 4096u + 924);  // with what the short write moved
  EXPECT_EQ(w.entries.messages, 1u);        // its entries are not counted
  EXPECT_EQ(w.end, 4096u);
  EXPECT_EQ(w.failed_operations, 2u);
  EXPECT_EQ(w.failed_bytes, 65636u);
  EXPECT_EQ(t.fs[static_cast<int>(Direction::read)].failed_operations, 0u);
  FileTotals twice = t;
  twice.merge(t);
  EXPECT_EQ(twice.fs[1].failed_operations, 4u);
  EXPECT_EQ(twice.fs[1].failed_bytes, 131272u);
}

TEST(IoFormat, FailedOperationsHaveTheirOwnLines) {
  const std::string id = identity("full.dat", {0}, 0).identity();
  const std::string prof = format_prof_files(0, full_disk_registry(), 1e-9);
  EXPECT_NE(prof.find("\n# IO_FS_FAILED\t0\t" + id + "\twrite\t2 failed ops\t65636 failed bytes\n"), std::string::npos)
      << prof;
  const std::string job = format_job_files(0, full_disk_registry(), 1e-9);
  EXPECT_NE(job.find("\nio_fs 0 " + id + " write 1 1 5020 0 0 4096 13:1\nio_fs_failed 0 " + id + " write 2 65636\n"),
            std::string::npos)
      << job;
}

// Only a short write: the bytes it moved still have their io_fs line (0 operations), so
// that bytes + failed bytes add up in the dumps too.
TEST(IoFormat, AShortWriteAloneKeepsTheBytesItMoved) {
  static FileRegistry registry;
  one_file_registry(registry, identity("short.dat", {0}, 0), [](FileRecord& r) {
    r.set_components("ompio", "");
    r.add_fs_failure(Direction::write, 100, 924);
  });
  const std::string id = identity("short.dat", {0}, 0).identity();
  const std::string job = format_job_files(0, registry, 1e-9);
  EXPECT_NE(job.find("\nio_fs 0 " + id + " write 0 0 924 0 0 0 -\nio_fs_failed 0 " + id + " write 1 100\n"),
            std::string::npos)
      << job;
  const RankUse::Fs& w = read_job_text(job, 1).files().at(id).ranks.at(0).fs[1];
  EXPECT_EQ(w.bytes + w.failed_bytes, 1024u);
  const RankUse::Fs& p = read_prof_text(format_prof_files(0, registry, 1e-9)).files().at(id).ranks.at(0).fs[1];
  EXPECT_EQ(p.bytes + p.failed_bytes, 1024u);
}

TEST(IoReader, ReadsFailedOperationsInBothDialectsAndSumsThem) {
  const std::string id = identity("full.dat", {0}, 0).identity();
  IoTable prof = read_prof_text(format_prof_files(0, full_disk_registry(), 1e-9));
  const IoTable job = read_job_text(format_job_files(0, full_disk_registry(), 1e-9), 1);
  for (const IoTable* table : {static_cast<const IoTable*>(&prof), &job}) {
    const RankUse::Fs& w = table->files().at(id).ranks.at(0).fs[1];
    EXPECT_EQ(w.operations, 1u);
    EXPECT_EQ(w.bytes, 5020u);
    EXPECT_EQ(w.failed_operations, 2u);
    EXPECT_EQ(w.failed_bytes, 65636u);
  }
  prof.merge(job);
  EXPECT_EQ(prof.files().at(id).ranks.at(0).fs[1].failed_bytes, 131272u);
}

TEST(IoFormat, NothingWithoutFiles) {
  FileRegistry empty;
  EXPECT_EQ(format_prof_files(0, empty, 1e-9), "");
  EXPECT_EQ(format_job_files(0, empty, 1e-9), "");
}

TEST(IoReader, ReadsBackWhatTheFormatsWrite) {
  const std::string id = identity("out dat%", {0, 1, 2, 3}, 0).identity();
  const IoTable prof = read_prof_text(format_prof_files(0, aggregator_registry(), 1e-9));
  const IoTable job = read_job_text(format_job_files(0, aggregator_registry(), 1e-9), 4);
  for (const IoTable* table : {&prof, &job}) {
    ASSERT_EQ(table->files().size(), 1u);
    const FileInfo& info = table->files().at(id);
    EXPECT_EQ(info.name, "out dat%");
    const RankUse& use = info.ranks.at(0);
    EXPECT_EQ(use.io, "ompio");
    EXPECT_EQ(use.fcoll, "vulcan");
    EXPECT_EQ(use.asked[static_cast<int>(Access::write_at_all)].bytes, 4096u);
    EXPECT_EQ(use.asked_bytes(Direction::write), 4096u);
    EXPECT_EQ(use.fs[1].bytes, 16384u);
    EXPECT_EQ(use.fs[1].end, 16384u);
    EXPECT_EQ(use.aggregated_calls, 1u);
    EXPECT_DOUBLE_EQ(use.seconds[2], 1.5);
    EXPECT_EQ(use.shuffle.at(0).bytes, 4096u);
    EXPECT_EQ(info.asked_sizes.at(static_cast<int>(Access::write_at_all)).histogram[13], 1u);
  }
  EXPECT_EQ(job.files().at(id).members, (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(IoReader, OtherLinesAreLeftAlone) {
  IoTable table;
  EXPECT_FALSE(table.add_prof_line("# SYNC\t0\twindow 0\tfence\t1 calls\t0.1 s", "p", 1));
  EXPECT_FALSE(table.add_prof_line("E\t0\t1\t8 bytes\t1 msgs sent", "p", 1));
  JobAnnotation a;
  a.keyword = "collectives";
  EXPECT_FALSE(table.add_job_annotation(a, "j", 4));
  a.keyword = "io_from_a_later_version";
  EXPECT_FALSE(table.add_job_annotation(a, "j", 4));
  EXPECT_TRUE(table.empty());
}

TEST(IoReader, MalformedLinesArePreciseErrors) {
  IoTable table;
  const auto error = [&](const std::string& line) {
    try {
      table.add_prof_line(line, "x.prof", 7);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("# IO_SHUFFLE\t0\tnothex\t1\t8 bytes\t1 msgs sent"),
            "x.prof:7: expected a file identity (16 lower-case hex digits), found 'nothex'");
  EXPECT_EQ(error("# IO_SHUFFLE\t0\t0123456789abcdef\t1\t8 bytes"),
            "x.prof:7: expected '# IO_SHUFFLE <me> <identity> <peer> <B> bytes <n> msgs sent' (5 fields), found 4");
  EXPECT_EQ(error("# IO_ASKED\t0\t0123456789abcdef\twrite_all_begin\t1 calls\t8 bytes\t0"),
            "x.prof:7: expected an access (read_at ... write_ordered), found 'write_all_begin'");
  EXPECT_EQ(error("# IO_SHUFFLE\t0\t0123456789abcdef\t1\t8 octets\t1 msgs sent"),
            "x.prof:7: expected '<count> bytes', found '8 octets'");
  EXPECT_EQ(error("# IO_UNKNOWN\tx"),
            "x.prof:7: expected an I/O line (# IO_FILE, # IO_ASKED, # IO_FS, # IO_FS_FAILED, "
            "# IO_SHUFFLE), found '# IO_UNKNOWN'");
  EXPECT_EQ(error("# IO_FS_FAILED\t0\t0123456789abcdef\twrite\t2 ops\t8 failed bytes"),
            "x.prof:7: expected '<count> failed ops', found '2 ops'");
  EXPECT_EQ(error("# IO_FS_FAILED\t0\t0123456789abcdef\tappend\t2 failed ops\t8 failed bytes"),
            "x.prof:7: expected read or write, found 'append'");
  JobAnnotation a;
  a.keyword = "io_asked";
  a.line = 3;
  a.fields = {"0", "0123456789abcdef", "write", "2", "16", "4:1"};
  try {
    table.add_job_annotation(a, "j", 4);
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "j:3: expected histogram counts summing to 2, found 1");
  }
  a.fields = {"4", "0123456789abcdef", "write", "1", "16", "4:1"};
  EXPECT_THROW(table.add_job_annotation(a, "j", 4), FormatError);  // rank beyond the world
  a.keyword = "io_rank";
  a.fields = {"0", "0123456789abcdef", "ompio", "-", "1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "nan", "0", "0"};
  EXPECT_THROW(table.add_job_annotation(a, "j", 4), FormatError);
}

}  // namespace
}  // namespace mpimon::mpi_io
