// The site's view of its logs (docs/site-deployment.md): the dated folders
// `mpimon admin mk-log-dirs` makes, one index row per site log (files/site_log.h), and the
// query behind `mpimon jobs`. Pure C++ on the readers and the placement core; the SQLite
// side is in site_database.h (only the mpimon command links SQLite).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace mpimon::tools {

// ---- mpimon admin mk-log-dirs ----

// "2026", "2026-2028", "2026,2028": the years to make (at most 100, each in 1970..9999);
// empty text: this year and the next (as darshan-mk-log-dirs). Throws std::invalid_argument
// "--years: expected ...".
std::vector<int> parse_years(const std::string& text, int current_year);
int days_in_month(int year, int month);

struct LogDir {
  std::string path;  // relative to the log root: "2026", "2026/11", "2026/11/29"
  mode_t mode = 0;
};
// The folders of `years` in creation order (a year, its months, each month's days): years
// and months 0755 (only the admin adds folders), days 01777 (every user creates files,
// nobody removes another's: sticky), or 03777 with a group policy (set-group-ID: logs get
// the group, and the component then makes them 0440 instead of 0400).
std::vector<LogDir> log_dir_plan(const std::vector<int>& years, bool group_policy);

// ---- mpimon index ----

// What the index keeps of one site log.
struct JobRow {
  std::string path;  // absolute
  uint64_t file_bytes = 0;
  int64_t mtime_ns = 0;
  uid_t owner_uid = 0;  // the file's owner: who ran the job (the `site user` field is only what the job said)
  std::string owner;    // its name (the uid in digits when the password database has none)
  std::string user, executable, job_id;
  int64_t pid = 0;
  int32_t ranks = 0;
  int32_t hosts = 0;
  std::string day;                   // "YYYY-MM-DD" of the start (UTC)
  std::string start_time, end_time;  // ISO 8601 UTC
  int64_t duration_s = 0;
  std::array<uint64_t, kCategoryCount> bytes{}, messages{};  // per category (engine order)
  uint64_t crossing_bytes = 0;         // communication bytes between ranks on different hosts, as the job ran
  uint64_t placed_crossing_bytes = 0;  // the same for the best placement found (mpimon place's core)
  uint64_t placement_gain_bytes = 0;   // crossing_bytes - placed_crossing_bytes
  std::string placement_method;        // optimal, heuristic, baseline (nothing better), one_host
  uint64_t io_read_bytes = 0, io_write_bytes = 0, io_files = 0;
  double wait_seconds = 0;
  uint64_t wait_count = 0;
};

// Reads one site log (or any job file with `site` annotations) and computes its row. The
// placement: the job's hosts, each with as many slots as it ran ranks (a flat topology: the
// crossing bytes only depend on hosts), the layout it ran with as the baseline. Throws
// FormatError for an unreadable or malformed file, or one without `site host` lines.
JobRow summarize_site_log(const std::string& path);

// The site logs under a log root: `<root>/YYYY/MM/DD/*.mpimon`, final names only (hidden
// temporaries are skipped), no symbolic link followed. Sorted.
std::vector<std::string> find_site_logs(const std::string& root);

// ---- mpimon jobs ----

struct JobsQuery {
  std::optional<std::string> user, executable;  // exact (user: the file owner's name)
  std::optional<std::string> since, until;      // "YYYY-MM-DD", inclusive
  std::optional<uint64_t> min_ranks;
  std::optional<uint64_t> min_bytes;  // communication bytes (all categories but io_shuffle)
  std::string sort = "gain";          // gain, bytes, crossing, ranks, start, duration
  int limit = 50;
};
// The SELECT for `query` and its parameters in order (all bound as text or integers by the
// caller: nothing of the user's is pasted into SQL). Throws std::invalid_argument for an
// unknown sort key or a malformed date.
struct Sql {
  std::string text;
  std::vector<std::string> parameters;
};
Sql jobs_select(const JobsQuery& query);

// How to apply the better placement for a job that ran on `hosts` hosts, as the commands a
// user runs (one line each).
std::vector<std::string> placement_commands(const JobRow& row);

// "12.3 MB", "512 B": bytes for people (decimal units).
std::string human_bytes(uint64_t bytes);

}  // namespace mpimon::tools
