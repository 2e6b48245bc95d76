#include "site_database.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "engine/engine.h"

namespace mpimon::tools {

namespace {

// The columns after the path, in JobRow's order (the schema in docs/site-deployment.md).
std::string category_columns(const char* type) {
  std::string columns;
  for (int c = 0; c < kCategoryCount; ++c) {
    const std::string name = category_name(static_cast<Category>(c));
    columns += ", " + name + "_bytes " + type + ", " + name + "_messages " + type;
  }
  return columns;
}

const std::string& schema() {
  static const std::string text =
      "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE IF NOT EXISTS jobs(path TEXT PRIMARY KEY, file_bytes INTEGER, mtime_ns INTEGER,"
      " owner_uid INTEGER, owner TEXT, user TEXT, executable TEXT, job_id TEXT, pid INTEGER,"
      " ranks INTEGER, hosts INTEGER, day TEXT, start_time TEXT, end_time TEXT, duration_s INTEGER" +
      category_columns("INTEGER") +
      ", communication_bytes INTEGER, crossing_bytes INTEGER, placed_crossing_bytes INTEGER,"
      " placement_gain_bytes INTEGER, placement_method TEXT, io_read_bytes INTEGER, io_write_bytes INTEGER,"
      " io_files INTEGER, wait_seconds REAL, wait_count INTEGER);"
      "CREATE INDEX IF NOT EXISTS jobs_by_gain ON jobs(placement_gain_bytes);"
      "CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs(owner, day);"
      "CREATE INDEX IF NOT EXISTS jobs_by_executable ON jobs(executable, day);"
      "CREATE INDEX IF NOT EXISTS jobs_by_day ON jobs(day);"
      "CREATE TABLE IF NOT EXISTS unreadable(path TEXT PRIMARY KEY, file_bytes INTEGER, mtime_ns INTEGER,"
      " problem TEXT);";
  return text;
}

struct Database {
  sqlite3* db = nullptr;
  std::string name;
  Database(const std::string& path, bool write) : name(path) {
    const int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      throw std::runtime_error(path + ": " + why);
    }
    sqlite3_busy_timeout(db, 30000);  // another `mpimon index` may be writing
  }
  ~Database() { sqlite3_close(db); }
  void exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string why = message ? message : sqlite3_errmsg(db);
      sqlite3_free(message);
      throw std::runtime_error(name + ": " + why);
    }
  }
  [[noreturn]] void fail() const { throw std::runtime_error(name + ": " + sqlite3_errmsg(db)); }
};

