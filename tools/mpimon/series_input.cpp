#include "series_input.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "dumps.h"
#include "formats/job_format.h"
#include "readers/format_error.h"

namespace mpimon::tools {

namespace fs = std::filesystem;

namespace {

// A time series folder: "<name>.series", a directory whose (first) file starts with a
// frame. Only the name and one file are looked at: a folder of 100 000 .prof files is
// not opened file by file.
bool is_series_folder(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::error_code ec;
  if (!path.ends_with(".series") || !fs::is_directory(path, ec)) return false;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().filename().string().front() == '.' || !entry.is_regular_file(ec)) continue;
    std::ifstream in(entry.path());
    std::string start(series::kFrameMagic.size(), '\0');
    in.read(start.data(), static_cast<std::streamsize>(start.size()));
    return start == series::kFrameMagic;
  }
  return false;
}

// The folder named by a job file's `series` line (relative to the job file's folder), or
// "": a text search (rank 0 writes the line, in its block, the first), not a parse.
std::string named_series(const std::string& job_file) {
  const std::string text = load_dump_file(job_file);
  if (!is_job_text(text)) return {};
  const size_t at = text.find("\nseries ");
  if (at == std::string::npos) return {};
  const size_t start = at + 8, end = std::min(text.find('\n', start), text.size());
  const std::string field = text.substr(start, end - start);
  if (field.empty() || field.find(' ') != std::string::npos) return {};
  return (fs::path(job_file).parent_path() / unescape_name(field)).string();
}

std::string seconds_text(double s) {
  if (std::isinf(s)) return "the end";
  char text[32];
  std::snprintf(text, sizeof text, "%g s", s);
  return text;
}

}  // namespace

std::string series_folder_of(const std::string& argument) {
  std::error_code ec;
  if (is_series_folder(argument)) return argument;
  if (!fs::exists(fs::symlink_status(argument, ec)) && is_series_folder(argument + ".series"))
    return argument + ".series";
  if (fs::is_regular_file(argument, ec)) {
    const std::string folder = named_series(argument);
    if (!folder.empty() && is_series_folder(folder)) return folder;
  }
  return {};
}

ResolvedInputs resolve_inputs(const std::vector<std::string>& arguments, const TimeOptions& time, std::ostream& notes) {
  if (time.given() && time.to <= time.from)
    throw std::invalid_argument("--to (" + seconds_text(time.to) + ") must be after --from (" +
                                seconds_text(time.from) + ")");
  auto texts = std::make_shared<std::map<std::string, std::string>>();  // the series read into memory
  ResolvedInputs resolved;
  std::vector<std::string> others;  // expanded together (a file named twice is read once)
  for (const std::string& argument : arguments) {
    std::error_code ec;
    // A finished job file is read as it is, unless a range is asked for.
    const bool finished_file = fs::is_regular_file(argument, ec);
    const std::string folder = finished_file && !time.given() ? std::string() : series_folder_of(argument);
    if (folder.empty()) {
      if (time.given())
        throw FormatError(argument +
                          ": no time series to select --from/--to in (a job run with "
                          "pml_monitoring_snapshot_interval above 0 has one)");
      others.push_back(argument);
      continue;
    }
    series::SeriesTotals totals(time.range());
    const series::SeriesInfo info = series::read_series(folder, [&](const series::SeriesFrame& f) { totals.add(f); });
    for (const std::string& note : info.notes) notes << "mpimon: " << note << '\n';
    if (!info.finished()) notes << "mpimon: " << argument << ": the job " << info.describe_end() << '\n';
    if (time.given())
      notes << "mpimon: " << argument << ": " << totals.frames_in_range() << " snapshots in the intervals from "
            << seconds_text(time.from) << " to " << seconds_text(time.to) << "\n";
    std::string text = totals.job_file_text(info);
    // Where it came from, for the report's timeline.
    text += "series " + escape_name(fs::absolute(folder, ec).string(), true) + "\n";
    if (time.given()) text += "series_range " + std::to_string(time.from) + " " + std::to_string(time.to) + "\n";
    const std::string name = folder + " (summed)";
    (*texts)[name] = std::move(text);
    resolved.files.push_back(name);
  }
  if (!others.empty()) {
    const std::vector<std::string> expanded = expand_dump_arguments(others);
    resolved.files.insert(resolved.files.end(), expanded.begin(), expanded.end());
  }
  resolved.load = [texts](const std::string& name) {
    const auto it = texts->find(name);
    return it != texts->end() ? it->second : load_dump_file(name);
  };
  return resolved;
}

}  // namespace mpimon::tools
