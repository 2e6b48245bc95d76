// The site index as an SQLite database (docs/site-deployment.md "The index"): one row per
// site log in table `jobs`, unreadable logs in `unreadable`, the schema version in `meta`.
// Only the mpimon command links SQLite (never an MPI process).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "site_index.h"

namespace mpimon::tools {

inline constexpr int kSiteIndexSchemaVersion = 1;

struct IndexReport {
  size_t added = 0, unchanged = 0, removed = 0, unreadable = 0;
};

// Brings `database` (created if missing) up to date with the logs under `root`: logs whose
// (name, size, mtime) the database already holds are skipped; new or changed ones are
// read (summarize_site_log) and written in transactions of `batch` logs; rows of logs no
// longer there are removed. A log that cannot be read becomes a row of `unreadable` and
// one line through `say`. Throws std::runtime_error "<database>: <why>" when the database
// itself fails.
IndexReport update_site_index(const std::string& root, const std::string& database, size_t batch,
                              const std::function<void(const std::string&)>& say);

// The rows `query` selects (jobs_select), as JobRow.
std::vector<JobRow> select_jobs(const std::string& database, const JobsQuery& query);

}  // namespace mpimon::tools
