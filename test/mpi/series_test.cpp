// Monitoring over time: snapshots at a fixed interval (pml_monitoring_snapshot_interval)
// in <job file>.series, kept whatever happens to the job, read by the tools by the job
// file's name. Each test runs the 4-rank ring of series_patterns (10 messages per second
// per rank, 1 s snapshots) and ends it in one of the ways a job ends.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "formats/job_format.h"
#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/series_reader.h"

namespace mpimon::test {
namespace {

namespace fs = std::filesystem;

// The ring under mpirun with our components, 1 s snapshots; `end` as series_patterns takes it.
std::string ring_command(double seconds, const std::string& end = "finalize", const std::string& extra = "",
                         const std::string& mode = "ring") {
  return component_environment(Components::ours) +
         " " MPIRUN_EXECUTABLE
         " -np 4 --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 --mca pml_monitoring_snapshot_interval 1 " +
         extra + " " MPIMON_SERIES_PATTERNS " " + mode + " " + std::to_string(seconds) + " " + end;
}

// Shell: wait until rank `rank` logged `sends` sends (at most 60 s).
std::string wait_for_sends(int rank, int sends) {
  return "for i in $(seq 600); do [ \"$(cat sent." + std::to_string(rank) + " 2>/dev/null | wc -l)\" -ge " +
         std::to_string(sends) + " ] && break; sleep 0.1; done; ";
}

size_t lines_of(const fs::path& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// The sends rank `rank` logged (sent.<rank>: "<n> <microseconds since the epoch>") before
// `time_us`: each was counted before it was logged.
size_t sends_before(const fs::path& folder, int rank, int64_t time_us) {
  std::ifstream in(folder / ("sent." + std::to_string(rank)));
  size_t n = 0;
  long long count = 0, when = 0;
  while (in >> count >> when)
    if (when < time_us) ++n;
  return n;
}

// Shell: the time now, in microseconds since the epoch, into `file` (before a signal).
std::string note_time(const std::string& file) { return "date +%s%6N > " + file + "; "; }

int64_t noted_time(const fs::path& file) {
  std::ifstream in(file);
  long long t = 0;
  in >> t;
  return t;
}

// The series read by our reader: what the tools show, as a job file.
struct SeriesRead {
  series::SeriesInfo info;
  JobFile job;
};
SeriesRead read_series_of(const fs::path& folder) {
  SeriesRead r;
  series::SeriesTotals totals;
  r.info = series::read_series(folder.string(), [&](const series::SeriesFrame& f) { totals.add(f); });
  r.job = parse_job_file(totals.job_file_text(r.info), "series");
  return r;
}

uint64_t messages(const JobFile& job, int32_t source, int32_t destination, Category category = Category::external) {
  for (const JobRecord& r : job.records)
    if (r.source == source && r.destination == destination && r.category == category) return r.counters.messages;
  return 0;
}

// "<row> <column> <value>" of `mpimon matrix --format mtx` (1-based), for source -> destination.
uint64_t mtx_value(const std::string& output, int32_t source, int32_t destination) {
  const std::string prefix = "\n" + std::to_string(source + 1) + " " + std::to_string(destination + 1) + " ";
  const size_t at = output.find(prefix);
  return at == std::string::npos ? 0 : std::stoull(output.substr(at + prefix.size()));
}

// A shell script run in the job's folder as a whole (run_shell prefixes "cd <folder> &&",
// which would otherwise bind to the first command only).
JobResult run_script(const fs::path& folder, const std::string& script) {
  return run_shell(folder, "{ " + script + "; }");
}

JobResult mpimon(const fs::path& folder, const std::string& arguments) {
  return run_shell(folder, std::string(MPIMON_BIN) + " " + arguments);
}

std::set<std::string> entries_of(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.insert(e.path().filename().string());
  return names;
}

// Ranks still running after mpirun died (mpirun SIGKILLed): ended by their pids.
void kill_leftover_ranks(const fs::path& folder) {
  for (int r = 0; r < 4; ++r) {
    std::ifstream in(folder / ("pid." + std::to_string(r)));
    long pid = 0;
    if (in >> pid && pid > 1) ::kill(static_cast<pid_t>(pid), SIGKILL);
  }
}

// (a) One rank SIGKILLed after about 5 s: the tools read at least 4 s of its traffic.
TEST(Series, SigkilledRankKeepsItsTrafficUpToItsLastSnapshot) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_script(folder, ring_command(60) + " & m=$!; " + wait_for_sends(2, 50) +
                                               "kill -KILL $(cat pid.2); wait $m; echo \"mpirun exit $?\"");
  EXPECT_NE(job.output.find("mpirun exit"), std::string::npos) << job.output;
  EXPECT_FALSE(fs::exists(folder / "mpimon-job.txt"));  // the job did not finish
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  EXPECT_FALSE(s.info.finished());
  EXPECT_GE(messages(s.job, 2, 3), 40u) << "rank 2 logged " << lines_of(folder / "sent.2") << " sends";
  EXPECT_LE(messages(s.job, 2, 3), lines_of(folder / "sent.2") + 1);
  EXPECT_EQ(s.info.ranks.at(2).end_reason, "");  // killed: no final frame

  // The tools, by the job file's name: the totals up to the last snapshot, and the news.
  const JobResult matrix = mpimon(folder, "matrix mpimon-job.txt --format mtx --category external");
  ASSERT_EQ(matrix.exit_code, 0) << matrix.output;
  EXPECT_NE(matrix.output.find("the job did not finish"), std::string::npos) << matrix.output;
  EXPECT_NE(matrix.output.find("rank 2: no final snapshot"), std::string::npos) << matrix.output;
  EXPECT_EQ(mtx_value(matrix.output, 2, 3), messages(s.job, 2, 3)) << matrix.output;
  const JobResult timeline = mpimon(folder, "show --timeline mpimon-job.txt --svg timeline.svg");
  ASSERT_EQ(timeline.exit_code, 0) << timeline.output;
  EXPECT_NE(timeline.output.find("external"), std::string::npos) << timeline.output;
  EXPECT_NE(read_text(folder / "timeline.svg").find("<polyline"), std::string::npos);
  const JobResult report = mpimon(folder, "report mpimon-job.txt -o report.html");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(read_text(folder / "report.html").find("did not finish"), std::string::npos);
}

// Every rank's final frame, written after a SIGTERM, holds every message the rank had sent
// before the signal (and before the frame), at most one more (counted, not yet logged).
void expect_every_message_up_to_the_final_frame(const fs::path& folder, const SeriesRead& s, int64_t signalled_us) {
  for (int r = 0; r < 4; ++r) {
    const series::RankProgress& rank = s.info.ranks.at(r);
    EXPECT_EQ(rank.end_reason, "signal 15") << "rank " << r << ": " << s.info.describe_end();
    const uint64_t kept = messages(s.job, r, (r + 1) % 4);
    EXPECT_GE(kept, sends_before(folder, r, signalled_us)) << "rank " << r;
    EXPECT_GE(kept, sends_before(folder, r, rank.last_time_us)) << "rank " << r;
    EXPECT_LE(kept, lines_of(folder / ("sent." + std::to_string(r))) + 1) << "rank " << r;
  }
  EXPECT_NE(s.info.describe_end().find("SIGTERM"), std::string::npos) << s.info.describe_end();
}

// (b) mpirun SIGTERMed (a batch system's time limit, Ctrl-C), Open MPI's defaults: every
// rank keeps every message it had sent. (mpirun's daemon gives the ranks 1 s between its
// SIGTERM and its SIGKILL, cut short by the first rank that dies: docs/time-series.md, "Signals".)
TEST(Series, SigtermedMpirunKeepsEveryMessageRankZeroSent) {
  const fs::path folder = new_test_folder();
  const JobResult job =
      run_script(folder, ring_command(60) + " & m=$!; " + wait_for_sends(0, 30) + std::string(MPIMON_BIN) +
                             " matrix mpimon-job.txt --format mtx > running.txt 2>&1; " + note_time("signalled") +
                             "kill -TERM $m; wait $m; echo \"mpirun exit $?\"");
  EXPECT_NE(job.output.find("mpirun exit"), std::string::npos) << job.output;
  // While it ran, the tools read it too.
  const std::string running = read_text(folder / "running.txt");
  EXPECT_NE(running.find("did not finish"), std::string::npos) << running;
  EXPECT_GT(mtx_value(running, 0, 1), 0u) << running;

  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  expect_every_message_up_to_the_final_frame(folder, s, noted_time(folder / "signalled"));
}

// The same with a long grace (the sleep Open MPI cuts short is then 5 s).
TEST(Series, SigtermedMpirunWithALongGraceKeepsEveryMessage) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_script(folder, ring_command(60, "finalize", "--mca odls_base_sigkill_timeout 5") +
                                               " & m=$!; " + wait_for_sends(0, 30) + note_time("signalled") +
                                               "kill -TERM $m; wait $m; echo \"mpirun exit $?\"");
  EXPECT_NE(job.output.find("mpirun exit"), std::string::npos) << job.output;
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  expect_every_message_up_to_the_final_frame(folder, s, noted_time(folder / "signalled"));
}

// A batch system's time limit signalling the ranks themselves (Slurm: SIGTERM to every
// process of the step, SIGKILL KillWait later; 1 s here): every rank keeps every message.
TEST(Series, SigtermedRanksKeepEveryMessageWithOneSecondBeforeSigkill) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_script(folder, ring_command(60) + " & m=$!; " + wait_for_sends(0, 30) +
                                               "ranks=$(cat pid.0 pid.1 pid.2 pid.3); " + note_time("signalled") +
                                               "kill -TERM $ranks; sleep 1; kill -KILL $ranks 2>/dev/null; wait $m; " +
                                               "echo \"mpirun exit $?\"");
  EXPECT_NE(job.output.find("mpirun exit"), std::string::npos) << job.output;
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  expect_every_message_up_to_the_final_frame(folder, s, noted_time(folder / "signalled"));
}

