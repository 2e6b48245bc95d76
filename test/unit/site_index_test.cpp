// tools/mpimon/site_index.h and site_database.h: the mk-log-dirs plan, one site log's
// index row (placement gain by the placement core), the jobs query, and the SQLite index
// kept up to date incrementally.
#include "site_index.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "files/site_log.h"
#include "formats/job_format.h"
#include "readers/format_error.h"
#include "site_database.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace mpimon;
using namespace mpimon::tools;

namespace {

// A site log as the component writes it: 4 ranks on 2 hosts, ranks 0,2 on host a and 1,3
// on b; 0<->1 and 2<->3 exchange 1000 bytes each way (a placement keeps all of it on the
// hosts: 4000 crossing bytes -> 0).
std::string site_log_text(const std::string& user = "alice") {
  JobHeader header;
  header.world_size = 4;
  header.enable_level = 2;
  header.open_mpi_version = "4.1.4";
  header.start_time = "2026-11-29T01:02:03Z";
  header.end_time = "2026-11-29T01:03:03Z";
  std::vector<std::string> blocks = {"records\n0 1 external 1 1000 10:1\n", "1 0 external 1 1000 10:1\n",
                                     "2 3 external 1 1000 10:1\n", "3 2 external 1 1000 10:1\n"};
  blocks[0] += format_job_program("app");
  SiteLogName name{user, "app", "42", 7, 0};
  blocks[0] += format_site_annotations(name, {"a", "b", "a", "b"});
  return assemble_job_file(header, blocks);
}

}  // namespace

TEST(SiteYears, DefaultThisAndNextYear) { EXPECT_EQ(parse_years("", 2026), (std::vector<int>{2026, 2027})); }

TEST(SiteYears, RangesAndLists) {
  EXPECT_EQ(parse_years("2026-2028", 1), (std::vector<int>{2026, 2027, 2028}));
  EXPECT_EQ(parse_years("2027,2026,2027", 1), (std::vector<int>{2026, 2027}));
}

TEST(SiteYears, MalformedRefusedWithTheOption) {
  for (const char* bad : {"26", "2026-2025", "abcd", "2026,", "1969", "2000-2200"}) {
    try {
      parse_years(bad, 2026);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--years: expected", 0), 0u) << e.what();
    }
  }
}

TEST(SiteLogDirs, EveryRealDayWithItsMode) {
  const std::vector<LogDir> plan = log_dir_plan({2028}, false);  // a leap year
  EXPECT_EQ(plan.size(), 1u + 12u + 366u);
  EXPECT_EQ(plan[0].path, "2028");
  EXPECT_EQ(plan[0].mode, 0755u);
  EXPECT_EQ(plan[1].path, "2028/01");
  EXPECT_EQ(plan[2].path, "2028/01/01");
  EXPECT_EQ(plan[2].mode, 01777u);
  EXPECT_EQ(plan.back().path, "2028/12/31");
  EXPECT_EQ(log_dir_plan({2026}, true).back().mode, 03777u);
  EXPECT_EQ(log_dir_plan({2026}, false).size(), 1u + 12u + 365u);
  EXPECT_EQ(days_in_month(2100, 2), 28);
  EXPECT_EQ(days_in_month(2000, 2), 29);
}

class SiteIndex : public mpimon::test::TempDirTest {
 protected:
  std::string write_log(const std::string& day, const std::string& name, const std::string& text) {
    fs::create_directories(dir_ + "/" + day);
    const std::string path = dir_ + "/" + day + "/" + name;
    std::ofstream(path, std::ios::binary) << gzip_compress(text);
    return path;
  }
};

TEST_F(SiteIndex, RowOfASiteLogWithThePlacementGain) {
  const std::string path = write_log("2026/11/29", "alice_app_id42-7_010203.mpimon", site_log_text());
  const JobRow row = summarize_site_log(path);
  EXPECT_EQ(row.user, "alice");
  EXPECT_EQ(row.executable, "app");
  EXPECT_EQ(row.job_id, "42");
  EXPECT_EQ(row.ranks, 4);
  EXPECT_EQ(row.hosts, 2);
  EXPECT_EQ(row.day, "2026-11-29");
  EXPECT_EQ(row.duration_s, 60);
  EXPECT_EQ(row.bytes[static_cast<int>(Category::external)], 4000u);
  EXPECT_EQ(row.messages[static_cast<int>(Category::external)], 4u);
  EXPECT_EQ(row.crossing_bytes, 4000u);
  EXPECT_EQ(row.placed_crossing_bytes, 0u);
  EXPECT_EQ(row.placement_gain_bytes, 4000u);
  EXPECT_EQ(row.owner_uid, ::geteuid());
  EXPECT_EQ(placement_commands(row).size(), 3u);
}

