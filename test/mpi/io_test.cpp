// The io layer end to end with real MPI-IO (programs in io_patterns.cpp): the three views
// for known patterns, every access kind, ompio with each fcoll and ROMIO, split
// communicators, many files, a reopened file, errors passing through, and the shuffle
// kept out of the application's traffic (cross-checked with Debian's component, which
// counts it as application traffic).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/io_reader.h"
#include "readers/job_reader.h"
#include "readers/series_reader.h"

using namespace mpimon;
using namespace mpimon::test;
using mpi_io::Access;
using mpi_io::Direction;

namespace {

const std::string kIo = MPIMON_IO_PATTERNS;

JobResult run_io(int ranks, const std::vector<std::string>& mode, const std::vector<std::string>& extra = {},
                 Components components = Components::ours, int level = 2) {
  std::vector<std::string> arguments = monitoring_arguments(level);
  arguments = concat_arguments(arguments, {"--mca", "mpi_yield_when_idle", "1"});
  arguments = concat_arguments(arguments, extra);
  arguments.push_back(kIo);
  return run_job(ranks, concat_arguments(arguments, mode), components);
}

struct Dump {
  JobFile job;
  mpi_io::IoTable io;
  // (category, source, destination) -> (messages, bytes)
  std::map<std::tuple<Category, int, int>, std::pair<uint64_t, uint64_t>> records;

  std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> category(Category c) const {
    std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> out;
    for (const auto& [key, value] : records)
      if (std::get<0>(key) == c) out[{std::get<1>(key), std::get<2>(key)}] = value;
    return out;
  }
  // The one file of the job with this name.
  const mpi_io::FileInfo& file(const std::string& name) const {
    for (const auto& [identity, info] : io.files())
      if (info.name == name) return info;
    throw std::runtime_error("no file " + name + " in the job file");
  }
};

Dump read_dump(const JobResult& job) {
  Dump d;
  d.job = read_job_file((job.folder / "mpimon-job.txt").string());
  for (const JobAnnotation& a : d.job.annotations)
    d.io.add_job_annotation(a, "mpimon-job.txt", d.job.header.world_size);
  for (const JobRecord& r : d.job.records)
    d.records[{r.category, r.source, r.destination}] = {r.counters.messages, r.counters.bytes};
  return d;
}

using Matrix = std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>>;

// Debian's component (distro), same program and arguments: its E lines (it counts the
// shuffle as application traffic, the program sends nothing itself).
Matrix distro_external(int ranks, const std::vector<std::string>& mode, const std::vector<std::string>& extra) {
  const JobResult job = run_io(ranks, mode, extra, Components::distro);
  EXPECT_EQ(job.exit_code, 0) << job.output;
  Matrix m;
  for (const auto& [key, value] : read_edges(job.folder, "E"))
    m[{std::get<1>(key), std::get<2>(key)}] = {value.second, value.first};
  return m;
}

std::string show(const Matrix& m) {
  std::ostringstream out;
  for (const auto& [pair, value] : m)
    out << pair.first << "->" << pair.second << ": " << value.first << " msgs " << value.second << " B; ";
  return out.str();
}

uint64_t asked_bytes(const mpi_io::FileInfo& f, int rank, Access a) {
  const auto it = f.ranks.find(rank);
  return it == f.ranks.end() ? 0 : it->second.asked[static_cast<int>(a)].bytes;
}
uint64_t asked_calls(const mpi_io::FileInfo& f, int rank, Access a) {
  const auto it = f.ranks.find(rank);
  return it == f.ranks.end() ? 0 : it->second.asked[static_cast<int>(a)].messages;
}
uint64_t fs_bytes_of_all_ranks(const mpi_io::FileInfo& f, Direction d) {
  uint64_t sum = 0;
  for (const auto& [rank, use] : f.ranks) sum += use.fs[static_cast<int>(d)].bytes;
  return sum;
}

// The asked view of every rank, comparable across runs.
std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> asked_view(const mpi_io::FileInfo& f) {
  std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> out;
  for (const auto& [rank, use] : f.ranks)
    for (int a = 0; a < mpi_io::kAccessCount; ++a)
      if (use.asked[a].messages) out[{rank, a}] = {use.asked[a].messages, use.asked[a].bytes};
  return out;
}

}  // namespace

