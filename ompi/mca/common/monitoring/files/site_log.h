// The site log (docs/site-deployment.md): when `mpimon_log_path` names a folder, every job
// leaves one gzip-compressed job file in `<path>/YYYY/MM/DD/`, written by world rank 0 at
// MPI_Finalize. What is here has no Open MPI in it (the collective part is
// runtime/end_of_job_files_ompi.cpp): the name, the job id, the trust rule for the dated
// folders, their opening, and the compression.
//
// The name: `<user>_<exe>_id<job id>-<launcher pid>_<hhmmss>.mpimon` (UTC start time); on a
// name already taken (another job, or someone who guessed it) `_<hhmmss>-<8 random hex>`.
// The content: exactly the job file (formats/job_format.h) plus `site` annotations in rank
// 0's block (the index fields), gzip-compressed; `zcat` gives a job file every tool reads.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "files/atomic_file.h"

namespace mpimon {

// `mpimon_log_path`'s text -> the log root, or "" when the site log is off: empty text or
// `none` (the documented opt-out for one job). A relative path is refused (nullopt and
// `problem` set): a site log in whatever folder a job starts from is not a site log.
std::optional<std::string> site_log_root(const std::string& text, std::string& problem);

// The batch system's job id: SLURM_JOB_ID (with `.SLURM_STEP_ID` when set), PBS_JOBID,
// LSB_JOBID, FLUX_JOB_ID, else `launcher_pid` (mpirun's). Characters other than letters,
// digits, '.', '-' become '_' (a value never adds a folder nor a field separator).
std::string site_job_id(const std::function<const char*(const char*)>& getenv, long launcher_pid);

// A name field (user, executable): letters, digits, '.', '-' kept, anything else '_'
// (so '_' separates fields only where the name put it); never empty ("unknown").
std::string site_name_field(std::string_view text);

struct SiteLogName {
  std::string user, executable, job_id;
  long pid = 0;              // rank 0's
  long long start_time = 0;  // seconds since the epoch
};
// "YYYY/MM/DD" of the start time (UTC).
std::string site_log_day(long long start_time);
// "<user>_<exe>_id<job id>-<pid>_<hhmmss>[-<suffix>].mpimon" (suffix "" : none).
std::string site_log_file_name(const SiteLogName& name, const std::string& suffix = "");

// Whether a folder of the log tree may be used: "" if so, else why not. Accepted: owned
// by root or by `root_owner` (the log root's owner); if writable by group or others,
// sticky (nobody removes or renames another's entries). `mode`: st_mode.
std::string site_folder_problem(uid_t owner, mode_t mode, uid_t root_owner);

// The dated folder `<root>/YYYY/MM/DD`, opened (O_DIRECTORY) component by component with
// O_NOFOLLOW and checked with site_folder_problem (the root too); never created. Returns
// the descriptor (the caller closes it) or -1 with `problem` set ("<folder>: <why>").
// `group_readable`: the day folder is set-group-ID (`mpimon admin mk-log-dirs --group`):
// the site's policy is that logs are readable by that group.
int open_site_day_folder(const std::string& root, const std::string& day, bool& group_readable, std::string& problem);

// The log's mode under the folder's policy: 0440 when group-readable, else 0400.
inline mode_t site_log_mode(bool group_readable) { return group_readable ? 0440 : 0400; }

// gzip (RFC 1952) of `text`, one member; level 6. Throws std::runtime_error on failure.
std::string gzip_compress(std::string_view text);
// Inverse; throws std::runtime_error "<why>" on malformed or truncated data. `limit`:
// refuse output larger than this (a bomb never exhausts memory).
std::string gzip_decompress(std::string_view data, uint64_t limit = uint64_t{1} << 36);
// The two gzip magic bytes.
bool looks_gzipped(std::string_view data);

// The `site` annotations (index fields) of rank 0's block:
//   site user <name>
//   site executable <name>
//   site job_id <id>
//   site pid <rank 0's pid>
//   site hosts <count>
//   site host <escaped name> <rank ranges>      (one per host, in order of first rank)
// `rank_hosts[r]`: the host of world rank r.
std::string format_site_annotations(const SiteLogName& name, const std::vector<std::string>& rank_hosts);

// Writes `content` as the site log: creates it in the opened `day_folder` (exclusive,
// unnamed where possible, `mode`), writes, syncs, then links it under `name` (never
// replacing; on a taken name tries random suffixes). Returns the published path, or ""
// with `problem` set.
std::string publish_site_log(int day_folder, const std::string& folder_path, const SiteLogName& name, mode_t mode,
                             std::string_view content, std::string& problem);

}  // namespace mpimon
