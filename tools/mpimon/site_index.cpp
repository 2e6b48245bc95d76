#include "site_index.h"

#include <pwd.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "dumps.h"
#include "files/site_log.h"
#include "formats/job_format.h"
#include "placement.h"
#include "readers/format_error.h"
#include "readers/text_fields.h"
#include "readers/wait_annotations_reader.h"

namespace mpimon::tools {

namespace fs = std::filesystem;
namespace pl = mpimon::placement;

// ---- mk-log-dirs ----

std::vector<int> parse_years(const std::string& text, int current_year) {
  if (text.empty()) return {current_year, current_year + 1};
  const auto fail = [&]() -> std::invalid_argument {
    return std::invalid_argument("--years: expected a year, a range or a list (2026, 2026-2028, 2026,2027), not '" +
                                 text + "'");
  };
  auto year_of = [&](const std::string& part) {
    if (part.size() != 4 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw fail();
    const int y = std::stoi(part);
    if (y < 1970) throw fail();
    return y;
  };
  std::vector<int> years;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    const std::string part = text.substr(begin, end - begin);
    begin = end + 1;
    const size_t dash = part.find('-');
    if (dash == std::string::npos) {
      years.push_back(year_of(part));
    } else {
      const int first = year_of(part.substr(0, dash)), last = year_of(part.substr(dash + 1));
      if (last < first || last - first >= 100) throw fail();
      for (int y = first; y <= last; ++y) years.push_back(y);
    }
    if (years.size() > 100) throw std::invalid_argument("--years: at most 100 years at once, not '" + text + "'");
  }
  std::sort(years.begin(), years.end());
  years.erase(std::unique(years.begin(), years.end()), years.end());
  return years;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

std::vector<LogDir> log_dir_plan(const std::vector<int>& years, bool group_policy) {
  std::vector<LogDir> plan;
  const mode_t day_mode = group_policy ? 03777 : 01777;
  char text[16];
  for (int y : years) {
    std::snprintf(text, sizeof text, "%04d", y);
    plan.push_back({text, 0755});
    for (int m = 1; m <= 12; ++m) {
      std::snprintf(text, sizeof text, "%04d/%02d", y, m);
      plan.push_back({text, 0755});
      for (int d = 1; d <= days_in_month(y, m); ++d) {
        std::snprintf(text, sizeof text, "%04d/%02d/%02d", y, m, d);
        plan.push_back({text, day_mode});
      }
    }
  }
  return plan;
}

// ---- index rows ----

namespace {

std::string owner_name(uid_t uid) {
  if (const passwd* entry = ::getpwuid(uid); entry != nullptr) return entry->pw_name;
  return std::to_string(uid);
}

long long parse_iso8601(const std::string& text) {
  std::tm t{};
  if (::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &t) == nullptr) return 0;
  return static_cast<long long>(::timegm(&t));
}

}  // namespace

namespace {

// Where the job ran, from its `site host` lines: each rank's host, each host's ranks.
struct SiteHosts {
  std::vector<int32_t> host_of;  // per rank
  std::vector<int> slots;        // per host: its ranks
  std::vector<std::string> names;
};

// The `site` annotations (who, what, where) into `row`; the hosts returned.
SiteHosts read_site_annotations(const Dumps& dumps, const std::string& path, JobRow& row) {
  SiteHosts hosts;
  hosts.host_of.assign(row.ranks, -1);
  for (const JobAnnotation& a : dumps.annotations) {
    if (a.keyword != "site" || a.fields.empty()) continue;
    const std::string& key = a.fields[0];
    const std::string place = path + ":" + std::to_string(a.line) + ": expected ";
    const auto expect = [&](size_t n) {
      if (a.fields.size() != n)
        throw FormatError(place + "`site " + key + "` with " + std::to_string(n - 1) + " field(s)");
    };
    if (key == "user") {
      expect(2);
      row.user = unescape_name(a.fields[1]);
    } else if (key == "executable") {
      expect(2);
      row.executable = unescape_name(a.fields[1]);
    } else if (key == "job_id") {
      expect(2);
      row.job_id = unescape_name(a.fields[1]);
    } else if (key == "pid") {
      expect(2);
      const std::optional<long long> pid = parse_number<long long>(a.fields[1]);
      if (!pid) throw FormatError(place + "a process id, found '" + a.fields[1] + "'");
      row.pid = *pid;
    } else if (key == "host") {
      expect(3);
      std::vector<int32_t> members;
      if (!parse_rank_ranges(a.fields[2], row.ranks, members))
        throw FormatError(place + "`site host <name> <rank ranges>` within " + std::to_string(row.ranks) + " ranks");
      for (int32_t r : members) {
        if (hosts.host_of[r] >= 0)
          throw FormatError(place + "each rank on one host (rank " + std::to_string(r) + " twice)");
        hosts.host_of[r] = static_cast<int32_t>(hosts.names.size());
      }
      hosts.slots.push_back(static_cast<int>(members.size()));
      hosts.names.push_back(unescape_name(a.fields[1]));
    }
  }
  if (hosts.names.empty()) throw FormatError(path + ": expected `site host` lines (not a site log)");
  if (std::find(hosts.host_of.begin(), hosts.host_of.end(), -1) != hosts.host_of.end())
    throw FormatError(path + ": expected every rank on a `site host` line");
  return hosts;
}

// Bytes crossing hosts as the job ran and with the best placement: the same affinity as
// `mpimon place` (communication bytes), the job's own hosts, its layout as the baseline.
void add_placement(const Dumps& dumps, const SiteHosts& hosts, JobRow& row) {
  std::vector<pl::Traffic> traffic;
  for (const Cell& c : dumps.matrix.cells(Selection::of("communication")))
    traffic.push_back({c.from, c.to, static_cast<double>(c.traffic.bytes)});
  const pl::Affinity affinity(row.ranks, std::move(traffic));
  const auto host_count = static_cast<int32_t>(hosts.names.size());
  pl::Cluster cluster;
  for (int32_t h = 0; h < host_count; ++h)
    cluster.hosts.push_back({hosts.names[h], pl::Tree{{hosts.slots[h]}}, hosts.slots[h], {}});
  pl::Mapping ran(row.ranks);
  std::vector<int> next_core(host_count, 0);
  for (int32_t r = 0; r < row.ranks; ++r) ran[r] = {hosts.host_of[r], next_core[hosts.host_of[r]]++};
  const pl::Cost as_run = pl::cost_of(affinity, cluster, ran);
  row.crossing_bytes = static_cast<uint64_t>(as_run.crossing_bytes);
  if (host_count == 1) {
    row.placed_crossing_bytes = 0;
    row.placement_method = "one_host";
  } else {
    const pl::Placed placed = pl::place(affinity, cluster, {ran});
    row.placed_crossing_bytes = static_cast<uint64_t>(placed.cost.crossing_bytes);
    row.placement_method = placed.method == pl::Placed::Method::optimal     ? "optimal"
                           : placed.method == pl::Placed::Method::heuristic ? "heuristic"
                                                                            : "baseline";
  }
  row.placement_gain_bytes =
      row.crossing_bytes > row.placed_crossing_bytes ? row.crossing_bytes - row.placed_crossing_bytes : 0;
}

// Totals per category, MPI-IO and wait states.
void add_totals(const Dumps& dumps, const std::string& path, JobRow& row) {
  for (int c = 0; c < kCategoryCount; ++c)
    for (const Cell& cell : dumps.matrix.cells(static_cast<Category>(c))) {
      row.bytes[c] += cell.traffic.bytes;
      row.messages[c] += cell.traffic.messages;
    }
  for (const auto& [identity, file] : dumps.io.files()) {
    ++row.io_files;
    for (const auto& [rank, use] : file.ranks) {
      row.io_read_bytes += use.fs[static_cast<int>(mpi_io::Direction::read)].bytes;
      row.io_write_bytes += use.fs[static_cast<int>(mpi_io::Direction::write)].bytes;
    }
  }
  const wait_states::WaitAnnotations waits = wait_states::read_wait_annotations(dumps.annotations, path, row.ranks);
  for (const auto& w : waits.waits) {
    row.wait_seconds += w.seconds;
    row.wait_count += w.count;
  }
}

}  // namespace

JobRow summarize_site_log(const std::string& path) {
  JobRow row;
  row.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw FormatError(path + ": cannot read its status");
  row.file_bytes = static_cast<uint64_t>(st.st_size);
  row.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  row.owner_uid = st.st_uid;
  row.owner = owner_name(st.st_uid);

  const Dumps dumps = read_dumps({path}, Annotations::read);
  if (!dumps.have_header) throw FormatError(path + ": expected a job file (a site log), found .prof text");
  row.ranks = dumps.header.world_size;
  row.start_time = dumps.header.start_time;
  row.end_time = dumps.header.end_time;
  row.day = row.start_time.substr(0, 10);
  row.duration_s = std::max(0ll, parse_iso8601(row.end_time) - parse_iso8601(row.start_time));
  const SiteHosts hosts = read_site_annotations(dumps, path, row);
  row.hosts = static_cast<int32_t>(hosts.names.size());
  add_totals(dumps, path, row);
  add_placement(dumps, hosts, row);
  return row;
}

std::vector<std::string> find_site_logs(const std::string& root) {
  std::vector<std::string> logs;
  std::error_code ec;
  auto digits = [](const std::string& name, size_t n) {
    return name.size() == n && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  auto subfolders = [&](const fs::path& folder, size_t width) {
    std::vector<fs::path> out;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
      if (digits(it->path().filename().string(), width) && it->symlink_status(ec).type() == fs::file_type::directory)
        out.push_back(it->path());
    ec.clear();
    return out;
  };
  for (const fs::path& year : subfolders(root, 4))
    for (const fs::path& month : subfolders(year, 2))
      for (const fs::path& day : subfolders(month, 2))
        for (fs::directory_iterator it(day, ec), end; !ec && it != end; it.increment(ec)) {
          const std::string name = it->path().filename().string();
          if (name.empty() || name[0] == '.' || name.size() <= 7 || name.substr(name.size() - 7) != ".mpimon") continue;
          if (it->symlink_status(ec).type() != fs::file_type::regular) continue;
          logs.push_back(it->path().string());
        }
  std::sort(logs.begin(), logs.end());
  return logs;
}

// ---- jobs ----

namespace {

bool is_date(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (text[i] < '0' || text[i] > '9') return false;
  return true;
}

}  // namespace

Sql jobs_select(const JobsQuery& query) {
  static const std::map<std::string, std::string> kSort = {
      {"gain", "placement_gain_bytes DESC"}, {"bytes", "communication_bytes DESC"},
      {"crossing", "crossing_bytes DESC"},   {"ranks", "ranks DESC"},
      {"start", "start_time DESC"},          {"duration", "duration_s DESC"}};
  const auto sort = kSort.find(query.sort);
  if (sort == kSort.end())
    throw std::invalid_argument("--sort: expected gain, bytes, crossing, ranks, start or duration, not '" + query.sort +
                                "'");
  Sql sql;
  sql.text = "SELECT * FROM jobs WHERE 1";
  if (query.user) {
    sql.text += " AND owner = ?";
    sql.parameters.push_back(*query.user);
  }
  if (query.executable) {
    sql.text += " AND executable = ?";
    sql.parameters.push_back(*query.executable);
  }
  for (const auto& [date, op, option] : {std::tuple{query.since, ">=", "--since"}, {query.until, "<=", "--until"}}) {
    if (!date) continue;
    if (!is_date(*date))
      throw std::invalid_argument(std::string(option) + ": expected a date YYYY-MM-DD, not '" + *date + "'");
    sql.text += std::string(" AND day ") + op + " ?";
    sql.parameters.push_back(*date);
  }
  if (query.min_ranks) {
    sql.text += " AND ranks >= ?";
    sql.parameters.push_back(std::to_string(*query.min_ranks));
  }
  if (query.min_bytes) {
    sql.text += " AND communication_bytes >= ?";
    sql.parameters.push_back(std::to_string(*query.min_bytes));
  }
  sql.text += " ORDER BY " + sort->second + ", path LIMIT " + std::to_string(std::max(0, query.limit));
  return sql;
}

std::vector<std::string> placement_commands(const JobRow& row) {
  if (row.placement_gain_bytes == 0) return {};
  const std::string base = fs::path(row.path).filename().replace_extension("").string();
  return {"mpimon place " + row.path + " --hostfile <your hostfile> --rankfile " + base +
              ".rankfile   then: mpirun --hostfile <your hostfile> --rankfile " + base + ".rankfile ...",
          "mpimon place " + row.path + " --hostfile <your hostfile> --slurm-hostfile " + base +
              ".hosts   then: SLURM_HOSTFILE=" + base + ".hosts srun --distribution=arbitrary ...",
          "or in the program: reorder = 1 in MPI_Cart_create/MPI_Graph_create with --mca topo_monitoring_job_file " +
              row.path + " (the topo component), or mpimon_reorder() (docs/placement.md)"};
}

std::string human_bytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 6) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

}  // namespace mpimon::tools