// The pattern of issue 21: 4 ranks x 4096 B MPI_File_write_at_all on ompio (vulcan).
TEST(IoLayer, WriteAtAllOf4096BytesOn4RanksHasTheThreeViewsExactly) {
  const JobResult job = run_io(4, {"write_at_all", "4096"});
  expect_every_rank_ok(job, 4, "write_at_all");
  const Dump d = read_dump(job);
  const mpi_io::FileInfo& f = d.file("out.dat");
  EXPECT_EQ(f.members, (std::vector<int32_t>{0, 1, 2, 3}));
  ASSERT_EQ(f.ranks.size(), 4u);
  for (const auto& [rank, use] : f.ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    // Asked: one call of 4096 bytes, nothing else.
    EXPECT_EQ(asked_view(f).count({rank, static_cast<int>(Access::write_at_all)}), 1u);
    EXPECT_EQ(asked_calls(f, rank, Access::write_at_all), 1u);
    EXPECT_EQ(asked_bytes(f, rank, Access::write_at_all), 4096u);
    EXPECT_EQ(use.meta[0], 1u);  // open
    EXPECT_EQ(use.meta[1], 1u);  // close
    EXPECT_EQ(use.io, "ompio");
    EXPECT_EQ(use.fcoll, "vulcan");
    EXPECT_EQ(use.collective_calls, 1u);
    // Reached the file system: 16384 bytes in one operation, at the aggregator only.
    EXPECT_EQ(use.fs[1].operations, rank == 0 ? 1u : 0u);
    EXPECT_EQ(use.fs[1].entries, rank == 0 ? 1u : 0u);
    EXPECT_EQ(use.fs[1].bytes, rank == 0 ? 16384u : 0u);
    EXPECT_EQ(use.fs[0].operations, 0u);
    EXPECT_EQ(use.aggregated_calls, rank == 0 ? 1u : 0u);
    // Aggregation: 4096 bytes in one message to the aggregator.
    ASSERT_EQ(use.shuffle.size(), 1u);
    EXPECT_EQ(use.shuffle.at(0).messages, 1u);
    EXPECT_EQ(use.shuffle.at(0).bytes, 4096u);
  }
  // The shuffle in its own category, the same per peer; nothing in the application's.
  const Matrix shuffle = d.category(Category::io_shuffle);
  EXPECT_EQ(shuffle, (Matrix{{{0, 0}, {1, 4096}}, {{1, 0}, {1, 4096}}, {{2, 0}, {1, 4096}}, {{3, 0}, {1, 4096}}}))
      << show(shuffle);
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
  // The .prof files say the same: no E line, the shuffle on "# F" lines.
  EXPECT_TRUE(read_edges(job.folder, "E").empty());
  const Edges f_lines = read_edges(job.folder, "F");
  ASSERT_EQ(f_lines.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(f_lines.at({'F', r, 0}), std::make_pair(uint64_t{4096}, uint64_t{1}));
  // Debian's component counts exactly that shuffle as application traffic.
  EXPECT_EQ(distro_external(4, {"write_at_all", "4096"}, {}), shuffle);
}

// The tools on that job: `mpimon show` lists the file, asked against reached; `mpimon
// matrix --category io_shuffle` is the shuffle alone; a damaged I/O line is the same error
// in matrix, show and report.
TEST(IoLayer, MatrixAndShowReadTheFilesOfTheJob4Ranks) {
  const JobResult job = run_io(4, {"write_at_all", "4096"});
  expect_every_rank_ok(job, 4, "write_at_all");
  const auto mpimon = [&](const std::string& arguments) {
    return run_shell(job.folder, std::string(MPIMON_BIN) + " " + arguments + " 2>&1");
  };
  const JobResult show = mpimon("show mpimon-job.txt");
  EXPECT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(
      show.output.find("\nfile     ranks  io            read asked  read reached  written asked  written reached  "
                       "shuffle B  aggregators\n"
                       "out.dat      4  ompio/vulcan           0             0          16384            16384  "
                       "    16384            1\n"),
      std::string::npos)
      << show.output;
  const JobResult matrix = mpimon("matrix mpimon-job.txt --category io_shuffle --metric bytes");
  EXPECT_EQ(matrix.exit_code, 0) << matrix.output;
  EXPECT_NE(matrix.output.find("4096"), std::string::npos) << matrix.output;
  const JobResult csv = mpimon("matrix mpimon-job.txt --category io_shuffle --metric bytes --format sparse");
  EXPECT_EQ(csv.output, "sender,receiver,bytes\n0,0,4096\n1,0,4096\n2,0,4096\n3,0,4096\n") << csv.output;
  // A damaged io_fs line in a version 1 job file (no checksums to refuse it first).
  std::string text = read_text(job.folder / "mpimon-job.txt");
  const size_t fs = text.find("\nio_fs 0 ");
  ASSERT_NE(fs, std::string::npos) << text;
  const size_t field = text.find(" write 1 1 16384 ", fs);
  ASSERT_NE(field, std::string::npos);
  text.replace(field, 17, " write 1 1 16x84 ");
  std::string version1;
  size_t line_no = 0, damaged_line = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("format ", 0) == 0) line = "format mpimon-job 1";
    if (line.rfind("checksum ", 0) == 0 || line.rfind("eof ", 0) == 0) continue;
    ++line_no;
    if (line.find(" 16x84 ") != std::string::npos) damaged_line = line_no;
    version1 += line + '\n';
  }
  std::ofstream(job.folder / "damaged.txt") << version1;
  const std::string expected = "damaged.txt:" + std::to_string(damaged_line) + ": expected a byte count, found '16x84'";
  for (const std::string command : {"matrix", "show", "report"}) {
    SCOPED_TRACE(command);
    const JobResult r = mpimon(command + " damaged.txt" + (command == "report" ? " -o r.html" : ""));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  }
}