struct Statement {
  sqlite3_stmt* stmt = nullptr;
  Database& database;
  Statement(Database& d, const std::string& sql) : database(d) {
    if (sqlite3_prepare_v2(d.db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) d.fail();
  }
  ~Statement() { sqlite3_finalize(stmt); }
  int column = 0;
  void reset() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    column = 0;
  }
  Statement& text(const std::string& value) {
    sqlite3_bind_text(stmt, ++column, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& integer(int64_t value) {
    sqlite3_bind_int64(stmt, ++column, value);
    return *this;
  }
  Statement& real(double value) {
    sqlite3_bind_double(stmt, ++column, value);
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) database.fail();
    return false;
  }
};

std::string insert_sql() {
  std::string columns =
      "path, file_bytes, mtime_ns, owner_uid, owner, user, executable, job_id, pid, ranks, hosts, day, "
      "start_time, end_time, duration_s";
  int count = 15;
  for (int c = 0; c < kCategoryCount; ++c) {
    const std::string name = category_name(static_cast<Category>(c));
    columns += ", " + name + "_bytes, " + name + "_messages";
    count += 2;
  }
  columns +=
      ", communication_bytes, crossing_bytes, placed_crossing_bytes, placement_gain_bytes, placement_method, "
      "io_read_bytes, io_write_bytes, io_files, wait_seconds, wait_count";
  count += 10;
  std::string marks;
  for (int i = 0; i < count; ++i) marks += i ? ", ?" : "?";
  return "INSERT OR REPLACE INTO jobs(" + columns + ") VALUES(" + marks + ")";
}

uint64_t communication_bytes(const JobRow& row) {
  uint64_t sum = 0;
  for (int c = 0; c < kCategoryCount; ++c)
    if (static_cast<Category>(c) != Category::io_shuffle) sum += row.bytes[c];
  return sum;
}

void bind_row(Statement& s, const JobRow& row) {
  s.text(row.path)
      .integer(static_cast<int64_t>(row.file_bytes))
      .integer(row.mtime_ns)
      .integer(row.owner_uid)
      .text(row.owner)
      .text(row.user)
      .text(row.executable)
      .text(row.job_id)
      .integer(row.pid)
      .integer(row.ranks)
      .integer(row.hosts)
      .text(row.day)
      .text(row.start_time)
      .text(row.end_time)
      .integer(row.duration_s);
  for (int c = 0; c < kCategoryCount; ++c)
    s.integer(static_cast<int64_t>(row.bytes[c])).integer(static_cast<int64_t>(row.messages[c]));
  s.integer(static_cast<int64_t>(communication_bytes(row)))
      .integer(static_cast<int64_t>(row.crossing_bytes))
      .integer(static_cast<int64_t>(row.placed_crossing_bytes))
      .integer(static_cast<int64_t>(row.placement_gain_bytes))
      .text(row.placement_method)
      .integer(static_cast<int64_t>(row.io_read_bytes))
      .integer(static_cast<int64_t>(row.io_write_bytes))
      .integer(static_cast<int64_t>(row.io_files))
      .real(row.wait_seconds)
      .integer(static_cast<int64_t>(row.wait_count));
}

// The schema, made if missing; a database of another schema version is refused.
void open_schema(Database& database, const std::string& database_path) {
  database.exec(schema());
  Statement version(database, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (version.step()) {
    const std::string found = reinterpret_cast<const char*>(sqlite3_column_text(version.stmt, 0));
    if (found != std::to_string(kSiteIndexSchemaVersion))
      throw std::runtime_error(database_path + ": schema version " + found + ", this mpimon writes version " +
                               std::to_string(kSiteIndexSchemaVersion) + " (remove the file to index anew)");
  } else {
    database.exec("INSERT INTO meta VALUES('schema_version', '" + std::to_string(kSiteIndexSchemaVersion) + "')");
  }
}

using FileStamp = std::pair<int64_t, int64_t>;  // size, modification time (ns)

FileStamp stamp_of(const struct stat& st) {
  return {st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// What the database knows: the stamp per path, readable or not.
std::map<std::string, FileStamp> known_logs(Database& database) {
  std::map<std::string, FileStamp> known;
  for (const char* table : {"jobs", "unreadable"}) {
    Statement s(database, std::string("SELECT path, file_bytes, mtime_ns FROM ") + table);
    while (s.step())
      known[reinterpret_cast<const char*>(sqlite3_column_text(s.stmt, 0))] = {sqlite3_column_int64(s.stmt, 1),
                                                                              sqlite3_column_int64(s.stmt, 2)};
  }
  return known;
}

// The statements that change rows, prepared once per run.
struct RowStatements {
  Statement insert, insert_bad, drop_job, drop_bad;
  explicit RowStatements(Database& database)
      : insert(database, insert_sql()),
        insert_bad(database, "INSERT OR REPLACE INTO unreadable VALUES(?, ?, ?, ?)"),
        drop_job(database, "DELETE FROM jobs WHERE path = ?"),
        drop_bad(database, "DELETE FROM unreadable WHERE path = ?") {}

  void forget(const std::string& path) {
    drop_job.reset();
    drop_job.text(path).step();
    drop_bad.reset();
    drop_bad.text(path).step();
  }
};

// One log (new or changed) into its row, or into `unreadable` with the reader's message.
void index_one(RowStatements& rows, const std::string& path, IndexReport& report,
               const std::function<void(const std::string&)>& say) {
  try {
    const JobRow row = summarize_site_log(path);
    rows.insert.reset();
    bind_row(rows.insert, row);
    rows.insert.step();
    rows.drop_bad.reset();
    rows.drop_bad.text(path).step();
    ++report.added;
  } catch (const std::exception& e) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    const FileStamp stamp = stamp_of(st);
    rows.insert_bad.reset();
    rows.insert_bad.text(path).integer(stamp.first).integer(stamp.second).text(e.what()).step();
    rows.drop_job.reset();
    rows.drop_job.text(path).step();
    ++report.unreadable;
    say(std::string("skipped (unreadable): ") + e.what());
  }
}

}  // namespace

IndexReport update_site_index(const std::string& root, const std::string& database_path, size_t batch,
                              const std::function<void(const std::string&)>& say) {
  Database database(database_path, true);
  open_schema(database, database_path);
  const std::map<std::string, FileStamp> known = known_logs(database);
  IndexReport report;
  const std::vector<std::string> logs = find_site_logs(root);
  const std::set<std::string> present(logs.begin(), logs.end());
  std::vector<std::string> todo;
  for (const std::string& path : logs) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;  // gone meanwhile
    const auto it = known.find(path);
    if (it != known.end() && it->second == stamp_of(st)) {
      ++report.unchanged;
      continue;
    }
    todo.push_back(path);
  }
  RowStatements rows(database);
  const size_t per_transaction = std::max<size_t>(batch, 1);
  for (size_t first = 0; first < todo.size(); first += per_transaction) {
    database.exec("BEGIN IMMEDIATE");
    for (size_t i = first; i < std::min(todo.size(), first + per_transaction); ++i)
      index_one(rows, todo[i], report, say);
    database.exec("COMMIT");
  }
  // Logs removed since: their rows go.
  database.exec("BEGIN IMMEDIATE");
  for (const auto& [path, stamp] : known)
    if (!present.count(path)) {
      rows.forget(path);
      ++report.removed;
    }
  database.exec("COMMIT");
  return report;
}

std::vector<JobRow> select_jobs(const std::string& database_path, const JobsQuery& query) {
  struct stat st {};
  if (::stat(database_path.c_str(), &st) != 0)
    throw std::runtime_error(database_path + ": no index (make it with `mpimon index <log path>`)");
  Database database(database_path, false);
  const Sql sql = jobs_select(query);
  Statement s(database, sql.text);
  for (const std::string& p : sql.parameters) s.text(p);
  std::vector<JobRow> rows;
  auto column = [&](const char* name) {
    for (int i = 0; i < sqlite3_column_count(s.stmt); ++i)
      if (std::string(sqlite3_column_name(s.stmt, i)) == name) return i;
    throw std::runtime_error(database_path + ": no column " + name + " (not an mpimon index?)");
  };
  auto text = [&](const char* name) {
    const unsigned char* t = sqlite3_column_text(s.stmt, column(name));
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  auto integer = [&](const char* name) { return sqlite3_column_int64(s.stmt, column(name)); };
  while (s.step()) {
    JobRow row;
    row.path = text("path");
    row.file_bytes = integer("file_bytes");
    row.owner_uid = static_cast<uid_t>(integer("owner_uid"));
    row.owner = text("owner");
    row.user = text("user");
    row.executable = text("executable");
    row.job_id = text("job_id");
    row.ranks = static_cast<int32_t>(integer("ranks"));
    row.hosts = static_cast<int32_t>(integer("hosts"));
    row.day = text("day");
    row.start_time = text("start_time");
    row.duration_s = integer("duration_s");
    for (int c = 0; c < kCategoryCount; ++c) {
      const std::string name = category_name(static_cast<Category>(c));
      row.bytes[c] = integer((name + "_bytes").c_str());
      row.messages[c] = integer((name + "_messages").c_str());
    }
    row.crossing_bytes = integer("crossing_bytes");
    row.placed_crossing_bytes = integer("placed_crossing_bytes");
    row.placement_gain_bytes = integer("placement_gain_bytes");
    row.placement_method = text("placement_method");
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace mpimon::tools
