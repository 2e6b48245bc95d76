// The site's commands (docs/site-deployment.md):
//   mpimon admin mk-log-dirs <log path> [--years Y] [--group G]   the dated folders, ahead of time
//   mpimon index <log path> [--database F]                       the SQLite index, incrementally
//   mpimon jobs <log path> [filters] [--sort K]                  the staff's questions
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

#include "commands/subcommand.h"
#include "site_database.h"
#include "site_index.h"

namespace mpimon::tools {

namespace {

struct AdminOptions {
  std::string root, years, group;
};

// Makes one folder of the plan under the opened root, never following a link; an existing
// folder is kept if it is a real folder with the planned mode (else one line, failure).
bool make_log_dir(int root_fd, const std::string& root, const LogDir& dir, std::optional<gid_t> group, size_t& made) {
  if (::mkdirat(root_fd, dir.path.c_str(), dir.mode) == 0) {
    ++made;
  } else if (errno != EEXIST) {
    std::cerr << "mpimon admin mk-log-dirs: " << root << "/" << dir.path << ": " << std::strerror(errno) << '\n';
    return false;
  }
  const int fd = ::openat(root_fd, dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    std::cerr << "mpimon admin mk-log-dirs: " << root << "/" << dir.path << ": "
              << (errno == ELOOP || errno == ENOTDIR ? "not a folder (a symbolic link?)" : std::strerror(errno))
              << '\n';
    return false;
  }
  bool ok = true;
  // The group first: chown clears the set-group-ID bit that chmod then sets.
  if (group && (dir.mode & S_ISGID) && ::fchown(fd, static_cast<uid_t>(-1), *group) != 0) ok = false;
  if (ok && ::fchmod(fd, dir.mode) != 0) ok = false;  // the umask does not decide the site's modes
  if (!ok)
    std::cerr << "mpimon admin mk-log-dirs: " << root << "/" << dir.path
              << ": cannot set its mode or group: " << std::strerror(errno) << '\n';
  ::close(fd);
  return ok;
}

int run_admin(const AdminOptions& o) {
  std::time_t now = std::time(nullptr);
  std::tm today{};
  ::gmtime_r(&now, &today);
  const std::vector<int> years = parse_years(o.years, today.tm_year + 1900);
  std::optional<gid_t> site_group;
  if (!o.group.empty()) {
    const struct group* entry = ::getgrnam(o.group.c_str());
    if (entry == nullptr) throw std::invalid_argument("--group: no group '" + o.group + "'");
    site_group = entry->gr_gid;
  }
  if (o.root.empty() || o.root[0] != '/')
    throw std::invalid_argument("expected an absolute log path, not '" + o.root + "'");
  const int root_fd = ::open(o.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) {
    std::cerr << "mpimon admin mk-log-dirs: " << o.root << ": " << std::strerror(errno)
              << " (make the log root first, owned by root or the account that runs the index, mode 0755)\n";
    return 1;
  }
  struct stat st {};
  ::fstat(root_fd, &st);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    std::cerr << "mpimon admin mk-log-dirs: " << o.root
              << ": writable by group or others without the sticky bit: any user could replace the dated folders "
                 "(chmod go-w or +t)\n";
    ::close(root_fd);
    return 1;
  }
  size_t made = 0, total = 0;
  for (const LogDir& dir : log_dir_plan(years, site_group.has_value())) {
    ++total;
    if (!make_log_dir(root_fd, o.root, dir, site_group, made)) {
      ::close(root_fd);
      return 1;
    }
  }
  ::close(root_fd);
  std::cout << o.root << ": " << made << " folders made, " << total - made << " already there (years";
  for (int y : years) std::cout << ' ' << y;
  std::cout << "; days " << (site_group ? "03777, group " + o.group + ": logs 0440" : "01777: logs 0400") << ")\n";
  return 0;
}

struct IndexOptions {
  std::string root, database;
  size_t batch = 500;
};

std::string default_database(const std::string& root) { return root + "/mpimon-index.sqlite"; }

int run_index(const IndexOptions& o) {
  const std::string database = o.database.empty() ? default_database(o.root) : o.database;
  struct stat st {};
  if (::stat(o.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::cerr << "mpimon index: " << o.root << ": " << (errno ? std::strerror(errno) : "not a folder") << '\n';
    return 1;
  }
  const auto started = std::chrono::steady_clock::now();
  try {
    const IndexReport r = update_site_index(
        o.root, database, o.batch, [](const std::string& line) { std::cerr << "mpimon index: " << line << '\n'; });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << database << ": " << r.added << " logs added or updated, " << r.unchanged << " unchanged, " << r.removed
              << " removed, " << r.unreadable << " unreadable (" << std::fixed << std::setprecision(2) << s << " s)\n";
    return r.unreadable ? 3 : 0;
  } catch (const std::runtime_error& e) {
    std::cerr << "mpimon index: " << e.what() << '\n';
    return 1;
  }
}

struct JobsOptions {
  std::string root, database;
  JobsQuery query;
  std::string user, executable, since, until;
  uint64_t min_ranks = 0, min_bytes = 0;
  bool commands = true;
};

int run_jobs(JobsOptions o) {
  const std::string database = o.database.empty() ? default_database(o.root) : o.database;
  if (!o.user.empty()) o.query.user = o.user;
  if (!o.executable.empty()) o.query.executable = o.executable;
  if (!o.since.empty()) o.query.since = o.since;
  if (!o.until.empty()) o.query.until = o.until;
  if (o.min_ranks) o.query.min_ranks = o.min_ranks;
  if (o.min_bytes) o.query.min_bytes = o.min_bytes;
  std::vector<JobRow> rows;
  try {
    rows = select_jobs(database, o.query);
  } catch (const std::runtime_error& e) {
    std::cerr << "mpimon jobs: " << e.what() << '\n';
    return 1;
  }
  std::cout << std::left << std::setw(12) << "owner" << std::setw(16) << "executable" << std::setw(14) << "job"
            << std::setw(11) << "day" << std::right << std::setw(7) << "ranks" << std::setw(6) << "hosts"
            << std::setw(11) << "external" << std::setw(11) << "internal" << std::setw(11) << "coll" << std::setw(11)
            << "osc" << std::setw(11) << "crossing" << std::setw(11) << "gain"
            << "  placement\n";
  for (const JobRow& r : rows) {
    std::cout << std::left << std::setw(12) << r.owner << std::setw(16) << r.executable << std::setw(14) << r.job_id
              << std::setw(11) << r.day << std::right << std::setw(7) << r.ranks << std::setw(6) << r.hosts
              << std::setw(11) << human_bytes(r.bytes[0]) << std::setw(11) << human_bytes(r.bytes[1]) << std::setw(11)
              << human_bytes(r.bytes[2]) << std::setw(11) << human_bytes(r.bytes[3] + r.bytes[4]) << std::setw(11)
              << human_bytes(r.crossing_bytes) << std::setw(11) << human_bytes(r.placement_gain_bytes) << "  "
              << r.placement_method << '\n';
  }
  if (o.commands)
    for (const JobRow& r : rows) {
      const std::vector<std::string> lines = placement_commands(r);
      if (lines.empty()) continue;
      std::cout << "\n"
                << r.path << ": " << human_bytes(r.placement_gain_bytes) << " fewer bytes crossing hosts ("
                << human_bytes(r.crossing_bytes) << " -> " << human_bytes(r.placed_crossing_bytes) << ")\n";
      for (const std::string& line : lines) std::cout << "  " << line << '\n';
    }
  if (rows.empty()) std::cout << "(no job matches)\n";
  return 0;
}

}  // namespace

Subcommand add_admin_command(CLI::App& mpimon) {
  auto o = std::make_shared<AdminOptions>();
  CLI::App* admin = mpimon.add_subcommand("admin", "the site's administration (docs/site-deployment.md)");
  admin->require_subcommand(1);
  CLI::App* mk = admin->add_subcommand(
      "mk-log-dirs", "make the dated folders <log path>/YYYY/MM/DD of the site log ahead of time (run as the owner)");
  mk->add_option("log_path", o->root, "the site's mpimon_log_path (absolute; must exist)")->required();
  mk->add_option("--years", o->years, "2026, 2026-2028 or 2026,2027 (default: this year and the next)");
  mk->add_option("--group", o->group, "logs readable by this group (day folders set-group-ID, logs 0440)");
  return {admin, [o] { return run_admin(*o); }};
}

Subcommand add_index_command(CLI::App& mpimon) {
  auto o = std::make_shared<IndexOptions>();
  CLI::App* index = mpimon.add_subcommand(
      "index", "build or update the SQLite index of a site log path (incremental; safe while jobs write)");
  index->add_option("log_path", o->root, "the site's mpimon_log_path")->required();
  index->add_option("--database", o->database, "the index (default <log path>/mpimon-index.sqlite)");
  index->add_option("--batch", o->batch, "logs per transaction (default 500)")->check(CLI::Range(1, 1000000));
  return {index, [o] { return run_index(*o); }};
}

Subcommand add_jobs_command(CLI::App& mpimon) {
  auto o = std::make_shared<JobsOptions>();
  CLI::App* jobs = mpimon.add_subcommand(
      "jobs", "the site's jobs from the index: filters, sorted by what a better placement keeps off the network");
  jobs->add_option("log_path", o->root, "the site's mpimon_log_path (its index)")->required();
  jobs->add_option("--database", o->database, "the index (default <log path>/mpimon-index.sqlite)");
  jobs->add_option("--user", o->user, "jobs of this user (the log's owner)");
  jobs->add_option("--exe", o->executable, "jobs of this executable");
  jobs->add_option("--since", o->since, "jobs started on or after YYYY-MM-DD (UTC)");
  jobs->add_option("--until", o->until, "jobs started on or before YYYY-MM-DD (UTC)");
  jobs->add_option("--min-ranks", o->min_ranks, "jobs of at least this many ranks");
  jobs->add_option("--min-bytes", o->min_bytes, "jobs that sent at least this many bytes (all but io_shuffle)");
  jobs->add_option("--sort", o->query.sort, "gain (default), bytes, crossing, ranks, start, duration");
  jobs->add_option("--limit", o->query.limit, "at most this many jobs (default 50)")->check(CLI::Range(0, 1000000000));
  jobs->add_flag("!--no-commands", o->commands, "do not print how to apply each better placement");
  return {jobs, [o] { return run_jobs(*o); }};
}

}  // namespace mpimon::tools