// SIGKILL 0.2 s after SIGTERM. What is kept: every snapshot up to the signal (the periodic
// ones, at most one interval old), and each final frame written within the 0.2 s
// (milliseconds per rank, docs/time-series.md "Signals"): a rank with one keeps every message up to it,
// a rank without one every message up to its last periodic snapshot, and the tools say
// which rank has no final snapshot. Never more than was sent.
TEST(Series, SigkillSoonAfterSigtermKeepsTheSnapshotsAndTheFinalFramesWritten) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_script(
      folder, ring_command(60) + " & m=$!; " + wait_for_sends(0, 30) + "ranks=$(cat pid.0 pid.1 pid.2 pid.3); " +
                  note_time("signalled") + "kill -TERM $ranks; sleep 0.2; kill -KILL $ranks 2>/dev/null; wait $m; " +
                  "echo \"mpirun exit $?\"");
  EXPECT_NE(job.output.find("mpirun exit"), std::string::npos) << job.output;
  const int64_t signalled = noted_time(folder / "signalled");
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  const JobResult matrix = mpimon(folder, "matrix mpimon-job.txt --format mtx --category external");
  ASSERT_EQ(matrix.exit_code, 0) << matrix.output;
  int finals = 0;
  for (int r = 0; r < 4; ++r) {
    const series::RankProgress& rank = s.info.ranks.at(r);
    const uint64_t kept = messages(s.job, r, (r + 1) % 4);
    EXPECT_EQ(mtx_value(matrix.output, r, (r + 1) % 4), kept) << matrix.output;
    EXPECT_GE(kept, sends_before(folder, r, rank.last_time_us)) << "rank " << r;
    EXPECT_LE(kept, lines_of(folder / ("sent." + std::to_string(r))) + 1) << "rank " << r;
    EXPECT_GE(rank.last_time_us, signalled - 2 * 1000000) << "rank " << r;  // snapshots ran up to the signal
    if (rank.end_reason == "signal 15") {
      ++finals;
      EXPECT_GE(kept, sends_before(folder, r, signalled)) << "rank " << r;
    } else {
      EXPECT_EQ(rank.end_reason, "") << "rank " << r;
      EXPECT_NE(matrix.output.find("no final snapshot"), std::string::npos) << matrix.output;
    }
  }
  std::cout << "ranks with a final frame, SIGKILL 0.2 s after SIGTERM: " << finals << " of 4\n";
}

