// Where a job's ranks ran and the bytes that crossed hosts: what the placement tests
// measure (hostfile and Slurm modes).
#pragma once

#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "formats/job_format.h"
#include "readers/job_reader.h"

namespace mpimon::test {

// rank -> host name, from the "rank <r>: host <name>" lines of mpi_patterns and
// reorder_patterns.
inline std::map<int, std::string> hosts_of(const std::string& output) {
  std::map<int, std::string> hosts;
  static const std::regex line(R"(rank (\d+): host (\S+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line); it != std::sregex_iterator(); ++it)
    hosts[std::stoi((*it)[1])] = (*it)[2];
  return hosts;
}

// Bytes of point-to-point records between ranks on different hosts, from a job file: the
// application's (E), or with `internal` also the collectives' decomposed messages (E + I).
inline uint64_t crossing_bytes(const std::filesystem::path& job_file, const std::map<int, std::string>& hosts,
                               bool internal = false) {
  uint64_t crossing = 0;
  for (const mpimon::JobRecord& r : mpimon::read_job_file(job_file.string()).records)
    if ((r.category == mpimon::Category::external || (internal && r.category == mpimon::Category::internal)) &&
        hosts.at(r.source) != hosts.at(r.destination))
      crossing += r.counters.bytes;
  return crossing;
}

}  // namespace mpimon::test
