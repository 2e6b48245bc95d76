#include "formats/job_format.h"

#include "formats/checksum.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <unordered_map>

namespace mpimon {

std::string format_job_program(std::string_view program) { return "program " + escape_name(program, true) + "\n"; }

std::string escape_name(std::string_view name, bool escape_space) {
  std::string out;
  out.reserve(name.size());
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '%' || u < 0x20 || u == 0x7f || (escape_space && u == ' ')) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", u);
      out += hex;
    } else {
      out += c;
    }
  }
  if (out.empty()) out = "%00";  // never an empty field (MPI names cannot contain NUL)
  return out;
}

std::string unescape_name(std::string_view field) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '%' && i + 2 < field.size() && hex(field[i + 1]) >= 0 && hex(field[i + 2]) >= 0) {
      const char c = static_cast<char>(hex(field[i + 1]) * 16 + hex(field[i + 2]));
      if (c != '\0') out += c;
      i += 2;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::string format_rank_ranges(const std::vector<int32_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += '-' + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

bool parse_rank_ranges(std::string_view text, int32_t world_size, std::vector<int32_t>& ranks) {
  ranks.clear();
  if (text.empty() || text.back() == ',') return false;
  auto number = [](std::string_view digits, int32_t& value) {
    if (digits.empty() || digits.front() == '+' || digits.front() == '-') return false;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return ec == std::errc{} && end == digits.data() + digits.size() && value >= 0;
  };
  while (!text.empty()) {
    const size_t comma = std::min(text.find(','), text.size());
    const std::string_view item = text.substr(0, comma);
    text.remove_prefix(comma == text.size() ? comma : comma + 1);
    const size_t dash = item.find('-');
    int32_t first = 0, last = 0;
    if (dash == std::string_view::npos) {
      if (!number(item, first)) return false;
      last = first;
    } else if (!number(item.substr(0, dash), first) || !number(item.substr(dash + 1), last) || last < first) {
      return false;
    }
    if (last >= world_size || ranks.size() + static_cast<size_t>(last - first) >= static_cast<size_t>(world_size))
      return false;
    // Members are distinct and listed in rank order, which need not be increasing (a
    // communicator made with MPI_Comm_split and reordering keys): only ranges increase.
    for (int64_t r = first; r <= last; ++r) ranks.push_back(static_cast<int32_t>(r));
  }
  return true;
}

std::string iso8601_utc(long long seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string format_job_header(const JobHeader& h, int version) {
  return "# mpimon job file (one record per non-zero source, destination, category)\n"
         "format mpimon-job " +
         std::to_string(version) + "\n" + "world_size " + std::to_string(h.world_size) + "\n" + "enable_level " +
         std::to_string(h.enable_level) + "\n" + "open_mpi " + h.open_mpi_version + "\n" + "start " + h.start_time +
         "\n" + "end " + h.end_time + "\n" + "records\n";
}

std::string format_job_records(int32_t source, const Snapshot& records) {
  std::string out;
  out.reserve(records.size() * 48);
  const std::string from = std::to_string(source) + ' ';
  for (const Record& r : records) {
    out += from;
    out += std::to_string(r.peer);
    out += ' ';
    out += category_name(r.category);
    out += ' ';
    out += std::to_string(r.counters.messages);
    out += ' ';
    out += std::to_string(r.counters.bytes);
    char separator = ' ';
    for (int b = 0; b < kHistogramBuckets; ++b) {
      if (r.counters.histogram[b] == 0) continue;
      out += separator;
      out += std::to_string(b);
      out += ':';
      out += std::to_string(r.counters.histogram[b]);
      separator = ',';
    }
    out += '\n';
  }
  return out;
}

void seal_job_block(int32_t rank, std::string& block) {
  block +=
      "checksum " + std::to_string(rank) + " " + std::to_string(block.size()) + " " + to_hex(crc32c(block), 8) + "\n";
}

std::string job_end_line(uint64_t bytes_before) { return "eof " + std::to_string(bytes_before) + "\n"; }

std::string assemble_job_file(const JobHeader& header, const std::vector<std::string>& bodies) {
  std::string file;
  for (size_t rank = 0; rank < bodies.size(); ++rank) {
    std::string block = (rank == 0 ? format_job_header(header) : std::string()) + bodies[rank];
    seal_job_block(static_cast<int32_t>(rank), block);
    file += block;
  }
  return file + job_end_line(file.size());
}

}  // namespace mpimon
