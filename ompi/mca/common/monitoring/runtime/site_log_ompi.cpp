#include "runtime/site_log_ompi.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "files/site_log.h"
#include "runtime/program_name.h"
#include "runtime/runtime.h"

namespace mpimon {
namespace {

constexpr int kHostField = 64;  // bytes per rank's host name (HOST_NAME_MAX), NUL-padded

// The user who ran the job, from the password database (the environment's USER is the
// user's to change; the index trusts the file's owner anyway).
std::string job_user() {
  if (const passwd* entry = ::getpwuid(::geteuid()); entry != nullptr) return entry->pw_name;
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  return std::to_string(::geteuid());
}

// Every rank's block, at rank 0, in rank order. One Gatherv while the total fits an int,
// else one message per rank (jobs whose text exceeds 2 GiB).
std::vector<std::string> gather_blocks(MPI_Comm comm, int rank, int size, const std::string& block) {
  unsigned long long mine = block.size();
  std::vector<unsigned long long> lengths(rank == 0 ? size : 0);
  PMPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, lengths.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  unsigned long long total = 0;
  for (unsigned long long l : lengths) total += l;
  PMPI_Bcast(&total, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  std::vector<std::string> blocks(rank == 0 ? size : 0);
  if (total <= static_cast<unsigned long long>(INT_MAX)) {
    std::vector<int> counts(lengths.begin(), lengths.end()), offsets(rank == 0 ? size : 0);
    for (int r = 1; r < static_cast<int>(offsets.size()); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
    std::string all(rank == 0 ? total : 0, '\0');
    PMPI_Gatherv(block.data(), static_cast<int>(block.size()), MPI_CHAR, all.data(), counts.data(), offsets.data(),
                 MPI_CHAR, 0, comm);
    for (int r = 0; r < static_cast<int>(blocks.size()); ++r) blocks[r] = all.substr(offsets[r], counts[r]);
    return blocks;
  }
  if (rank != 0) {
    PMPI_Send(block.data(), static_cast<int>(block.size()), MPI_CHAR, 0, 0, comm);
    return blocks;
  }
  blocks[0] = block;
  for (int r = 1; r < size; ++r) {
    blocks[r].resize(lengths[r]);
    PMPI_Recv(blocks[r].data(), static_cast<int>(lengths[r]), MPI_CHAR, r, 0, comm, MPI_STATUS_IGNORE);
  }
  return blocks;
}

std::vector<std::string> gather_hosts(MPI_Comm comm, int rank, int size) {
  char mine[kHostField] = {};
  if (::gethostname(mine, sizeof mine - 1) != 0) std::strcpy(mine, "unknown");
  std::vector<char> all(rank == 0 ? static_cast<size_t>(size) * kHostField : 0);
  PMPI_Gather(mine, kHostField, MPI_CHAR, all.data(), kHostField, MPI_CHAR, 0, comm);
  std::vector<std::string> hosts;
  if (rank != 0) return hosts;
  hosts.reserve(size);
  for (int r = 0; r < size; ++r) hosts.emplace_back(&all[static_cast<size_t>(r) * kHostField]);
  return hosts;
}

}  // namespace

void write_site_log(MPI_Comm comm, const Settings& settings, int rank, const JobHeader& header, const std::string& body,
                    long long start_time) {
  const auto started = std::chrono::steady_clock::now();
  int size = 0;
  PMPI_Comm_size(comm, &size);
  const std::vector<std::string> hosts = gather_hosts(comm, rank, size);
  std::vector<std::string> blocks = gather_blocks(comm, rank, size, body);
  if (rank != 0) return;

  SiteLogName name;
  name.user = job_user();
  name.executable = program_name();
  name.pid = static_cast<long>(::getpid());
  name.job_id = site_job_id([](const char* v) { return std::getenv(v); }, static_cast<long>(::getppid()));
  name.start_time = start_time;
  blocks[0] += format_site_annotations(name, hosts);

  const std::string day = site_log_day(start_time);
  const std::string folder = settings.site_log_root + "/" + day;
  std::string problem;
  std::string text;
  size_t text_bytes = 0;
  try {
    const std::string job_text = assemble_job_file(header, blocks);
    text_bytes = job_text.size();
    blocks.clear();
    text = gzip_compress(job_text);
  } catch (const std::exception& e) {
    warn("site log not written: " + std::string(e.what()));
    return;
  }
  bool group_readable = false;
  const int day_fd = open_site_day_folder(settings.site_log_root, day, group_readable, problem);
  if (day_fd < 0) {
    warn("site log not written: " + problem);
    return;
  }
  const std::string path = publish_site_log(day_fd, folder, name, site_log_mode(group_readable), text, problem);
  ::close(day_fd);
  if (path.empty()) {
    warn("site log not written: " + problem);
    return;
  }
  if (settings.verbose) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    warn("site log " + path + ": " + std::to_string(text.size()) + " bytes (" + std::to_string(text_bytes) +
         " uncompressed) from " + std::to_string(size) + " ranks, written in " + std::to_string(ms) + " ms");
  }
}

}  // namespace mpimon