TEST(IoLayer, ReadAtAllOf4096BytesOn4Ranks) {
  const JobResult job = run_io(4, {"read_at_all", "4096"});
  expect_every_rank_ok(job, 4, "read_at_all");
  const Dump d = read_dump(job);
  const mpi_io::FileInfo& f = d.file("in.dat");
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    EXPECT_EQ(asked_calls(f, rank, Access::read_at_all), 1u);
    EXPECT_EQ(asked_bytes(f, rank, Access::read_at_all), 4096u);
    EXPECT_EQ(f.ranks.at(rank).fs[0].bytes, rank == 0 ? 16384u : 0u);
    EXPECT_EQ(f.ranks.at(rank).fs[1].operations, 0u);
  }
  // The aggregator sends every rank its 4096 bytes (and vulcan's read exchanges a few
  // index messages with tags >= 0): all of it in io_shuffle, none in external.
  const Matrix shuffle = d.category(Category::io_shuffle);
  for (int r = 0; r < 4; ++r) EXPECT_GE(shuffle.at({0, r}).second, 4096u) << show(shuffle);
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
  EXPECT_EQ(distro_external(4, {"read_at_all", "4096"}, {}), shuffle);
}

// ROMIO (romio321) has no fbtl: the asked view only, the same as ompio's.
TEST(IoLayer, WriteAtAllUnderRomioHasTheSameAskedView) {
  const JobResult ompio = run_io(4, {"write_at_all", "4096"});
  const JobResult romio = run_io(4, {"write_at_all", "4096"}, {"--mca", "io", romio_component() + ",mpimon"});
  expect_every_rank_ok(romio, 4, "write_at_all");
  const Dump d = read_dump(romio);
  const mpi_io::FileInfo& f = d.file("out.dat");
  EXPECT_EQ(asked_view(f), asked_view(read_dump(ompio).file("out.dat")));
  for (const auto& [rank, use] : f.ranks) {
    EXPECT_EQ(use.io, romio_component());
    EXPECT_EQ(use.fcoll, "");
    EXPECT_EQ(use.fs[1].operations, 0u);
    EXPECT_EQ(use.aggregated_calls, 0u);
  }
  // ROMIO does not aggregate this pattern by default: no shuffle at all.
  EXPECT_TRUE(d.category(Category::io_shuffle).empty());
  EXPECT_TRUE(d.category(Category::external).empty());
}

TEST(IoLayer, RomioCollectiveBufferingShuffleIsKeptApart) {
  const std::filesystem::path hints = new_test_folder() / "romio-hints";
  std::ofstream(hints) << "romio_cb_write enable\n";
  const std::vector<std::string> extra = {"--mca", "io", romio_component() + ",mpimon", "-x",
                                          "ROMIO_HINTS=" + hints.string()};
  const JobResult job = run_io(4, {"write_at_all", "4096"}, extra);
  expect_every_rank_ok(job, 4, "write_at_all");
  const Dump d = read_dump(job);
  const Matrix shuffle = d.category(Category::io_shuffle);
  EXPECT_FALSE(shuffle.empty());
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
  EXPECT_EQ(distro_external(4, {"write_at_all", "4096"},
                            {"--mca", "io", romio_component(), "-x", "ROMIO_HINTS=" + hints.string()}),
            shuffle);
  // Per file, the same per-peer totals.
  for (const auto& [rank, use] : d.file("out.dat").ranks)
    for (const auto& [peer, traffic] : use.shuffle)
      EXPECT_EQ(std::make_pair(traffic.messages, traffic.bytes), shuffle.at({rank, peer}));
}

// Every fcoll component ompio has, forced: the same asked view, the file's bytes reach the
// file system once, and the shuffle is what Debian's component calls application traffic.
TEST(IoLayer, EachFcollForcedAgreesWithDebiansComponent) {
  const auto reference = asked_view(read_dump(run_io(4, {"write_at_all", "4096"})).file("out.dat"));
  for (const std::string& fcoll : fcoll_components()) {
    SCOPED_TRACE("fcoll " + fcoll);
    const std::vector<std::string> extra = {"--mca", "fcoll", fcoll};
    const JobResult job = run_io(4, {"write_at_all", "4096"}, extra);
    expect_every_rank_ok(job, 4, "write_at_all");
    const Dump d = read_dump(job);
    const mpi_io::FileInfo& f = d.file("out.dat");
    EXPECT_EQ(asked_view(f), reference);
    EXPECT_EQ(fs_bytes_of_all_ranks(f, Direction::write), 16384u);
    for (const auto& [rank, use] : f.ranks) EXPECT_EQ(use.fcoll, fcoll);
    const Matrix shuffle = d.category(Category::io_shuffle);
    if (fcoll == "individual") {
      EXPECT_TRUE(shuffle.empty()) << show(shuffle);
    }
    EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
    EXPECT_EQ(distro_external(4, {"write_at_all", "4096"}, extra), shuffle);
  }
}

