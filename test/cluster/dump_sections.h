// The parts of a job's dumps that must be equal wherever the same program ran (one host,
// emulated hosts, under Slurm), whatever differs in their headers (times, hosts).
#pragma once

#include <filesystem>
#include <sstream>
#include <string>

#include "mpi_job.h"

namespace mpimon::test {

// The "# POINT TO POINT" section of a .prof file, byte for byte.
inline std::string point_to_point_section(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  const size_t begin = text.find("# POINT TO POINT\n");
  if (begin == std::string::npos) return "(no point-to-point section in " + file.string() + ")";
  const size_t end = text.find("\n# ", begin + 1);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

// Everything after the job file's `records` line (records and annotations), without the
// per-rank `checksum` lines (rank 0's covers the header, whose times differ between runs),
// the `series` line (it names the series folder, after the job file's own name) and the
// `eof` line (the file's size, which holds that name).
inline std::string job_records(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  const size_t at = text.find("\nrecords\n");
  if (at == std::string::npos) return "(no records in " + file.string() + ")";
  std::string kept;
  std::istringstream lines(text.substr(at));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("checksum ", 0) != 0 && line.rfind("series ", 0) != 0 && line.rfind("eof ", 0) != 0)
      kept += line + "\n";
  return kept;
}

}  // namespace mpimon::test
