// files/site_log.h: the site log's name, job id, folder trust rule, dated folder opening,
// compression and publication.
#include "files/site_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "readers/format_error.h"
#include "readers/prof_reader.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace mpimon;

namespace {

std::function<const char*(const char*)> environment(std::map<std::string, std::string> values) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST(SiteLogRoot, NoneAndEmptyMeanOff) {
  std::string problem;
  EXPECT_EQ(site_log_root("", problem), std::string());
  EXPECT_EQ(site_log_root("none", problem), std::string());
  EXPECT_TRUE(problem.empty());
}

TEST(SiteLogRoot, TrailingSlashesDropped) {
  std::string problem;
  EXPECT_EQ(site_log_root("/var/log/mpimon//", problem), std::string("/var/log/mpimon"));
  EXPECT_EQ(site_log_root("/", problem), std::string("/"));
}

TEST(SiteLogRoot, RelativePathRefusedWithOneLine) {
  std::string problem;
  EXPECT_EQ(site_log_root("logs", problem), std::nullopt);
  EXPECT_EQ(problem, "mpimon_log_path 'logs' is not an absolute path (expected /<folder>, or none): no site log");
}

TEST(SiteJobId, SlurmJobWithStep) {
  EXPECT_EQ(site_job_id(environment({{"SLURM_JOB_ID", "123"}, {"SLURM_STEP_ID", "4"}, {"PBS_JOBID", "9"}}), 77),
            "123.4");
  EXPECT_EQ(site_job_id(environment({{"SLURM_JOB_ID", "123"}}), 77), "123");
}

TEST(SiteJobId, OtherBatchSystemsInOrder) {
  EXPECT_EQ(site_job_id(environment({{"PBS_JOBID", "55.server"}, {"LSB_JOBID", "8"}}), 1), "55.server");
  EXPECT_EQ(site_job_id(environment({{"LSB_JOBID", "8"}, {"FLUX_JOB_ID", "f"}}), 1), "8");
  EXPECT_EQ(site_job_id(environment({{"FLUX_JOB_ID", "fABC"}}), 1), "fABC");
}

TEST(SiteJobId, LauncherPidWithoutBatchSystem) { EXPECT_EQ(site_job_id(environment({}), 4242), "4242"); }

TEST(SiteJobId, SeparatorsAndSlashesBecomeUnderscores) {
  EXPECT_EQ(site_job_id(environment({{"PBS_JOBID", "1/../x_y z"}}), 1), "1_.._x_y_z");
}

TEST(SiteLogName, DayAndFileNameFromUtcStart) {
  SiteLogName name{"alice", "lmp", "123.0", 4567, 1796083200 + 3600 * 13 + 60 * 5 + 9};  // 2026-12-01 13:05:09Z
  EXPECT_EQ(site_log_day(name.start_time), "2026/12/01");
  EXPECT_EQ(site_log_file_name(name), "alice_lmp_id123.0-4567_130509.mpimon");
  EXPECT_EQ(site_log_file_name(name, "0badcafe"), "alice_lmp_id123.0-4567_130509-0badcafe.mpimon");
}

TEST(SiteLogName, FieldsNeverAddSeparatorsNorFolders) {
  SiteLogName name{"a_b", "../my app", "", 1, 0};
  EXPECT_EQ(site_log_file_name(name), "a_b_.._my_app_idunknown-1_000000.mpimon");
  EXPECT_EQ(site_name_field(".."), "unknown");
}

TEST(SiteFolderProblem, RootOrOwnerAndStickyWhenShared) {
  const uid_t owner = 1000;
  EXPECT_EQ(site_folder_problem(0, S_IFDIR | 0755, owner), "");
  EXPECT_EQ(site_folder_problem(owner, S_IFDIR | 0755, owner), "");
  EXPECT_EQ(site_folder_problem(0, S_IFDIR | 01777, owner), "");
  EXPECT_EQ(site_folder_problem(0, S_IFDIR | 0777, owner), "writable by group or others without the sticky bit");
  EXPECT_EQ(site_folder_problem(0, S_IFDIR | 0775, owner), "writable by group or others without the sticky bit");
  EXPECT_EQ(site_folder_problem(1001, S_IFDIR | 0755, owner),
            "owned by uid 1001, neither root nor the log root's owner (uid 1000)");
  EXPECT_EQ(site_folder_problem(0, S_IFREG | 0644, owner), "not a folder");
}

TEST(SiteLogMode, GroupPolicy) {
  EXPECT_EQ(site_log_mode(false), 0400u);
  EXPECT_EQ(site_log_mode(true), 0440u);
}

TEST(SiteLogGzip, RoundTripAndZcatCompatibleMagic) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i) + " 1 external 3 48 5:3\n";
  const std::string packed = gzip_compress(text);
  EXPECT_TRUE(looks_gzipped(packed));
  EXPECT_LT(packed.size(), text.size() / 4);
  EXPECT_EQ(gzip_decompress(packed), text);
  EXPECT_EQ(gzip_decompress(gzip_compress("")), "");
}

TEST(SiteLogGzip, TruncatedCorruptAndTrailingDataRefused) {
  const std::string packed = gzip_compress(std::string(10000, 'x') + "end\n");
  EXPECT_THROW(gzip_decompress(packed.substr(0, packed.size() - 5)), std::runtime_error);
  std::string corrupt = packed;
  corrupt[12] ^= 0x55;
  EXPECT_THROW(gzip_decompress(corrupt), std::runtime_error);
  EXPECT_THROW(gzip_decompress(packed + "junk"), std::runtime_error);
  try {
    gzip_decompress(packed.substr(0, packed.size() - 5));
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "truncated gzip data");
  }
}

