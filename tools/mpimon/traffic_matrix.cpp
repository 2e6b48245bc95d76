#include "traffic_matrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

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
  cover_ranks(file.header.world_size);
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

bool is_job_file(const std::string& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  return first.rfind("# mpimon job file", 0) == 0;
}

TrafficMatrix read_dump_files(const std::vector<std::string>& paths) {
  TrafficMatrix matrix;
  for (const std::string& path : paths) {
    if (is_job_file(path)) {
      const JobHeader header = for_each_job_record(read_dump_text(path), path, [&](const JobRecord& r) {
        matrix.add(r.category, r.source, r.destination, {r.counters.messages, r.counters.bytes});
      });
      matrix.cover_ranks(header.world_size);
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

const char* metric_name(Metric metric) {
  switch (metric) {
    case Metric::messages: return "msg";
    case Metric::bytes: return "size";
    case Metric::average: return "avg";
  }
  return "?";
}

const char* file_extension(FileFormat format) {
  switch (format) {
    case FileFormat::csv: return "csv";
    case FileFormat::mat: return "mat";
    case FileFormat::matrix_market: return "mtx";
  }
  return "?";
}

namespace {

Traffic selected(const TrafficMatrix& matrix, Selection selection, int32_t source, int32_t destination) {
  if (!selection.all) return matrix.at(selection.category, source, destination);
  Traffic sum;
  for (int c = 0; c < kCategoryCount; ++c) {
    const Traffic t = matrix.at(static_cast<Category>(c), source, destination);
    sum.messages += t.messages;
    sum.bytes += t.bytes;
  }
  return sum;
}

std::string number_text(double value, Metric metric) {
  char text[64];
  if (metric == Metric::average) {
    std::snprintf(text, sizeof text, "%.6g", value);
  } else {
    std::snprintf(text, sizeof text, "%.0f", value);
  }
  return text;
}

}  // namespace

double cell_value(const TrafficMatrix& matrix, Selection selection, Metric metric, int32_t source,
                  int32_t destination, bool symmetric) {
  const Traffic forward = selected(matrix, selection, source, destination);
  double messages = static_cast<double>(forward.messages), bytes = static_cast<double>(forward.bytes);
  if (symmetric) {
    const Traffic backward = selected(matrix, selection, destination, source);
    messages = (messages + static_cast<double>(backward.messages)) / 2;
    bytes = (bytes + static_cast<double>(backward.bytes)) / 2;
  }
  switch (metric) {
    case Metric::messages: return messages;
    case Metric::bytes: return bytes;
    case Metric::average: return messages > 0 ? bytes / messages : 0.0;
  }
  return 0.0;
}

std::string format_matrix(const TrafficMatrix& matrix, Selection selection, Metric metric, FileFormat format,
                          bool symmetric) {
  const int32_t n = matrix.ranks();
  std::string out;
  if (format == FileFormat::matrix_market) {
    // Non-zero cells only: the sparse entries and, when symmetric, their mirrors.
    std::set<std::pair<int32_t, int32_t>> cells;
    for (const auto& [key, traffic] : matrix.entries()) {
      const auto& [c, source, destination] = key;
      if (!selection.all && c != selection.category) continue;
      cells.insert({source, destination});
      if (symmetric) cells.insert({destination, source});
    }
    std::string body;
    size_t non_zeros = 0;
    for (const auto& [source, destination] : cells) {
      const double v = cell_value(matrix, selection, metric, source, destination, symmetric);
      if (v == 0) continue;
      body += std::to_string(source + 1) + ' ' + std::to_string(destination + 1) + ' ' + number_text(v, metric) + '\n';
      ++non_zeros;
    }
    out = "%%MatrixMarket matrix coordinate real general\n% mpimon: " + selection.name() + " " + metric_name(metric) +
          (symmetric ? " (symmetric average)" : "") + ", row = sender, column = receiver\n" +
          std::to_string(n) + ' ' + std::to_string(n) + ' ' + std::to_string(non_zeros) + '\n' + body;
    return out;
  }
  if (format == FileFormat::csv) {
    out = "sender";
    for (int32_t d = 0; d < n; ++d) out += ',' + std::to_string(d);
    out += '\n';
  }
  for (int32_t s = 0; s < n; ++s) {
    if (format == FileFormat::csv) out += std::to_string(s);
    for (int32_t d = 0; d < n; ++d) {
      const double v = cell_value(matrix, selection, metric, s, d, symmetric);
      if (format == FileFormat::csv) {
        out += ',' + number_text(v, metric);
      } else {
        char text[64];
        std::snprintf(text, sizeof text, "%.0f ", v);  // profile2mat.pl's printf
        out += text;
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace mpimon::tools