// (c) MPI_Abort: the aborting rank's snapshots up to its last interval, the others' final ones.
TEST(Series, MpiAbortKeepsEveryRanksSnapshots) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_shell(folder, ring_command(3.5, "abort", "--mca odls_base_sigkill_timeout 5"));
  EXPECT_NE(job.exit_code, 0) << job.output;
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  EXPECT_FALSE(s.info.finished());
  EXPECT_GE(messages(s.job, 1, 2), 20u);  // rank 1 aborted after 35 sends: at least 2 s of them
  EXPECT_GE(s.info.ranks.at(1).last_interval, 2u);
  for (int r : {0, 2, 3}) EXPECT_EQ(s.info.ranks.at(r).end_reason, "signal 15") << "rank " << r;
  for (int r : {0, 2, 3}) EXPECT_EQ(messages(s.job, r, (r + 1) % 4), 35u) << "rank " << r;
}

// (c) A segfaulting rank.
TEST(Series, SegfaultingRankKeepsItsSnapshots) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_shell(folder, ring_command(3.5, "segfault", "--mca odls_base_sigkill_timeout 5"));
  EXPECT_NE(job.exit_code, 0) << job.output;
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  EXPECT_GE(messages(s.job, 2, 3), 20u);
  EXPECT_EQ(s.info.ranks.at(2).end_reason, "");
  for (int r : {0, 1, 3}) EXPECT_EQ(messages(s.job, r, (r + 1) % 4), 35u) << "rank " << r;
  const JobResult matrix = mpimon(folder, "matrix mpimon-job.txt");
  EXPECT_EQ(matrix.exit_code, 0) << matrix.output;
  EXPECT_NE(matrix.output.find("rank 2: no final snapshot"), std::string::npos) << matrix.output;
}