TEST(SiteLogGzip, ExpansionLimitHolds) {
  const std::string packed = gzip_compress(std::string(1 << 20, 'a'));
  EXPECT_THROW(gzip_decompress(packed, 1000), std::runtime_error);
}

TEST(SiteAnnotations, HostsInOrderOfFirstRankWithRanges) {
  SiteLogName name{"alice", "my app", "12", 99, 0};
  EXPECT_EQ(format_site_annotations(name, {"n1", "n1", "n2", "n2", "n1"}),
            "site user alice\nsite executable my%20app\nsite job_id 12\nsite pid 99\nsite hosts 2\n"
            "site host n1 0-1,4\nsite host n2 2-3\n");
}

class SiteDayFolder : public mpimon::test::TempDirTest {
 protected:
  void make_days(mode_t mode) {
    for (const char* d : {"/2026", "/2026/11", "/2026/11/29"}) {
      fs::create_directory(dir_ + d);
      ::chmod((dir_ + d).c_str(), mode);
    }
  }
};

TEST_F(SiteDayFolder, OpensAnOrdinaryTree) {
  make_days(0755);
  bool group = true;
  std::string problem;
  const int fd = open_site_day_folder(dir_, "2026/11/29", group, problem);
  ASSERT_GE(fd, 0) << problem;
  EXPECT_FALSE(group);
  ::close(fd);
}

TEST_F(SiteDayFolder, SetGroupIdMeansGroupReadable) {
  make_days(0755);
  ::chmod((dir_ + "/2026/11/29").c_str(), 02755 | 01000);
  bool group = false;
  std::string problem;
  const int fd = open_site_day_folder(dir_, "2026/11/29", group, problem);
  ASSERT_GE(fd, 0) << problem;
  EXPECT_TRUE(group);
  ::close(fd);
}

TEST_F(SiteDayFolder, MissingDayNamesTheFolderAndTheTool) {
  make_days(0755);
  bool group = false;
  std::string problem;
  EXPECT_EQ(open_site_day_folder(dir_, "2026/11/30", group, problem), -1);
  EXPECT_EQ(problem, dir_ +
                         "/2026/11/30: No such file or directory (the dated folders are made ahead by `mpimon "
                         "admin mk-log-dirs`)");
}

TEST_F(SiteDayFolder, SymbolicLinkRefused) {
  make_days(0755);
  fs::create_directory(dir_ + "/elsewhere");
  fs::create_directory_symlink(dir_ + "/elsewhere", dir_ + "/2026/11/30");
  bool group = false;
  std::string problem;
  EXPECT_EQ(open_site_day_folder(dir_, "2026/11/30", group, problem), -1);
  EXPECT_EQ(problem, dir_ + "/2026/11/30: not a folder (a symbolic link?)");
}

TEST_F(SiteDayFolder, SharedWithoutStickyRefused) {
  make_days(0755);
  ::chmod((dir_ + "/2026/11").c_str(), 0777);
  bool group = false;
  std::string problem;
  EXPECT_EQ(open_site_day_folder(dir_, "2026/11/29", group, problem), -1);
  EXPECT_EQ(problem, dir_ + "/2026/11: writable by group or others without the sticky bit");
}

TEST_F(SiteDayFolder, PublishesWithTheModeNeverReplacing) {
  make_days(0755);
  bool group = false;
  std::string problem;
  const int fd = open_site_day_folder(dir_, "2026/11/29", group, problem);
  ASSERT_GE(fd, 0) << problem;
  SiteLogName name{"alice", "app", "7", 11, 1796083200};
  const std::string folder = dir_ + "/2026/11/29";
  // Someone guessed the name and put a file there first: it stays, the log takes a suffix.
  std::ofstream(folder + "/" + site_log_file_name(name)) << "planted";
  const std::string path = publish_site_log(fd, folder, name, 0400, "content", problem);
  ::close(fd);
  ASSERT_FALSE(path.empty()) << problem;
  EXPECT_NE(path, folder + "/" + site_log_file_name(name));
  EXPECT_EQ(path.size(), (folder + "/" + site_log_file_name(name)).size() + 9);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0400u);
  std::ifstream planted(folder + "/" + site_log_file_name(name));
  std::string text;
  planted >> text;
  EXPECT_EQ(text, "planted");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder)) ++entries;
  EXPECT_EQ(entries, 2u);  // no temporary left
}

// The readers read a site log decompressed, and refuse what expands beyond 256 times its
// size: memory follows the file, whatever someone planted in a shared day folder.
TEST_F(SiteDayFolder, ReadersDecompressLogsAndRefuseBombs) {
  const std::string text = "# mpimon job file (one record per non-zero source, destination, category)\n";
  std::ofstream(dir_ + "/log.mpimon", std::ios::binary) << gzip_compress(text);
  EXPECT_EQ(read_dump_text(dir_ + "/log.mpimon"), text);
  std::ofstream(dir_ + "/bomb.mpimon", std::ios::binary) << gzip_compress(std::string(80u << 20, 'a'));
  try {
    read_dump_text(dir_ + "/bomb.mpimon");
    ADD_FAILURE() << "a bomb was read";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), dir_ + "/bomb.mpimon: gzip data expands beyond 67108864 bytes");
  }
  std::ofstream(dir_ + "/cut.mpimon", std::ios::binary) << gzip_compress(text).substr(0, 20);
  EXPECT_THROW(read_dump_text(dir_ + "/cut.mpimon"), FormatError);
}