namespace {

// io_patterns kinds: each family's calls and bytes per rank (io_patterns.cpp's sizes); with
// blocking-collectives the nonblocking collective calls are left out (romio321 crashes in
// them, with or without us).
struct Family {
  Access access;
  uint64_t calls, bytes;
};
std::vector<Family> kinds(bool nonblocking_collectives) {
  const uint64_t n = nonblocking_collectives ? 1 : 0;
  std::vector<Family> out;
  for (const bool write : {true, false}) {
    auto f = [&](Access w, Access r, uint64_t calls, uint64_t bytes) { out.push_back({write ? w : r, calls, bytes}); };
    f(Access::write_at, Access::read_at, 2, 1 + 2);
    f(Access::write_at_all, Access::read_at_all, 2 + n, 4 + 8 * n + 16);
    f(Access::write, Access::read, 2, 32 + 64);
    f(Access::write_all, Access::read_all, 2 + n, 128 + 256 * n + 512);
    f(Access::write_shared, Access::read_shared, 2, 1024 + 2048);
    f(Access::write_ordered, Access::read_ordered, 2, 4096 + 8192);
  }
  return out;
}

void expect_every_kind_once(const mpi_io::FileInfo& f, int ranks, bool nonblocking_collectives) {
  ASSERT_EQ(f.ranks.size(), static_cast<size_t>(ranks));
  const uint64_t n = nonblocking_collectives ? 1 : 0;
  for (const auto& [rank, use] : f.ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    for (const Family& k : kinds(nonblocking_collectives)) {
      EXPECT_EQ(use.asked[static_cast<int>(k.access)].messages, k.calls) << mpi_io::access_name(k.access);
      EXPECT_EQ(use.asked[static_cast<int>(k.access)].bytes, k.bytes) << mpi_io::access_name(k.access);
    }
    // open, close, set_view, sync, set_size (one of them MPI_File_preallocate), seek (two
    // of them MPI_File_seek_shared)
    EXPECT_EQ(std::vector<uint64_t>(use.meta, use.meta + mpi_io::kMetaOpCount),
              (std::vector<uint64_t>{1, 1, 2, 1, 2, 4}));
    EXPECT_EQ(use.nonblocking_calls, 6u + 4 * n);
    EXPECT_EQ(use.split_calls, 6u);
    EXPECT_EQ(use.collective_calls, 12u + 4 * n);
  }
}

}  // namespace

TEST(IoLayer, EveryAccessKindUnderOmpio) {
  const JobResult job = run_io(4, {"kinds"});
  expect_every_rank_ok(job, 4, "kinds");
  const Dump d = read_dump(job);
  expect_every_kind_once(d.file("kinds.dat"), 4, true);
  // Every byte written reached the file system once (ompio: before data sieving), and so
  // did MPI_File_preallocate's: ompio preallocates by writing the range (4 x 65536 bytes).
  EXPECT_EQ(fs_bytes_of_all_ranks(d.file("kinds.dat"), Direction::write), 4u * 16383 + 4 * 65536);
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
}

// ROMIO: the same asked view as ompio (without the nonblocking collectives, which crash
// inside Open MPI 4.1.4's romio321 with or without us).
TEST(IoLayer, EveryAccessKindUnderRomioHasTheAskedViewOfOmpio) {
  const JobResult ompio = run_io(4, {"kinds", "blocking-collectives"});
  expect_every_rank_ok(ompio, 4, "kinds");
  const JobResult romio = run_io(4, {"kinds", "blocking-collectives"}, {"--mca", "io", romio_component() + ",mpimon"});
  expect_every_rank_ok(romio, 4, "kinds");
  const Dump r = read_dump(romio);
  expect_every_kind_once(r.file("kinds.dat"), 4, false);
  EXPECT_EQ(asked_view(r.file("kinds.dat")), asked_view(read_dump(ompio).file("kinds.dat")));
  for (const auto& [rank, use] : r.file("kinds.dat").ranks) EXPECT_EQ(use.io, romio_component());
  EXPECT_TRUE(r.category(Category::external).empty()) << show(r.category(Category::external));
}

