// The site log end to end (docs/site-deployment.md): only `mpimon_log_path` set, a plain
// job leaves one compressed log in the dated folder, with exact contents, owner and mode,
// and nothing in its working folder; the opt-out; missing and hostile folders cost one
// line and nothing else; two ordinary users on one log path; `mpimon index` and
// `mpimon jobs` on the real logs.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

#include "files/site_log.h"
#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::test;

namespace {

const std::string kExample = MPIMON_EXAMPLE;
const std::string kMpimon = MPIMON_BIN;
const std::string kUsers = MPIMON_SITE_USERS_SCRIPT;

// A log root as a site makes it: owned by root, 0755, with the dated folders.
fs::path new_log_root(const std::string& mk_log_dirs_options = "") {
  const fs::path root = new_test_folder();
  fs::permissions(root, fs::perms(0755));
  const JobResult made =
      run_shell(root, kMpimon + " admin mk-log-dirs " + shell_quote(root.string()) + " " + mk_log_dirs_options);
  EXPECT_EQ(made.exit_code, 0) << made.output;
  return root;
}

std::vector<fs::path> files_under(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder))
    if (!entry.is_directory()) files.push_back(entry.path());
  return files;
}

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

std::string site_annotation(const JobFile& file, const std::string& key) {
  std::string value;
  for (const JobAnnotation& a : file.annotations)
    if (a.keyword == "site" && !a.fields.empty() && a.fields[0] == key) {
      for (size_t i = 1; i < a.fields.size(); ++i) value += (i > 1 ? " " : "") + a.fields[i];
    }
  return value;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Lines of ours in a job's output ("mpimon: ..." at the start of a line).
size_t mpimon_lines(const std::string& output) { return count_of("\n" + output, "\nmpimon: "); }

// The persistent pattern (mpimon_example persistent): each rank sends 3 x 16 bytes to rank+1.
void expect_persistent_ring(const JobFile& file, int ranks) {
  ASSERT_EQ(file.header.world_size, ranks);
  size_t external = 0;
  for (const JobRecord& r : file.records) {
    if (r.category != Category::external) continue;
    ++external;
    EXPECT_EQ(r.destination, (r.source + 1) % ranks);
    EXPECT_EQ(r.counters.messages, 3u);
    EXPECT_EQ(r.counters.bytes, 48u);
  }
  EXPECT_EQ(external, static_cast<size_t>(ranks));
}

}  // namespace

TEST(SiteLog, OnlyTheSwitchLeavesOneLogAndNothingInTheWorkingFolder4Ranks) {
  const fs::path root = new_log_root();
  const JobResult job = run_job(4, {"--mca", "mpimon_log_path", root.string(), kExample, "persistent"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.output.find("mpimon:"), std::string::npos) << job.output;
  EXPECT_TRUE(fs::is_empty(job.folder)) << "the job's working folder must stay empty";
  const std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u);
  const fs::path& log = logs[0];

  // Name and folder: <root>/YYYY/MM/DD/<user>_<exe>_id<job id>-<pid>_<hhmmss>.mpimon
  const std::string text = read_dump_text(log.string());
  const JobFile file = parse_job_file(text, log.string());
  const std::string start = file.header.start_time;  // YYYY-MM-DDThh:mm:ssZ
  const std::string day = start.substr(0, 4) + "/" + start.substr(5, 2) + "/" + start.substr(8, 2);
  EXPECT_EQ(log.parent_path(), root / day);
  const std::string hhmmss = start.substr(11, 2) + start.substr(14, 2) + start.substr(17, 2);
  EXPECT_TRUE(std::regex_match(log.filename().string(),
                               std::regex("root_mpimon_example_id[0-9]+-[0-9]+_" + hhmmss + "\\.mpimon")))
      << log;

  // Owner, mode (no group policy: 0400), compressed.
  struct stat st {};
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0400u);
  std::ifstream raw(log, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(raw), std::istreambuf_iterator<char>()};
  EXPECT_TRUE(looks_gzipped(bytes));

  // Contents: the persistent sends exactly, the index fields.
  expect_persistent_ring(file, 4);
  EXPECT_EQ(file.header.enable_level, 2);
  EXPECT_EQ(site_annotation(file, "user"), "root");
  EXPECT_EQ(site_annotation(file, "executable"), "mpimon_example");
  EXPECT_EQ(site_annotation(file, "hosts"), "1");
  EXPECT_EQ(site_annotation(file, "host"), escape_name(this_host(), true) + " 0-3");
  EXPECT_EQ(job_program(file), "mpimon_example");
}

