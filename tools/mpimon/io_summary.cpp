#include "io_summary.h"

#include <algorithm>
#include <cstdio>

namespace mpimon::tools {

using mpi_io::Direction;

Total IoFileSummary::bytes() const {
  Total sum = shuffle;
  for (int d = 0; d < mpi_io::kDirectionCount; ++d) sum += asked[d] + reached[d] + failed_bytes[d];
  return sum;
}

bool IoFileSummary::any_failed() const { return failed_operations[0] + failed_operations[1] != 0; }

std::vector<IoFileSummary> summarize_files(const mpi_io::IoTable& io) {
  std::vector<IoFileSummary> out;
  out.reserve(io.files().size());
  for (const auto& [identity, f] : io.files()) {
    IoFileSummary s;
    s.name = f.name.empty() ? identity : f.name;
    s.ranks = f.ranks.size();
    for (const auto& [rank, use] : f.ranks) {
      for (int d = 0; d < mpi_io::kDirectionCount; ++d) {
        s.asked[d] += use.asked_bytes(static_cast<Direction>(d));
        s.reached[d] += use.fs[d].bytes;
        s.failed_operations[d] += use.fs[d].failed_operations;
        s.failed_bytes[d] += use.fs[d].failed_bytes;
      }
      for (const auto& [peer, traffic] : use.shuffle) s.shuffle += traffic.bytes;
      if (use.aggregated_calls > 0) ++s.aggregators;
      for (int t = 0; t < mpi_io::kTimerCount; ++t) s.seconds[t] += use.seconds[t];
      s.file_system = s.file_system || use.io == "ompio";
      const std::string c = use.io + (use.fcoll.empty() ? "" : "/" + use.fcoll);
      if (!c.empty() && (" " + s.components + " ").find(" " + c + " ") == std::string::npos)
        s.components += (s.components.empty() ? "" : " ") + c;
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// "<bytes>" and, when some failed, " (<n> failed ops, <B> B)".
std::string reached_text(const IoFileSummary& f, int d) {
  if (!f.file_system) return "-";
  std::string text = total_text(f.reached[d]);
  if (f.failed_operations[d] != 0)
    text += " (" + total_text(f.failed_operations[d]) + " failed ops, " + total_text(f.failed_bytes[d]) + " B)";
  return text;
}

}  // namespace

std::string format_io_summary_text(const std::vector<IoFileSummary>& files) {
  if (files.empty()) return {};
  std::vector<const IoFileSummary*> shown;
  for (const IoFileSummary& f : files) shown.push_back(&f);
  if (shown.size() > kMaxFileRows) {
    std::partial_sort(shown.begin(), shown.begin() + kMaxFileRows, shown.end(),
                      [](const IoFileSummary* a, const IoFileSummary* b) { return a->bytes() > b->bytes(); });
    shown.resize(kMaxFileRows);
    std::sort(shown.begin(), shown.end(),
              [&](const IoFileSummary* a, const IoFileSummary* b) { return a < b; });  // identity order
  }
  const std::vector<std::string> header = {
      "file",          "ranks",           "io",        "read asked", "read reached",
      "written asked", "written reached", "shuffle B", "aggregators"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const IoFileSummary* f : shown)
    rows.push_back({f->name, std::to_string(f->ranks), f->components.empty() ? "-" : f->components,
                    total_text(f->asked[0]), reached_text(*f, 0), total_text(f->asked[1]), reached_text(*f, 1),
                    total_text(f->shuffle), f->file_system ? std::to_string(f->aggregators) : "-"});
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out =
      "# MPI-IO files: bytes asked by the application's calls, bytes that reached the file system (ompio's fbtl; "
      "- under ROMIO) and, apart, the operations that failed there\n";
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool left = c == 0 || c == 2;  // names
      const std::string pad(width[c] - row[c].size(), ' ');
      line += (c ? "  " : "") + (left ? row[c] + (c + 1 < row.size() ? pad : "") : pad + row[c]);
    }
    out += line + '\n';
  }
  if (files.size() > kMaxFileRows)
    out += std::to_string(files.size() - kMaxFileRows) + " more files not shown (the " + std::to_string(kMaxFileRows) +
           " with the most bytes are)\n";
  return out;
}

}  // namespace mpimon::tools