// Files opened on split communicators: one file per half (3 ranks each: ompio aggregates,
// with vulcan; on 2 ranks it writes independently), members and shuffle within it.
TEST(IoLayer, FilesOnSplitCommunicators6Ranks) {
  const JobResult job = run_io(6, {"split"});
  expect_every_rank_ok(job, 6, "split");
  const Dump d = read_dump(job);
  const mpi_io::FileInfo& even = d.file("half.0.dat");
  const mpi_io::FileInfo& odd = d.file("half.1.dat");
  EXPECT_EQ(even.members, (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(odd.members, (std::vector<int32_t>{1, 3, 5}));
  EXPECT_EQ(even.ranks.size(), 3u);
  EXPECT_EQ(odd.ranks.size(), 3u);
  for (const mpi_io::FileInfo* f : {&even, &odd}) {
    const int aggregator = f->members[0];
    for (const int32_t member : f->members) {
      EXPECT_EQ(asked_bytes(*f, member, Access::write_at_all), 4096u);
      EXPECT_EQ(f->ranks.at(member).fcoll, "vulcan");
      // Each member sends its 4096 bytes to the half's aggregator (its rank 0).
      const auto& shuffle = f->ranks.at(member).shuffle;
      ASSERT_EQ(shuffle.size(), 1u);
      EXPECT_EQ(shuffle.at(aggregator).bytes, 4096u);
    }
    EXPECT_EQ(f->ranks.at(aggregator).fs[1].bytes, 3u * 4096);
    EXPECT_EQ(f->ranks.at(aggregator).fs[1].end, 3u * 4096);
    EXPECT_EQ(fs_bytes_of_all_ranks(*f, Direction::write), 3u * 4096);
  }
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
  for (const auto& [pair, value] : d.category(Category::io_shuffle)) EXPECT_EQ(pair.first % 2, pair.second % 2);
}

// Many files: one record per file and rank, nothing lost.
TEST(IoLayer, ManyFilesEachHaveTheirRecords) {
  const JobResult job = run_io(4, {"many", "40"});
  expect_every_rank_ok(job, 4, "many");
  const Dump d = read_dump(job);
  EXPECT_EQ(d.io.files().size(), 40u);
  for (int i = 0; i < 40; ++i) {
    const mpi_io::FileInfo& f = d.file("many." + std::to_string(i) + ".dat");
    for (int r = 0; r < 4; ++r) EXPECT_EQ(asked_bytes(f, r, Access::write_at_all), 8u);
    EXPECT_EQ(fs_bytes_of_all_ranks(f, Direction::write), 32u);
  }
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
}

// A file opened and closed again and again keeps one record per rank (memory grows with
// files, not with opens).
TEST(IoLayer, AReopenedFileKeepsOneRecord) {
  const JobResult job = run_io(4, {"reopen", "50"});
  expect_every_rank_ok(job, 4, "reopen");
  const Dump d = read_dump(job);
  ASSERT_EQ(d.io.files().size(), 1u);
  const mpi_io::FileInfo& f = d.file("reopen.dat");
  for (const auto& [rank, use] : f.ranks) {
    EXPECT_EQ(use.meta[0], 50u);
    EXPECT_EQ(use.meta[1], 50u);
    EXPECT_EQ(asked_calls(f, rank, Access::write_at), 50u);
    EXPECT_EQ(asked_bytes(f, rank, Access::write_at), 400u);
    EXPECT_EQ(use.fs[1].bytes, 400u);
    EXPECT_EQ(use.fs[1].end, static_cast<uint64_t>(rank * 8 + 8));
  }
  // One io_rank line per rank in the job file.
  size_t lines = 0;
  for (const JobAnnotation& a : d.job.annotations) lines += a.keyword == "io_rank";
  EXPECT_EQ(lines, 4u);
}

namespace {

std::set<std::string> error_lines(const JobResult& job) {
  std::set<std::string> lines;
  std::istringstream in(job.output);
  for (std::string line; std::getline(in, line);)
    // (5.0's launcher may put a NUL before the job's first output line.)
    if (const size_t start = line.find("rank "); start != std::string::npos && line.find(" -> ") != std::string::npos)
      lines.insert(line.substr(start));
  return lines;
}

}  // namespace

// Errors of the real module reach the application unchanged (the same error classes as
// without monitoring), and a failed open leaves no record.
TEST(IoLayer, ErrorsPassThroughUnchanged) {
  for (const std::vector<std::string>& io :
       {std::vector<std::string>{}, {"--mca", "io", romio_component() + ",mpimon"}}) {
    SCOPED_TRACE(io.empty() ? "ompio" : romio_component());
    const JobResult ours = run_io(4, {"errors"}, io);
    expect_every_rank_ok(ours, 4, "errors");
    std::vector<std::string> plain_io = io;
    if (!plain_io.empty()) plain_io.back() = romio_component();
    const JobResult plain =
        run_job(4, concat_arguments(concat_arguments({"--mca", "mpi_yield_when_idle", "1"}, plain_io), {kIo, "errors"}),
                Components::distro);
    expect_every_rank_ok(plain, 4, "errors");
    const std::set<std::string> lines = error_lines(ours);
    // Nine outcomes per rank on 4.1.4; 5.0.7's ompio fails more of them itself (the same
    // with and without us, which is what this test is about).
    if (open_mpi_4_1()) {
      EXPECT_EQ(lines.size(), 4u * 9) << ours.output;
    }
    EXPECT_GE(lines.size(), 4u * 5) << ours.output;
    EXPECT_EQ(lines, error_lines(plain));
    const Dump d = read_dump(ours);
    for (const auto& [identity, f] : d.io.files())
      EXPECT_TRUE(f.name == "readonly.dat" || f.name == "vanishing.dat") << f.name;
    EXPECT_EQ(asked_calls(d.file("vanishing.dat"), 0, Access::write_at_all), 1u);
  }
}

// A full disk (a 512 KiB tmpfs, full): every call returns what it returns without us. Open
// MPI 4.1.4's ompio returns MPI_SUCCESS from writes whose pwritev failed with ENOSPC (it
// prints "No space left on device" and drops the error): the asked view counts what the
// calls say they did, the file-system view shows that nothing reached the file.
TEST(IoLayer, AFullDiskReturnsWhatOmpioReturnsAndNothingReachesTheFile4Ranks) {
  const std::vector<std::string> program = {"--mca", "mpi_yield_when_idle", "1", kIo, "full"};
  const auto ours = run_on_full_disk(mpirun_command(
      4, concat_arguments(concat_arguments(monitoring_arguments(2), program), {"pvars"}), Components::ours));
  SKIP_WITHOUT_MOUNT_NAMESPACE(ours);
  const auto plain = run_on_full_disk(mpirun_command(4, program, Components::distro));
  SKIP_WITHOUT_MOUNT_NAMESPACE(plain);
  const JobResult& job = *ours;
  EXPECT_NE(job.output.find("exit code: 0"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("No space left on device"), std::string::npos) << job.output;
  expect_every_rank_ok(job, 4, "full");
  const std::set<std::string> lines = error_lines(job);
  ASSERT_EQ(lines.size(), 4u * 4) << job.output;
  EXPECT_EQ(lines, error_lines(*plain));
  const Dump d = read_dump(job);
  const mpi_io::FileInfo& f = d.file("full/out.dat");
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const std::string r = "rank " + std::to_string(rank) + ": ";
    const bool all_ok = lines.count(r + "write_at_all on a full disk -> success") == 1;
    const bool at_ok = lines.count(r + "write_at on a full disk -> success") == 1;
    EXPECT_EQ(asked_calls(f, rank, Access::write_at_all), all_ok ? 1u : 0u);
    EXPECT_EQ(asked_bytes(f, rank, Access::write_at_all), all_ok ? 65536u : 0u);
    EXPECT_EQ(asked_calls(f, rank, Access::write_at), at_ok ? 1u : 0u);
    EXPECT_EQ(asked_bytes(f, rank, Access::write_at), at_ok ? 65536u : 0u);
  }
  // Failed fbtl operations are counted apart, never as reached: 0 bytes reached the full
  // disk. vulcan's one aggregator (rank 0) wrote the collective's 4 x 64 KiB in one
  // operation, and every rank its own write_at: all of them failed with ENOSPC.
  EXPECT_EQ(fs_bytes_of_all_ranks(f, Direction::write), 0u);
  const JobResult show = run_shell(job.folder, std::string(MPIMON_BIN) + " show mpimon-job.txt 2>&1");
  EXPECT_NE(show.output.find("\nfull/out.dat      4  ompio/vulcan"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find(" 0 (5 failed ops, 524288 B) "), std::string::npos) << show.output;
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const mpi_io::RankUse::Fs& w = f.ranks.at(rank).fs[static_cast<int>(Direction::write)];
    EXPECT_EQ(w.operations, 0u);
    EXPECT_EQ(w.bytes, 0u);
    EXPECT_EQ(w.failed_operations, rank == 0 ? 2u : 1u);
    EXPECT_EQ(w.failed_bytes, rank == 0 ? 4u * 65536 + 65536 : 65536u);
    EXPECT_EQ(f.ranks.at(rank).fs[static_cast<int>(Direction::read)].failed_operations, 0u);
    EXPECT_EQ(f.ranks.at(rank).aggregated_calls, rank == 0 ? 1u : 0u);
    // The performance variables said the same before the close.
    const std::string pvars = "rank " + std::to_string(rank) + ": fs_failed pvars: 0 0 " +
                              std::to_string(w.failed_operations) + " " + std::to_string(w.failed_bytes);
    EXPECT_NE(job.output.find(pvars), std::string::npos) << job.output;
  }
}

// A disk that fills part-way through (64 KiB free): every byte handed to the fbtl either
// reached the file or failed, never both, never neither (a short write splits its bytes);
// and what the file-system view says reached the file is in the file.
TEST(IoLayer, ADiskThatFillsPartWayThroughSplitsEveryByteIntoReachedOrFailed4Ranks) {
  const auto run = run_on_full_disk(
      mpirun_command(4, concat_arguments(monitoring_arguments(2), {"--mca", "mpi_yield_when_idle", "1", kIo, "full"}),
                     Components::ours),
      16);
  SKIP_WITHOUT_MOUNT_NAMESPACE(run);
  const JobResult& job = *run;
  expect_every_rank_ok(job, 4, "full");
  const std::set<std::string> lines = error_lines(job);
  // 4.1.4's ompio says every write worked, as on a full disk; 5.0.7's returns an error from
  // the independent writes that failed (docs/io.md). Every call says something either way.
  for (int rank = 0; rank < 4; ++rank)
    for (const std::string call : {"write_at_all", "write_at"}) {
      const std::string said = "rank " + std::to_string(rank) + ": " + call + " on a full disk -> ";
      if (open_mpi_4_1()) {
        EXPECT_EQ(lines.count(said + "success"), 1u) << job.output;
      } else {
        EXPECT_EQ(
            std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(said, 0) == 0; }), 1)
            << job.output;
      }
    }
  const Dump d = read_dump(job);
  const mpi_io::FileInfo& f = d.file("full/out.dat");
  uint64_t reached = 0, failed = 0, failed_operations = 0, operations = 0;
  for (const auto& [rank, use] : f.ranks) {
    const mpi_io::RankUse::Fs& w = use.fs[static_cast<int>(Direction::write)];
    reached += w.bytes;
    failed += w.failed_bytes;
    failed_operations += w.failed_operations;
    operations += w.operations;
    EXPECT_EQ(use.fs[static_cast<int>(Direction::read)].failed_operations, 0u);
  }
  // 4 x 64 KiB collective (one aggregated operation) + 4 x 64 KiB independent: 5 operations.
  EXPECT_EQ(reached + failed, 8u * 65536) << "reached " << reached << ", failed " << failed << "\n"
                                          << read_text(job.folder / "mpimon-job.txt") << job.output;
  EXPECT_EQ(operations + failed_operations, 5u);
  EXPECT_GE(failed_operations, 1u);  // 64 KiB free cannot take 512 KiB
  EXPECT_LE(reached, 65536u);
  // What reached the file is in it (the written bytes are 'x', holes read as 0).
  const std::string written = read_text(job.folder / "after" / "out.dat");
  EXPECT_GE(static_cast<uint64_t>(std::count(written.begin(), written.end(), 'x')), reached);
}