TEST_F(SiteIndex, ALogWithoutHostsIsRefused) {
  JobHeader header;
  header.world_size = 1;
  const std::string path = write_log("2026/11/29", "x.mpimon", assemble_job_file(header, {"records\n"}));
  EXPECT_THROW(summarize_site_log(path), FormatError);
}

TEST_F(SiteIndex, FindsFinalNamesOnlyNoLinks) {
  write_log("2026/11/29", "a.mpimon", "x");
  write_log("2026/11/29", ".mpimon-host-1-abc.tmp", "x");
  write_log("2026/11/29", "b.txt", "x");
  write_log("notayear/11/29", "c.mpimon", "x");
  fs::create_directory_symlink(dir_ + "/2026/11/29", dir_ + "/2026/11/30");
  EXPECT_EQ(find_site_logs(dir_), (std::vector<std::string>{dir_ + "/2026/11/29/a.mpimon"}));
}

TEST_F(SiteIndex, IncrementalUpdateAddsSkipsRemovesAndKeepsUnreadable) {
  const std::string a = write_log("2026/11/29", "a.mpimon", site_log_text("alice"));
  write_log("2026/11/29", "b.mpimon", site_log_text("bob"));
  const std::string database = dir_ + "/index.sqlite";
  std::vector<std::string> said;
  auto say = [&](const std::string& line) { said.push_back(line); };
  IndexReport r = update_site_index(dir_, database, 1, say);
  EXPECT_EQ(r.added, 2u);
  EXPECT_EQ(r.unchanged, 0u);
  r = update_site_index(dir_, database, 1, say);
  EXPECT_EQ(r.added, 0u);
  EXPECT_EQ(r.unchanged, 2u);
  // A broken log: one line, one `unreadable` row, the others untouched.
  write_log("2026/11/30", "c.mpimon", "not a job file");
  r = update_site_index(dir_, database, 10, say);
  EXPECT_EQ(r.unreadable, 1u);
  EXPECT_EQ(r.unchanged, 2u);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("c.mpimon"), std::string::npos) << said[0];
  fs::remove(a);
  r = update_site_index(dir_, database, 10, say);
  EXPECT_EQ(r.removed, 1u);
  EXPECT_EQ(r.unchanged, 2u);  // b, and c (unreadable, unchanged: not read again)
  JobsQuery all;
  const std::vector<JobRow> rows = select_jobs(database, all);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].user, "bob");
  EXPECT_EQ(rows[0].placement_gain_bytes, 4000u);
}

TEST_F(SiteIndex, JobsFiltersAndSorts) {
  write_log("2026/11/29", "a.mpimon", site_log_text("alice"));
  const std::string database = dir_ + "/index.sqlite";
  update_site_index(dir_, database, 10, [](const std::string&) {});
  JobsQuery q;
  q.executable = "app";
  q.since = "2026-11-29";
  q.until = "2026-11-29";
  EXPECT_EQ(select_jobs(database, q).size(), 1u);
  q.since = "2026-11-30";
  EXPECT_EQ(select_jobs(database, q).size(), 0u);
  q = {};
  q.min_bytes = 4001;
  EXPECT_EQ(select_jobs(database, q).size(), 0u);
  q.min_bytes = 4000;
  EXPECT_EQ(select_jobs(database, q).size(), 1u);
}

TEST(SiteJobsQuery, UserTextIsBoundNeverPasted) {
  JobsQuery q;
  q.user = "x' OR 1 --";
  q.sort = "crossing";
  const Sql sql = jobs_select(q);
  EXPECT_EQ(sql.text, "SELECT * FROM jobs WHERE 1 AND owner = ? ORDER BY crossing_bytes DESC, path LIMIT 50");
  EXPECT_EQ(sql.parameters, (std::vector<std::string>{"x' OR 1 --"}));
}

TEST(SiteJobsQuery, BadSortAndDateRefused) {
  JobsQuery q;
  q.sort = "name";
  EXPECT_THROW(jobs_select(q), std::invalid_argument);
  q.sort = "gain";
  q.since = "29-11-2026";
  EXPECT_THROW(jobs_select(q), std::invalid_argument);
}

TEST(SiteJobsQuery, NoIndexIsOneLine) {
  try {
    select_jobs("/nonexistent/mpimon-index.sqlite", {});
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/mpimon-index.sqlite: no index (make it with `mpimon index <log path>`)");
  }
}

TEST(SiteHumanBytes, DecimalUnits) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(999), "999 B");
  EXPECT_EQ(human_bytes(1500), "1.5 kB");
  EXPECT_EQ(human_bytes(4200000000ull), "4.2 GB");
}
