// A job's records as one table, (source, destination, category) -> (messages, bytes), from
// its .prof files or its job file: what the pvar and job-file tests compare.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "mpi_job.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

namespace mpimon::test {

// (source, destination, category) -> (messages, bytes) from the .prof files of a job.
inline std::map<std::tuple<int, int, Category>, std::pair<uint64_t, uint64_t>> prof_records(
    const std::filesystem::path& folder, const std::string& prefix, int ranks) {
  std::map<std::tuple<int, int, Category>, std::pair<uint64_t, uint64_t>> out;
  for (const ProfLine& l : read_lines(folder, ranks, prefix)) {
    const Category c = l.kind == 'E'   ? Category::external
                       : l.kind == 'I' ? Category::internal
                       : l.kind == 'S' ? Category::osc_sent
                       : l.kind == 'R' ? Category::osc_recv
                                       : Category::coll;
    auto& v = out[{l.me, l.peer, c}];
    v.first += l.messages;
    v.second += l.bytes;
  }
  return out;
}

inline std::map<std::tuple<int, int, Category>, std::pair<uint64_t, uint64_t>> job_records(const JobFile& file) {
  std::map<std::tuple<int, int, Category>, std::pair<uint64_t, uint64_t>> out;
  for (const JobRecord& r : file.records)
    out[{r.source, r.destination, r.category}] = {r.counters.messages, r.counters.bytes};
  return out;
}

}  // namespace mpimon::test