// io_monitoring_enable 0 (or monitoring off): files get Open MPI's own choice, nothing of
// ours in between.
TEST(IoLayer, NotInterposedWhenOff) {
  const JobResult job =
      run_io(4, {"write_at_all", "4096"}, {"--mca", "io_monitoring_enable", "0", "--mca", "io_base_verbose", "10"});
  expect_every_rank_ok(job, 4, "write_at_all");
  EXPECT_NE(job.output.find("Selected io module ompio"), std::string::npos) << job.output;
  EXPECT_EQ(job.output.find("Selected io module mpimon"), std::string::npos);
  const Dump d = read_dump(job);
  EXPECT_TRUE(d.io.empty());
  EXPECT_TRUE(d.category(Category::io_shuffle).empty());
  // The shuffle is then application traffic again, as with Debian's component.
  EXPECT_EQ(d.category(Category::external).size(), 4u);

  const JobResult off = run_job(4, {"--mca", "io_base_verbose", "10", kIo, "write_at_all", "4096"});
  expect_every_rank_ok(off, 4, "write_at_all");
  EXPECT_NE(off.output.find("Selected io module ompio"), std::string::npos) << off.output;
  EXPECT_EQ(off.output.find("Selected io module mpimon"), std::string::npos);
}

// An invalid io_monitoring_enable: one line says so and what is used instead (the default,
// 1), the job runs and MPI-IO is monitored.
TEST(IoLayer, InvalidEnableValueSaysSoOnceAndKeepsTheDefault4Ranks) {
  for (const std::string value : {"abc", "2", "-1", "1x"}) {
    SCOPED_TRACE("io_monitoring_enable " + value);
    const JobResult job = run_io(4, {"write_at_all", "4096"}, {"--mca", "io_monitoring_enable", value});
    expect_every_rank_ok(job, 4, "write_at_all");
    const std::string line = "mpimon: invalid value '" + value +
                             "' for MCA parameter io_monitoring_enable (valid: 0 off, 1 on); using 1 (the default): "
                             "MPI-IO is monitored\n";
    const size_t at = job.output.find(line);
    EXPECT_NE(at, std::string::npos) << job.output;
    EXPECT_EQ(job.output.find(line, at + 1), std::string::npos) << "once per job: " << job.output;
    EXPECT_EQ(asked_bytes(read_dump(job).file("out.dat"), 3, Access::write_at_all), 4096u);
  }
}

