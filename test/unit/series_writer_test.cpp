// The time series' writer (series/series_writer.h): exclusive files of ours, periodic
// snapshots from a background thread, and a final frame on SIGTERM (then the signal's
// previous effect), at exit, or at the end of the job.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "formats/series_frame.h"
#include "readers/series_frame_reader.h"
#include "readers/series_payload_reader.h"
#include "series/series_writer.h"
#include "temp_dir.h"

namespace mpimon::series {
namespace {

namespace fs = std::filesystem;

Record record(int32_t peer, uint64_t messages) {
  Record r;
  r.peer = peer;
  r.counters.messages = messages;
  r.counters.bytes = messages * 8;
  r.counters.histogram[4] = messages;
  return r;
}

struct ReadBack {
  std::vector<Frame> frames;  // payload views into `bytes`
  std::vector<std::string> payloads;
  std::vector<ScanIssue> issues;
};

ReadBack read_back(const std::string& path) {
  ReadBack r;
  scan_frame_file(
      path,
      [&](const Frame& f) {
        r.frames.push_back(f);
        r.payloads.emplace_back(f.payload);
      },
      r.issues);
  return r;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class SeriesWriterTest : public test::TempDirTest {
 protected:
  std::string series_dir() {
    const std::string d = dir_ + "/job.txt.series";
    std::string error;
    EXPECT_EQ(create_series_directory(d, error), Created::yes) << error;
    return d;
  }
  // A writer of process `rank` whose totals are `messages` messages to peer 1, in the
  // series folder (made by the first writer), host file "node" (`host_processes` share it).
  SeriesWriter* make_writer(std::atomic<uint64_t>& messages, int64_t interval_us, bool signals, int32_t rank = 2,
                            int host_processes = 0) {
    const std::string d = fs::exists(dir_ + "/job.txt.series") ? dir_ + "/job.txt.series" : series_dir();
    SeriesWriter::Options o;
    o.rank = rank;
    o.job_start_us = realtime_us();
    o.interval_us = interval_us;
    o.catch_sigterm = signals;
    o.final_at_exit = signals;
    o.host_processes = host_processes;
    const SeriesStart start{4, 2, "4.1.4", o.job_start_us, interval_us, "node", ::getpid()};
    std::string error;
    const int fd = open_host_file(d, "node", start_frame(o.rank, start), error);
    EXPECT_GE(fd, 0) << error;
    path_ = d + "/node";
    auto* w = new SeriesWriter(
        fd, path_, o,
        [&messages, storage = std::make_shared<Snapshot>()](TotalsView& into) {
          *storage = Snapshot{record(1, messages.load())};
          into = view_of(*storage);
        },
        [] { return std::vector<std::string>{"collectives 2 world 0 0 0 0 1 8"}; }, [](const std::string&) {});
    return w;
  }
  std::string path_;
};

TEST_F(SeriesWriterTest, DirectoryIsCreatedExclusivelyNeverWritableByOthers) {
  const mode_t before = ::umask(0);
  const std::string d = dir_ + "/a.series";
  std::string error;
  EXPECT_EQ(create_series_directory(d, error), Created::yes) << error;
  ::umask(0077);  // a stricter umask is honoured, as for every output
  EXPECT_EQ(create_series_directory(dir_ + "/strict.series", error), Created::yes) << error;
  ::umask(before);
  struct stat s {};
  ASSERT_EQ(::stat(d.c_str(), &s), 0);
  EXPECT_EQ(s.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((dir_ + "/strict.series").c_str(), &s), 0);
  EXPECT_EQ(s.st_mode & 07777, 0700u);
  EXPECT_EQ(create_series_directory(d, error), Created::exists);
  EXPECT_EQ(create_series_directory(dir_ + "/missing/b.series", error), Created::failed);
  EXPECT_NE(error.find("missing/b.series: No such file or directory"), std::string::npos) << error;
}

TEST_F(SeriesWriterTest, HostFileAppearsWithItsFirstFrameAs0644AndIsJoinedByTheHostsOtherProcesses) {
  const std::string d = series_dir();
  const mode_t before = ::umask(0);
  std::string error;
  const int first = open_host_file(d, "node", "start-0|", error);
  ASSERT_GE(first, 0) << error;
  EXPECT_EQ(read_text(d + "/node"), "start-0|");  // never empty nor partial under its name
  const int second = open_host_file(d, "node", "start-1|", error);
  ::umask(before);
  ASSERT_GE(second, 0) << error;
  ASSERT_EQ(::write(first, "ab", 2), 2);
  ASSERT_EQ(::write(second, "cd", 2), 2);  // O_APPEND: after the first
  ASSERT_EQ(::write(first, "ef", 2), 2);   // the creator appends too, after the others
  ::close(first);
  ::close(second);
  struct stat s {};
  ASSERT_EQ(::stat((d + "/node").c_str(), &s), 0);
  EXPECT_EQ(s.st_mode & 07777, 0644u);  // not 0666 under umask 000
  EXPECT_EQ(read_text(d + "/node"), "start-0|start-1|abcdef");
  EXPECT_EQ(fs::directory_iterator(d)->path().filename(), "node");  // no temporary left
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(SeriesWriterTest, PlantedLinksAreRefused) {
  const std::string d = series_dir();
  const std::string target = dir_ + "/target";
  { std::ofstream(target) << "keep"; }
  fs::create_symlink(target, d + "/node");
  std::string error;
  EXPECT_EQ(open_host_file(d, "node", "x", error), -1);
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  fs::create_directory_symlink(d, dir_ + "/link.series");
  EXPECT_EQ(open_host_file(dir_ + "/link.series", "other", "x", error), -1);
  EXPECT_EQ(std::ifstream(target).rdbuf()->in_avail() >= 0, true);
  EXPECT_EQ(fs::file_size(target), 4u);
  EXPECT_EQ(create_series_directory(dir_ + "/link.series", error), Created::exists);
}

TEST_F(SeriesWriterTest, HostNameIsASafeFileName) {
  const std::string name = host_file_name();
  ASSERT_FALSE(name.empty());
  EXPECT_EQ(name.find('/'), std::string::npos);
  EXPECT_NE(name, "..");
}

TEST_F(SeriesWriterTest, PeriodicSnapshotsAddUpToTheFinalTotals) {
  std::atomic<uint64_t> messages{0};
  SeriesWriter* w = make_writer(messages, 20000, false);  // 20 ms
  w->start();
  for (int i = 0; i < 30; ++i) {
    messages += 3;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  w->finish({record(1, messages.load())}, {"collectives 2 world 0 0 0 0 9 72"});
  const WriterStats stats = w->stats();
  delete w;
  const ReadBack r = read_back(path_);
  EXPECT_TRUE(r.issues.empty());
  ASSERT_GE(r.frames.size(), 4u);  // start, some snapshots, final
  EXPECT_EQ(r.frames.front().header.kind, FrameKind::start);
  EXPECT_EQ(r.frames.back().header.kind, FrameKind::final);
  EXPECT_EQ(stats.frames + 1, r.frames.size());  // the start frame is open_host_file's
  uint64_t sum = 0, previous_interval = 0;
  std::vector<std::string> block;
  for (size_t i = 1; i < r.frames.size(); ++i) {
    const SnapshotDelta d = parse_snapshot_payload(r.payloads[i], r.frames[i].header.kind == FrameKind::final, 4, "t");
    for (const Record& rec : d.records) sum += rec.counters.messages;
    apply_annotation_changes(d, block);
    EXPECT_GT(r.frames[i].header.interval, previous_interval);
    previous_interval = r.frames[i].header.interval;
  }
  EXPECT_EQ(sum, 90u);
  EXPECT_EQ(block, std::vector<std::string>{"collectives 2 world 0 0 0 0 9 72"});
  EXPECT_NE(r.payloads.back().find("end finalize\n"), std::string::npos);
}

// Runs `child` in a forked process (returns its wait status).
template <typename Child>
int in_child(Child&& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    child();
    ::_exit(99);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// Waits until `path` holds at least `frames` frames (a child's start), at most 10 s.
void wait_for_frames(const std::string& path, size_t frames) {
  for (int i = 0; i < 1000; ++i) {
    std::error_code ec;
    if (fs::exists(path, ec) && read_back(path).frames.size() >= frames) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "no frames in " << path;
}

pid_t spawn(const std::function<void()>& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    child();
    ::_exit(99);
  }
  return pid;
}

TEST_F(SeriesWriterTest, SigtermAddsAFinalFrameThenTerminatesTheProcessAsBefore) {
  std::atomic<uint64_t> messages{7};
  SeriesWriter* w = make_writer(messages, 10000000, true);  // 10 s: no periodic snapshot
  const pid_t child = spawn([&] {
    w->start();
    for (;;) ::pause();
  });
  wait_for_frames(path_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the child's handler is in place
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  const ReadBack r = read_back(path_);
  ASSERT_EQ(r.frames.size(), 2u);
  EXPECT_EQ(r.frames[1].header.kind, FrameKind::final);
  EXPECT_EQ(r.payloads[1], "end signal 15\n1 external 7 56 4:7\nannotations 1 1\n0 collectives 2 world 0 0 0 0 1 8\n");
  w->abandon();
}

// Open MPI's daemon SIGKILLs every rank of its host as soon as the first one dies of its
// SIGTERM: a process with its final frame written waits for the host's others'
// (docs/time-series.md, "Signals"), then dies of the signal as before.
TEST_F(SeriesWriterTest, SigtermWaitsForTheFinalFramesOfTheHostsOtherProcesses) {
  std::atomic<uint64_t> messages{4};
  SeriesWriter* a = make_writer(messages, 10000000, true, 2, 2);
  SeriesWriter* b = make_writer(messages, 10000000, true, 3, 2);
  const pid_t first = spawn([&] {
    a->start();
    for (;;) ::pause();
  });
  const pid_t second = spawn([&] {
    b->start();
    for (;;) ::pause();
  });
  wait_for_frames(path_, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the children's handlers are in place
  ::kill(first, SIGTERM);
  wait_for_frames(path_, 3);  // the first one's final frame
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int status = 0;
  EXPECT_EQ(::waitpid(first, &status, WNOHANG), 0);  // still there: the second one has no final frame yet
  ::kill(second, SIGTERM);
  for (const pid_t child : {first, second}) {
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
  }
  const ReadBack r = read_back(path_);
  ASSERT_EQ(r.frames.size(), 4u);
  EXPECT_EQ(r.frames[2].header.kind, FrameKind::final);
  EXPECT_EQ(r.frames[2].header.rank, 2);
  EXPECT_EQ(r.frames[3].header.kind, FrameKind::final);
  EXPECT_EQ(r.frames[3].header.rank, 3);
  a->abandon();
  b->abandon();
}

// A host process that never writes its final frame (killed earlier, not signalled) holds
// the others back for 1 s at most.
TEST_F(SeriesWriterTest, SigtermWaitsForTheHostsOtherProcessesOneSecondAtMost) {
  std::atomic<uint64_t> messages{4};
  SeriesWriter* w = make_writer(messages, 10000000, true, 2, 2);
  const pid_t child = spawn([&] {
    w->start();
    for (;;) ::pause();
  });
  wait_for_frames(path_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto signalled = std::chrono::steady_clock::now();
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const auto waited = std::chrono::steady_clock::now() - signalled;
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_GE(waited, std::chrono::milliseconds(1000));  // never less (a lower bound only)
  const ReadBack r = read_back(path_);
  ASSERT_EQ(r.frames.size(), 2u);
  EXPECT_EQ(r.frames[1].header.kind, FrameKind::final);
  w->abandon();
}

// The process exits while it waits for the host's others: the SIGTERM still ends it, as
// it would have without us (never an exit status instead of the signal).
TEST_F(SeriesWriterTest, ExitWhileWaitingForTheHostStillEndsBySigterm) {
  std::atomic<uint64_t> messages{4};
  SeriesWriter* w = make_writer(messages, 10000000, true, 2, 2);
  const pid_t child = spawn([&] {
    w->start();
    ::pause();  // returns once our handler ran
    std::exit(5);
  });
  wait_for_frames(path_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  const ReadBack r = read_back(path_);
  ASSERT_GE(r.frames.size(), 2u);
  EXPECT_NE(r.payloads[1].find("end signal 15\n"), std::string::npos) << r.payloads[1];
  w->abandon();
}

TEST_F(SeriesWriterTest, SigtermStillReachesTheApplicationsOwnHandler) {
  std::atomic<uint64_t> messages{1};
  SeriesWriter* w = make_writer(messages, 10000000, true);
  const pid_t child = spawn([&] {
    std::signal(SIGTERM, [](int) { ::_exit(42); });
    w->start();
    for (;;) ::pause();
  });
  wait_for_frames(path_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 42);
  const ReadBack r = read_back(path_);
  ASSERT_EQ(r.frames.size(), 2u);
  EXPECT_NE(r.payloads[1].find("end signal 15\n"), std::string::npos);
  w->abandon();
}

TEST_F(SeriesWriterTest, IgnoredSigtermStaysIgnored) {
  std::atomic<uint64_t> messages{1};
  SeriesWriter* w = make_writer(messages, 10000000, true);
  const pid_t child = spawn([&] {
    std::signal(SIGTERM, SIG_IGN);
    w->start();
    for (;;) ::pause();
  });
  wait_for_frames(path_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(child, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, WNOHANG), 0);  // still running
  ::kill(child, SIGKILL);
  ::waitpid(child, &status, 0);
  EXPECT_EQ(read_back(path_).frames.size(), 1u);  // no final frame
  w->abandon();
}

TEST_F(SeriesWriterTest, ExitWithoutTheEndOfTheJobAddsAFinalFrame) {
  std::atomic<uint64_t> messages{3};
  SeriesWriter* w = make_writer(messages, 10000000, true);
  const int status = in_child([&] {
    w->start();
    std::exit(3);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const ReadBack r = read_back(path_);
  ASSERT_EQ(r.frames.size(), 2u);
  EXPECT_NE(r.payloads[1].find("end exit\n1 external 3 24 4:3\n"), std::string::npos);
  w->abandon();
}

TEST_F(SeriesWriterTest, FailedWriteIsFoldedIntoTheNextFrame) {
  std::atomic<uint64_t> messages{0};
  SeriesWriter* w = make_writer(messages, 10000000, false);
  // The file becomes unwritable: a read-only descriptor in its place.
  const int read_only = ::open(path_.c_str(), O_RDONLY);
  std::string warned;
  SeriesWriter::Options o;
  o.rank = 2;
  o.job_start_us = realtime_us();
  o.interval_us = 10000000;
  o.catch_sigterm = o.final_at_exit = false;
  SeriesWriter broken(
      read_only, path_, o,
      [&, storage = std::make_shared<Snapshot>()](TotalsView& into) {
        *storage = Snapshot{record(1, messages.load())};
        into = view_of(*storage);
      },
      [] { return std::vector<std::string>{}; }, [&](const std::string& m) { warned = m; });
  messages = 5;
  broken.finish({record(1, 5)}, {});
  EXPECT_EQ(broken.stats().failed_writes, 1u);
  EXPECT_NE(warned.find("cannot write a snapshot: Bad file descriptor"), std::string::npos) << warned;
  w->abandon();
  delete w;
}

}  // namespace
}  // namespace mpimon::series
