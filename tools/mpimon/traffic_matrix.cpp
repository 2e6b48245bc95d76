#include "traffic_matrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

namespace mpimon::tools {

namespace fs = std::filesystem;

void TrafficMatrix::add(Category category, int32_t source, int32_t destination, Traffic traffic) {
  Traffic& t = entries_[{category, source, destination}];
  t.messages += traffic.messages;
  t.bytes += traffic.bytes;
  ranks_ = std::max({ranks_, source + 1, destination + 1});
}

void TrafficMatrix::add_prof(const ProfFile& file) {
  for (const ProfLine& line : file.lines) {
    Category category = Category::external;
    switch (line.kind) {
      case 'E': category = Category::external; break;
      case 'I': category = Category::internal; break;
      case 'S': category = Category::osc_sent; break;
      case 'R': category = Category::osc_recv; break;
      case 'C': category = Category::coll; break;
    }
    add(category, line.me, line.peer, {line.messages, line.bytes});
  }
}

void TrafficMatrix::add_job(const JobFile& file) {
  for (const JobRecord& r : file.records) add(r.category, r.source, r.destination, {r.counters.messages, r.counters.bytes});
  ranks_ = std::max(ranks_, file.header.world_size);
}

Traffic TrafficMatrix::at(Category category, int32_t source, int32_t destination) const {
  auto it = entries_.find({category, source, destination});
  return it == entries_.end() ? Traffic{} : it->second;
}

bool TrafficMatrix::has(Category category) const {
  auto it = entries_.lower_bound({category, 0, 0});
  return it != entries_.end() && std::get<0>(it->first) == category;
}

namespace {

// Rank of "<anything>.<rank>.prof", or -1.
long rank_of(const fs::path& path) {
  static const std::regex pattern(R"(.*\.([0-9]+)\.prof$)");
  std::smatch m;
  const std::string name = path.filename().string();
  return std::regex_match(name, m, pattern) ? std::stol(m[1]) : -1;
}

}  // namespace

std::vector<std::string> expand_dump_arguments(const std::vector<std::string>& arguments) {
  std::vector<std::string> files;
  for (const std::string& argument : arguments) {
    const fs::path path(argument);
    std::vector<fs::path> found;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      files.push_back(argument);
      continue;
    }
    fs::path folder = path;
    std::string prefix;
    if (!fs::is_directory(path, ec)) {  // a prefix
      folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
      prefix = path.filename().string() + ".";
    }
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && rank_of(entry.path()) >= 0 &&
          name.find('.', prefix.size()) == name.size() - 5)  // exactly <prefix><rank>.prof
        found.push_back(entry.path());
    }
    if (found.empty())
      throw FormatError(argument + ": no such file, and no " + (prefix.empty() ? "*" : prefix + "<rank>") +
                        ".prof files in " + folder.string());
    std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) { return rank_of(a) < rank_of(b); });
    for (const auto& f : found) files.push_back(f.string());
  }
  return files;
}

namespace {

bool is_job_file(const std::string& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  return first.rfind("# mpimon job file", 0) == 0;
}

}  // namespace

TrafficMatrix read_dump_files(const std::vector<std::string>& paths) {
  TrafficMatrix matrix;
  for (const std::string& path : paths) {
    if (is_job_file(path)) {
      matrix.add_job(read_job_file(path));
    } else {
      matrix.add_prof(read_prof_file(path));
    }
  }
  return matrix;
}

std::string format_text_matrix(const TrafficMatrix& matrix, Category category, Metric metric) {
  const int32_t n = matrix.ranks();
  std::vector<std::string> cells(static_cast<size_t>(n) * n, ".");
  size_t width = std::to_string(std::max(n - 1, 0)).size();
  for (const auto& [key, traffic] : matrix.entries()) {
    const auto& [c, source, destination] = key;
    if (c != category) continue;
    std::string& cell = cells[static_cast<size_t>(source) * n + destination];
    cell = std::to_string(metric == Metric::messages ? traffic.messages : traffic.bytes);
    width = std::max(width, cell.size());
  }
  auto pad = [&](const std::string& s) { return std::string(width + 1 - s.size(), ' ') + s; };
  std::string out = std::string(width + 4, ' ');
  for (int32_t d = 0; d < n; ++d) out += pad(std::to_string(d));
  out += "   <- receiver\n";
  for (int32_t s = 0; s < n; ++s) {
    out += pad(std::to_string(s)) + " | ";
    for (int32_t d = 0; d < n; ++d) out += pad(cells[static_cast<size_t>(s) * n + d]);
    out += '\n';
  }
  return out;
}

}  // namespace mpimon::tools