// Open MPI's profile2mat reads our .prof files as before: our MPI-IO lines start with '#'.
TEST(IoLayer, ProfileToMatrixSkipsTheIoLines) {
  MPIMON_SKIP_WITHOUT("/usr/bin/profile2mat");
  const JobResult job = run_io(4, {"write_at_all", "4096"}, {}, Components::ours, 1);
  expect_every_rank_ok(job, 4, "write_at_all");
  std::string all, without_io;
  for (int r = 0; r < 4; ++r) {
    const std::string text = read_text(job.folder / ("prof." + std::to_string(r) + ".prof"));
    EXPECT_NE(text.find("# F\t"), std::string::npos);
    all += text;
    without_io += text.substr(0, text.find("# MPI-IO\n"));
  }
  std::ofstream(job.folder / "all.prof") << all;
  std::ofstream(job.folder / "plain.prof") << without_io;
  const JobResult run = run_shell(job.folder, "profile2mat all.prof && profile2mat plain.prof");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(read_text(job.folder / "all_size_all.mat"), read_text(job.folder / "plain_size_all.mat"));
  EXPECT_EQ(read_text(job.folder / "all_msg_all.mat"), read_text(job.folder / "plain_msg_all.mat"));
}

namespace {

uint64_t file_size_printed(const JobResult& job) {
  const size_t at = job.output.find("file size ");
  return at == std::string::npos ? 0 : std::stoull(job.output.substr(at + 10));
}

// A library's job (HDF5, PnetCDF) under our components and without: both finish and
// check their data; ours adds up: the highest byte written equals the file's size, every
// byte the application's calls asked to write reached the file system (ompio hands the
// fbtl what was asked, nothing more), the shuffle is apart and the application's own
// traffic (none) is empty.
void expect_library_job_adds_up(const std::string& program, const std::string& file, const std::string& mode) {
  const JobResult plain = run_job(4, {"--mca", "mpi_yield_when_idle", "1", program, file}, Components::distro);
  expect_every_rank_ok(plain, 4, mode);
  std::vector<std::string> arguments = concat_arguments(monitoring_arguments(), {"--mca", "mpi_yield_when_idle", "1"});
  const JobResult ours = run_job(4, concat_arguments(arguments, {program, file}));
  expect_every_rank_ok(ours, 4, mode);
  const uint64_t size = file_size_printed(ours);
  EXPECT_EQ(size, file_size_printed(plain));
  EXPECT_GE(size, 4u * 1024 * 8);
  const Dump d = read_dump(ours);
  const mpi_io::FileInfo& f = d.file(file);
  uint64_t end = 0, asked_write = 0, reached_write = 0, asked_read = 0;
  for (const auto& [rank, use] : f.ranks) {
    end = std::max(end, use.fs[1].end);
    asked_write += use.asked_bytes(Direction::write);
    asked_read += use.asked_bytes(Direction::read);
    reached_write += use.fs[1].bytes;
    EXPECT_EQ(use.io, "ompio");
  }
  EXPECT_EQ(end, size);
  EXPECT_EQ(reached_write, asked_write);
  EXPECT_GE(asked_write, 4u * 1024 * 8);  // the rows, and the library's metadata
  EXPECT_GE(asked_read, 4u * 1024 * 8);
  EXPECT_TRUE(d.category(Category::external).empty()) << show(d.category(Category::external));
  // Debian's component counts the same library's shuffle as application traffic.
  Matrix distro;
  {
    const JobResult theirs = run_job(4, concat_arguments(arguments, {program, file}), Components::distro);
    expect_every_rank_ok(theirs, 4, mode);
    for (const auto& [key, value] : read_edges(theirs.folder, "E"))
      distro[{std::get<1>(key), std::get<2>(key)}] = {value.second, value.first};
  }
  EXPECT_EQ(distro, d.category(Category::io_shuffle));
}

}  // namespace