// mpirun SIGKILLed: its ranks run on, orphaned, and their snapshots with them.
TEST(Series, SigkilledMpirunLeavesAReadableSeries) {
  const fs::path folder = new_test_folder();
  run_script(folder, ring_command(60) + " & m=$!; " + wait_for_sends(0, 25) + "kill -KILL $m; wait $m; sleep 1.5");
  kill_leftover_ranks(folder);
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  EXPECT_FALSE(s.info.finished());
  for (int r = 0; r < 4; ++r) EXPECT_GE(messages(s.job, r, (r + 1) % 4), 20u) << "rank " << r;
}

// (e) A normal finish: the same job file as without snapshots, its series beside it,
// summing to exactly its totals; nothing else left behind.
TEST(Series, NormalFinishSeriesEqualsTheJobFile) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_shell(folder, ring_command(3.2));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.output.find("mpimon:"), std::string::npos) << job.output;  // no warning
  const JobFile file = read_job_file((folder / "mpimon-job.txt").string());
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  EXPECT_TRUE(s.info.finished()) << s.info.describe_end();
  EXPECT_TRUE(s.info.notes.empty());
  ASSERT_EQ(s.job.records.size(), file.records.size());
  for (size_t i = 0; i < file.records.size(); ++i) {
    const JobRecord &a = file.records[i], &b = s.job.records[i];
    EXPECT_EQ(std::tie(a.source, a.destination, a.category), std::tie(b.source, b.destination, b.category));
    EXPECT_EQ(a.counters.messages, b.counters.messages);
    EXPECT_EQ(a.counters.bytes, b.counters.bytes);
    for (int k = 0; k < kHistogramBuckets; ++k) EXPECT_EQ(a.counters.histogram[k], b.counters.histogram[k]);
  }
  EXPECT_EQ(messages(file, 0, 1), 32u);
  EXPECT_GT(messages(file, 0, 1, Category::coll), 0u);
  // The annotations (collective classes) too; the job file also names its series and its program.
  std::multiset<std::string> in_file, in_series;
  for (const JobAnnotation& a : file.annotations) {
    std::string line = a.keyword;
    for (const std::string& f : a.fields) line += " " + f;
    if (a.keyword == "series")
      EXPECT_EQ(line, "series mpimon-job.txt.series");
    else if (a.keyword == "program")
      EXPECT_EQ(line, "program series_patterns");
    else
      in_file.insert(line);
  }
  for (const JobAnnotation& a : s.job.annotations) {
    std::string line = a.keyword;
    for (const std::string& f : a.fields) line += " " + f;
    in_series.insert(line);
  }
  EXPECT_EQ(in_file, in_series);
  EXPECT_FALSE(in_file.empty());
  // Nothing else: the job file, its series (one file for this one host), the ring's logs.
  const std::set<std::string> expected{
      "mpimon-job.txt", "mpimon-job.txt.series", "pid.0", "pid.1", "pid.2", "pid.3", "sent.0", "sent.1", "sent.2",
      "sent.3"};
  EXPECT_EQ(entries_of(folder), expected);
  const std::set<std::string> hosts = entries_of(folder / "mpimon-job.txt.series");
  ASSERT_EQ(hosts.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat((folder / "mpimon-job.txt.series" / *hosts.begin()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  // The tools on the finished job: its own totals; the time range from its series.
  const JobResult range = mpimon(folder, "matrix mpimon-job.txt --from 1 --to 2 --format mtx --category external");
  ASSERT_EQ(range.exit_code, 0) << range.output;
  EXPECT_GE(mtx_value(range.output, 0, 1), 8u) << range.output;  // the second second: about 10
  EXPECT_LE(mtx_value(range.output, 0, 1), 12u) << range.output;
  EXPECT_EQ(range.output.find("did not finish"), std::string::npos) << range.output;
}

// (d) A torn last record: detected and dropped, never misread.
TEST(Series, TornLastRecordIsDroppedNeverMisread) {
  const fs::path folder = new_test_folder();
  ASSERT_EQ(run_shell(folder, ring_command(2.2)).exit_code, 0);
  const fs::path series = folder / "mpimon-job.txt.series";
  const fs::path host = series / *entries_of(series).begin();
  // Cut the file in the middle of its last frame (a process killed while writing it).
  const std::string text = read_text(host);
  const size_t last = text.rfind("@mpimon ");
  ASSERT_NE(last, std::string::npos);
  auto rewrite = [&](const std::string& content) {
    std::ofstream(host, std::ios::binary | std::ios::trunc) << content;
  };
  rewrite(text.substr(0, last));
  const SeriesRead whole = read_series_of(series);  // the file without its last frame
  rewrite(text.substr(0, last + (text.size() - last) / 2));
  const SeriesRead torn = read_series_of(series);
  ASSERT_EQ(torn.info.notes.size(), 1u);
  EXPECT_NE(torn.info.notes[0].find("torn write"), std::string::npos) << torn.info.notes[0];
  ASSERT_EQ(torn.job.records.size(), whole.job.records.size());
  for (size_t i = 0; i < whole.job.records.size(); ++i) {
    EXPECT_EQ(torn.job.records[i].counters.messages, whole.job.records[i].counters.messages);
    EXPECT_EQ(torn.job.records[i].counters.bytes, whole.job.records[i].counters.bytes);
  }
  const JobResult matrix = mpimon(folder, "matrix mpimon-job.txt.series --format mtx");
  ASSERT_EQ(matrix.exit_code, 0) << matrix.output;
  EXPECT_NE(matrix.output.find("torn write"), std::string::npos) << matrix.output;
  EXPECT_NE(matrix.output.find("did not finish"), std::string::npos) << matrix.output;  // a final frame lost

  // A frame whose checksum holds but whose content is wrong (a frame after rank 0's end):
  // an error naming the file and the frame's offset, exit status 2.
  rewrite(text + series::encode_frame({series::FrameKind::snapshot, 0, 99, 1}, "1 external 1 8 4:1\n"));
  const JobResult hostile = mpimon(folder, "matrix mpimon-job.txt.series");
  EXPECT_EQ(hostile.exit_code, 2) << hostile.output;
  EXPECT_NE(hostile.output.find("mpimon-job.txt.series/" + host.filename().string() + ":" +
                                std::to_string(text.size()) + ": expected no frame after rank 0's end"),
            std::string::npos)
      << hostile.output;
}

// MPI_THREAD_MULTIPLE: 4 threads per rank sending while snapshots are taken; the series
// adds up to the job file exactly.
TEST(Series, ThreadMultipleSeriesAddsUpToTheJobFile) {
  const fs::path folder = new_test_folder();
  const JobResult job = run_shell(
      folder,
      component_environment(Components::ours) +
          " " MPIRUN_EXECUTABLE
          " -np 4 --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 --mca pml_monitoring_snapshot_interval "
          "0.05 " MPIMON_SERIES_PATTERNS " threads 2");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobFile file = read_job_file((folder / "mpimon-job.txt").string());
  const SeriesRead s = read_series_of(folder / "mpimon-job.txt.series");
  EXPECT_TRUE(s.info.finished());
  uint64_t snapshots = 0;
  for (const auto& [rank, progress] : s.info.ranks) snapshots += progress.frames;
  EXPECT_GT(snapshots, 8u);  // snapshots were taken while the threads sent
  ASSERT_EQ(s.job.records.size(), file.records.size());
  for (size_t i = 0; i < file.records.size(); ++i) {
    EXPECT_EQ(file.records[i].counters.messages, s.job.records[i].counters.messages) << i;
    EXPECT_EQ(file.records[i].counters.bytes, s.job.records[i].counters.bytes) << i;
  }
  EXPECT_GT(messages(file, 0, 1), 100u);
}

TEST(Series, IntervalIsValidatedLikeTheOtherParameters) {
  const fs::path folder = new_test_folder();
  const std::string run =
      component_environment(Components::ours) + " " MPIRUN_EXECUTABLE " -np 2 --mca pml_monitoring_enable 2 ";
  const JobResult bad = run_shell(folder, run + "--mca pml_monitoring_snapshot_interval 1e3 " MPIMON_EXAMPLE " ring");
  ASSERT_EQ(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("mpimon: invalid value '1e3' for MCA parameter pml_monitoring_snapshot_interval (valid: 0 "
                            "off, or seconds from 0.01 to 86400, fractions allowed (e.g. 0.5)); using 10"),
            std::string::npos)
      << bad.output;
  size_t warnings = 0;
  for (size_t at = 0; (at = bad.output.find("invalid value", at)) != std::string::npos; ++at) ++warnings;
  EXPECT_EQ(warnings, 1u) << bad.output;                            // once per job
  EXPECT_TRUE(fs::is_directory(folder / "mpimon-job.txt.series"));  // the default: on

  const fs::path off = new_test_folder();
  ASSERT_EQ(run_shell(off, run + "--mca pml_monitoring_snapshot_interval 0 " MPIMON_EXAMPLE " ring").exit_code, 0);
  EXPECT_TRUE(fs::exists(off / "mpimon-job.txt"));
  EXPECT_FALSE(fs::exists(off / "mpimon-job.txt.series"));
}

// A series left by an earlier job is never appended to: the next job takes the next name,
// for its series and its job file alike.
TEST(Series, EarlierSeriesIsNeverReused) {
  const fs::path folder = new_test_folder();
  fs::create_directory(folder / "mpimon-job.txt.series");  // an earlier job that died
  ASSERT_EQ(run_shell(folder, ring_command(1.1)).exit_code, 0);
  EXPECT_TRUE(fs::is_empty(folder / "mpimon-job.txt.series"));
  EXPECT_FALSE(fs::exists(folder / "mpimon-job.txt"));
  const JobFile file = read_job_file((folder / "mpimon-job.txt.1").string());
  bool named = false;
  for (const JobAnnotation& a : file.annotations)
    named = named || (a.keyword == "series" && a.fields == std::vector<std::string>{"mpimon-job.txt.1.series"});
  EXPECT_TRUE(named);
  EXPECT_TRUE(read_series_of(folder / "mpimon-job.txt.1.series").info.finished());
}

// One run number for the whole run, series included: an earlier job file J and an earlier
// run's .prof file of number 1 move this run to number 2, decided at MPI_Init (where the
// series must be named) and kept by the end-of-job files; nothing earlier is touched.
TEST(Series, RunNumberIsTheSameForTheSeriesTheJobFileAndTheProfFiles) {
  const fs::path folder = new_test_folder();
  std::ofstream(folder / "mpimon-job.txt") << "earlier job\n";
  std::ofstream(folder / "prof.1.3.prof") << "earlier run\n";
  const JobResult job = run_shell(
      folder, ring_command(1.1, "finalize", "--mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename prof"));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("this run's time series is mpimon-job.txt.2.series, its job file will be mpimon-job.txt.2"),
            std::string::npos)
      << job.output;
  EXPECT_EQ(read_text(folder / "mpimon-job.txt"), "earlier job\n");
  EXPECT_EQ(read_text(folder / "prof.1.3.prof"), "earlier run\n");
  EXPECT_FALSE(fs::exists(folder / "mpimon-job.txt.1"));
  EXPECT_FALSE(fs::exists(folder / "mpimon-job.txt.1.series"));
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(fs::exists(folder / ("prof.2." + std::to_string(r) + ".prof"))) << r;
  const JobFile file = read_job_file((folder / "mpimon-job.txt.2").string());
  bool named = false;
  for (const JobAnnotation& a : file.annotations)
    named = named || (a.keyword == "series" && a.fields == std::vector<std::string>{"mpimon-job.txt.2.series"});
  EXPECT_TRUE(named);
  EXPECT_TRUE(read_series_of(folder / "mpimon-job.txt.2.series").info.finished());
}

}  // namespace
}  // namespace mpimon::test