TEST(SiteLog, EnvironmentSwitchAndJobIdFromSlurm4Ranks) {
  const fs::path root = new_log_root();
  const fs::path folder = new_test_folder();
  const JobResult job =
      run_shell(folder, "OMPI_MCA_mpimon_log_path=" + shell_quote(root.string()) +
                            " SLURM_JOB_ID=4711 SLURM_STEP_ID=2 " + mpirun_command(4, {kExample, "persistent"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u) << job.output;
  EXPECT_TRUE(std::regex_match(logs[0].filename().string(),
                               std::regex("root_mpimon_example_id4711\\.2-[0-9]+_[0-9]{6}\\.mpimon")))
      << logs[0];
  const JobFile file = read_job_file(logs[0].string());
  expect_persistent_ring(file, 4);
  EXPECT_EQ(site_annotation(file, "job_id"), "4711.2");
}

TEST(SiteLog, NoneTurnsTheSiteDefaultOffForOneJob4Ranks) {
  const fs::path root = new_log_root();
  const fs::path folder = new_test_folder();
  const JobResult job =
      run_shell(folder, "OMPI_MCA_mpimon_log_path=" + shell_quote(root.string()) + " " +
                            mpirun_command(4, {"--mca", "mpimon_log_path", "none", kExample, "persistent"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(job.output.find("mpimon:"), std::string::npos) << job.output;
  EXPECT_TRUE(site_logs_under(root).empty());
  EXPECT_TRUE(fs::is_empty(folder));
}

TEST(SiteLog, AJobAskingForItsOwnFilesGetsThemToo4Ranks) {
  const fs::path root = new_log_root();
  const JobResult job = run_job(
      4, {"--mca", "mpimon_log_path", root.string(), "--mca", "pml_monitoring_enable", "2", "--mca",
          "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename", "prof", kExample, "persistent"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u);
  const JobFile own = read_job_file((job.folder / "mpimon-job.txt").string());
  const JobFile site = read_job_file(logs[0].string());
  ASSERT_EQ(own.records.size(), site.records.size());
  for (size_t i = 0; i < own.records.size(); ++i) {
    EXPECT_EQ(own.records[i].source, site.records[i].source);
    EXPECT_EQ(own.records[i].destination, site.records[i].destination);
    EXPECT_EQ(own.records[i].category, site.records[i].category);
    EXPECT_EQ(own.records[i].counters.bytes, site.records[i].counters.bytes);
    EXPECT_EQ(own.records[i].counters.messages, site.records[i].counters.messages);
  }
  EXPECT_TRUE(fs::exists(job.folder / "prof.0.prof"));
}

TEST(SiteLog, MissingDatedFolderIsOneLineAndExitZero4Ranks) {
  const fs::path root = new_test_folder();
  fs::permissions(root, fs::perms(0755));
  const JobResult job = run_job(4, {"--mca", "mpimon_log_path", root.string(), kExample, "persistent"});
  EXPECT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(mpimon_lines(job.output), 1u) << job.output;
  EXPECT_NE(job.output.find("mpimon: site log not written: " + root.string() +
                            "/20"),  // the year folder, whichever year it is
            std::string::npos)
      << job.output;
  EXPECT_NE(job.output.find(": No such file or directory (the dated folders are made ahead by `mpimon admin "
                            "mk-log-dirs`)\n"),
            std::string::npos)
      << job.output;
  EXPECT_TRUE(files_under(root).empty());
  EXPECT_TRUE(fs::is_empty(job.folder));
}

TEST(SiteLog, RelativePathIsOneLineAndNoLog4Ranks) {
  const JobResult job = run_job(4, {"--mca", "mpimon_log_path", "logs", kExample, "persistent"});
  EXPECT_EQ(job.exit_code, 0) << job.output;
  EXPECT_EQ(mpimon_lines(job.output), 1u) << job.output;
  EXPECT_NE(job.output.find("mpimon: mpimon_log_path 'logs' is not an absolute path (expected /<folder>, or none): "
                            "no site log\n"),
            std::string::npos)
      << job.output;
  EXPECT_TRUE(fs::is_empty(job.folder));
}

// A full file system under the log path: one line from rank 0, exit 0, no log, no temporary.
TEST(SiteLog, FullLogFolderIsOneLineAndExitZero4Ranks) {
  const auto job =
      run_on_full_disk("mkdir -m 0755 full/logs && " + kMpimon +
                       " admin mk-log-dirs \"$PWD/full/logs\" >/dev/null && OMPI_MCA_mpimon_log_path=\"$PWD/"
                       "full/logs\" " +
                       mpirun_command(4, {kExample, "ring", "reduce", "halo", "persistent"}));
  SKIP_WITHOUT_MOUNT_NAMESPACE(job);
  EXPECT_NE(job->output.find("exit code: 0\n"), std::string::npos) << job->output;
  EXPECT_EQ(mpimon_lines(job->output), 1u) << job->output;
  EXPECT_NE(job->output.find("mpimon: site log not written: "), std::string::npos) << job->output;
  EXPECT_NE(job->output.find("No space left on device"), std::string::npos) << job->output;
  ASSERT_TRUE(fs::exists(job->folder / "after" / "logs"));
  EXPECT_TRUE(files_under(job->folder / "after" / "logs").empty());  // no log, no temporary
}

// A day folder someone replaced: a symbolic link to a folder of theirs, a folder of another
// user, a shared folder without the sticky bit. Each: one line, exit 0, nothing written.
TEST(SiteLog, HostileDayFoldersAreRefused4Ranks) {
  const fs::path root = new_log_root();
  std::time_t now = std::time(nullptr);
  // The job starts now: today's folder, and tomorrow's in case the day turns meanwhile.
  std::vector<std::string> days = {site_log_day(now), site_log_day(now + 120)};
  const fs::path elsewhere = new_test_folder();
  struct Case {
    std::string name, expected;
    std::function<void(const fs::path&)> make;
  };
  const std::vector<Case> cases = {
      {"symlink", "not a folder (a symbolic link?)",
       [&](const fs::path& day) {
         fs::remove(day);
         fs::create_directory_symlink(elsewhere, day);
       }},
      {"other owner", "owned by uid 65534, neither root nor the log root's owner (uid 0)",
       [](const fs::path& day) { ASSERT_EQ(::chown(day.c_str(), 65534, 65534), 0); }},
      {"not sticky", "writable by group or others without the sticky bit",
       [](const fs::path& day) { fs::permissions(day, fs::perms(0777)); }},
  };
  for (const Case& c : cases) {
    for (const std::string& d : days) {
      const fs::path day = root / d;
      fs::remove(day);
      fs::create_directory(day);
      fs::permissions(day, fs::perms(01777));
      c.make(day);
    }
    const JobResult job = run_job(4, {"--mca", "mpimon_log_path", root.string(), kExample, "persistent"});
    EXPECT_EQ(job.exit_code, 0) << c.name << job.output;
    EXPECT_EQ(mpimon_lines(job.output), 1u) << c.name << job.output;
    EXPECT_NE(job.output.find("mpimon: site log not written: " + root.string() + "/"), std::string::npos)
        << c.name << job.output;
    EXPECT_NE(job.output.find(": " + c.expected + "\n"), std::string::npos) << c.name << job.output;
    EXPECT_TRUE(site_logs_under(root).empty()) << c.name;
    EXPECT_TRUE(fs::is_empty(elsewhere)) << c.name;
    EXPECT_TRUE(fs::is_empty(job.folder)) << c.name;
  }
}

TEST(SiteLog, GroupPolicyMakesLogsGroupReadable4Ranks) {
  const fs::path root = new_log_root("--group adm");
  const JobResult job = run_job(4, {"--mca", "mpimon_log_path", root.string(), kExample, "persistent"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(logs[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0440u);
  const group* adm = ::getgrnam("adm");
  ASSERT_NE(adm, nullptr);
  EXPECT_EQ(st.st_gid, adm->gr_gid);
  struct stat day {};
  ASSERT_EQ(::stat(logs[0].parent_path().c_str(), &day), 0);
  EXPECT_EQ(day.st_mode & 07777, 03777u);
  EXPECT_EQ(day.st_gid, adm->gr_gid);
}

// Two ordinary users on one log path: each log is its owner's, 0400; the other user can
// neither read it, nor replace it, nor plant the name of the first user's next log.
TEST(SiteLog, TwoOrdinaryUsersOnOneLogPath4Ranks) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run jobs as two ordinary users";
  const JobResult users = run_shell(fs::temp_directory_path(), kUsers);
  ASSERT_EQ(users.exit_code, 0) << users.output;
  const fs::path root = new_log_root();
  auto as_user = [&](const std::string& user, const std::string& command) {
    const fs::path folder = new_test_folder();
    const passwd* entry = ::getpwnam(user.c_str());
    EXPECT_NE(entry, nullptr);
    EXPECT_EQ(::chown(folder.c_str(), entry->pw_uid, entry->pw_gid), 0);
    return run_shell(folder, "runuser -u " + user + " -- env HOME=" + shell_quote(entry->pw_dir) + " USER=" + user +
                                 " sh -c " + shell_quote(command));
  };
  const std::string job = mpirun_command(
      4, {"--mca", "mpi_yield_when_idle", "1", "--mca", "mpimon_log_path", root.string(), kExample, "persistent"});
  const JobResult first = as_user("mpimon-user", job);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output.find("mpimon:"), std::string::npos) << first.output;
  std::vector<fs::path> logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 1u) << first.output;
  const fs::path log = logs[0];
  struct stat st {};
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::getpwnam("mpimon-user")->pw_uid);
  EXPECT_EQ(st.st_mode & 07777, 0400u);
  EXPECT_EQ(log.filename().string().rfind("mpimon-user_mpimon_example_id", 0), 0u) << log;
  expect_persistent_ring(read_job_file(log.string()), 4);

  // The second user: cannot read, remove, rename, overwrite or hard-link it away.
  const std::string q = shell_quote(log.string());
  const JobResult attacks = as_user("mpimon-user2", "cat " + q + " >/dev/null 2>&1 && echo READ; rm -f " + q +
                                                        " 2>/dev/null && echo REMOVED; mv " + q + " " + q +
                                                        ".x 2>/dev/null && echo RENAMED; (echo x > " + q +
                                                        ") 2>/dev/null && echo WRITTEN; ln " + q + " " + q +
                                                        ".link 2>/dev/null && echo LINKED; "
                                                        "echo done");
  EXPECT_EQ(attacks.output, "done\n");
  EXPECT_EQ(read_job_file(log.string()).records.size(), read_job_file(log.string()).records.size());
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::getpwnam("mpimon-user")->pw_uid);

  // The second user plants names in today's folder (the first user's next log's, with a
  // guessed pid) and a link to a file of theirs: the first user's next job still writes
  // its own new file, and nothing of the second user's changes.
  const fs::path day = log.parent_path();
  const JobResult plant =
      as_user("mpimon-user2", "echo mine > " + shell_quote((day / "planted").string()) + " && ln -s " +
                                  shell_quote((day / "planted").string()) + " " +
                                  shell_quote((day / "mpimon-user_mpimon_example.mpimon").string()));
  ASSERT_EQ(plant.exit_code, 0) << plant.output;
  const JobResult second = as_user("mpimon-user", job);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 2u);
  for (const fs::path& l : logs) {
    ASSERT_EQ(::lstat(l.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << l;
    EXPECT_EQ(st.st_uid, ::getpwnam("mpimon-user")->pw_uid);
  }
  EXPECT_EQ(read_text(day / "planted"), "mine\n");
  EXPECT_EQ(fs::read_symlink(day / "mpimon-user_mpimon_example.mpimon"), day / "planted");

  // The second user's own job lands beside, as theirs.
  const JobResult other = as_user("mpimon-user2", job);
  ASSERT_EQ(other.exit_code, 0) << other.output;
  logs = site_logs_under(root);
  ASSERT_EQ(logs.size(), 3u);
  size_t second_users = 0;
  for (const fs::path& l : logs) {
    ASSERT_EQ(::stat(l.c_str(), &st), 0);
    if (st.st_uid == ::getpwnam("mpimon-user2")->pw_uid) ++second_users;
  }
  EXPECT_EQ(second_users, 1u);

  // The index holds exactly their rows, by owner.
  const JobResult index = run_shell(root, kMpimon + " index " + shell_quote(root.string()));
  ASSERT_EQ(index.exit_code, 0) << index.output;
  EXPECT_NE(index.output.find(": 3 logs added or updated, 0 unchanged, 0 removed, 0 unreadable"), std::string::npos)
      << index.output;
  const JobResult mine =
      run_shell(root, kMpimon + " jobs " + shell_quote(root.string()) + " --user mpimon-user --no-commands");
  ASSERT_EQ(mine.exit_code, 0) << mine.output;
  EXPECT_EQ(count_of(mine.output, "\nmpimon-user "), 2u) << mine.output;
  EXPECT_EQ(count_of(mine.output, "mpimon-user2"), 0u) << mine.output;
}

// The index on real logs: one job on one host (no gain) indexed once; a second run of
// `mpimon index` changes nothing; `mpimon jobs` lists it with its bytes.
TEST(SiteLog, IndexAndJobsOnRealLogs4Ranks) {
  const fs::path root = new_log_root();
  ASSERT_EQ(run_job(4, {"--mca", "mpimon_log_path", root.string(), kExample, "persistent"}).exit_code, 0);
  ASSERT_EQ(run_job(4, {"--mca", "mpimon_log_path", root.string(), kExample, "ring"}).exit_code, 0);
  const JobResult index = run_shell(root, kMpimon + " index " + shell_quote(root.string()));
  ASSERT_EQ(index.exit_code, 0) << index.output;
  EXPECT_NE(index.output.find(root.string() + "/mpimon-index.sqlite: 2 logs added or updated, 0 unchanged, 0 removed, "
                                              "0 unreadable"),
            std::string::npos)
      << index.output;
  const JobResult again = run_shell(root, kMpimon + " index " + shell_quote(root.string()));
  EXPECT_NE(again.output.find(": 0 logs added or updated, 2 unchanged, 0 removed, 0 unreadable"), std::string::npos)
      << again.output;
  const JobResult jobs = run_shell(root, kMpimon + " jobs " + shell_quote(root.string()) + " --sort bytes");
  ASSERT_EQ(jobs.exit_code, 0) << jobs.output;
  EXPECT_EQ(count_of(jobs.output, "\nroot "), 2u) << jobs.output;
  // persistent: 4 x 48 bytes external, one host: no crossing, no gain.
  EXPECT_NE(jobs.output.find("192 B"), std::string::npos) << jobs.output;
  EXPECT_NE(jobs.output.find("one_host"), std::string::npos) << jobs.output;
  // sqlite3 reads it directly (the documented schema).
  const JobResult sql =
      run_shell(root, "sqlite3 " + shell_quote((root / "mpimon-index.sqlite").string()) +
                          " \"SELECT external_bytes, ranks, hosts FROM jobs ORDER BY external_bytes\"");
  if (sql.exit_code == 0) EXPECT_NE(sql.output.find("192|4|1\n"), std::string::npos) << sql.output;
}