TEST(IoLayer, ParallelHdf5JobRunsUnchangedAndAddsUp) {
  MPIMON_SKIP_DEBIAN_APPLICATION("parallel HDF5");
#ifdef MPIMON_HDF5_PROGRAM
  expect_library_job_adds_up(MPIMON_HDF5_PROGRAM, "rows.h5", "hdf5");
#else
  FAIL() << "not built: no hdf5-openmpi (scripts/setup.sh installs libhdf5-openmpi-dev)";
#endif
}

TEST(IoLayer, PnetcdfJobRunsUnchangedAndAddsUp) {
  MPIMON_SKIP_DEBIAN_APPLICATION("PnetCDF");
#ifdef MPIMON_PNETCDF_PROGRAM
  expect_library_job_adds_up(MPIMON_PNETCDF_PROGRAM, "rows.nc", "pnetcdf");
#else
  FAIL() << "not built: no pnetcdf (scripts/setup.sh installs libpnetcdf-dev)";
#endif
}

// The io_monitoring_* performance variables, read by the program itself (io_patterns.cpp:
// exact values on every rank, MPI_FILE_NULL refused, reads fail once the file is closed).
TEST(IoLayer, PerformanceVariablesBoundToTheFile4Ranks) { expect_every_rank_ok(run_io(4, {"pvars"}), 4, "pvars"); }

// The time series carries the files as the job file does: at the end, the same io_*
// lines and io_shuffle records.
TEST(IoLayer, TheTimeSeriesCarriesTheFiles4Ranks) {
  const JobResult job = run_io(4, {"write_at_all", "4096"}, {"--mca", "pml_monitoring_snapshot_interval", "0.05"});
  expect_every_rank_ok(job, 4, "write_at_all");
  const Dump d = read_dump(job);
  series::SeriesTotals totals;
  const series::SeriesInfo info = series::read_series((job.folder / "mpimon-job.txt.series").string(),
                                                      [&](const series::SeriesFrame& f) { totals.add(f); });
  const JobFile from_series = parse_job_file(totals.job_file_text(info), "series");
  auto io_lines = [](const JobFile& f) {
    std::multiset<std::string> lines;
    for (const JobAnnotation& a : f.annotations) {
      if (a.keyword.rfind("io_", 0) != 0) continue;
      std::string line = a.keyword;
      for (const std::string& field : a.fields) line += " " + field;
      lines.insert(line);
    }
    return lines;
  };
  EXPECT_FALSE(io_lines(d.job).empty());
  EXPECT_EQ(io_lines(from_series), io_lines(d.job));
  size_t shuffle_records = 0;
  for (const JobRecord& r : from_series.records) shuffle_records += r.category == Category::io_shuffle;
  EXPECT_EQ(shuffle_records, 4u);
}
