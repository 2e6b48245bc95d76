// Synthetic time-series folders for the reader's and the tools' tests: frames written as
// a job's processes would, or as an attacker would.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "formats/series_format.h"
#include "formats/series_frame.h"

namespace mpimon::test {

struct SeriesBuilder {
  int world_size = 4;
  int64_t job_start_us = 1700000000000000;
  int64_t interval_us = 1000000;
  std::map<std::string, std::string> files;  // host -> bytes

  series::SeriesStart start_of(const std::string& host, int32_t rank) const {
    return {world_size, 2, "4.1.4", job_start_us, interval_us, host, 1000 + rank};
  }
  SeriesBuilder& start(const std::string& host, int32_t rank) {
    files[host] += series::encode_frame({series::FrameKind::start, rank, 0, job_start_us},
                                        series::format_start_payload(start_of(host, rank)));
    return *this;
  }
  // A frame closing interval k, taken at the end of it.
  SeriesBuilder& frame(const std::string& host, int32_t rank, uint64_t k, const std::string& payload,
                       series::FrameKind kind = series::FrameKind::snapshot) {
    files[host] += series::encode_frame({kind, rank, k, job_start_us + static_cast<int64_t>(k) * interval_us}, payload);
    return *this;
  }
  SeriesBuilder& raw(const std::string& host, const std::string& bytes) {
    files[host] += bytes;
    return *this;
  }
  void write(const std::string& folder) const {
    std::filesystem::create_directories(folder);
    for (const auto& [host, bytes] : files) std::ofstream(folder + "/" + host, std::ios::binary) << bytes;
  }
};

}  // namespace mpimon::test
