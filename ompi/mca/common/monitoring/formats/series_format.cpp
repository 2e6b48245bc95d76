#include "formats/series_format.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <iterator>

namespace mpimon::series {

namespace {

void append_number(std::string& out, uint64_t value) {
  char text[24];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  out.append(text, end);
}

}  // namespace

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t newline = std::min(text.find('\n'), text.size());
    lines.emplace_back(text.substr(0, newline));
    text.remove_prefix(newline == text.size() ? newline : newline + 1);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------
// start

std::string format_start_payload(const SeriesStart& s) {
  return "world_size " + std::to_string(s.world_size) + "\nenable_level " + std::to_string(s.enable_level) +
         "\nopen_mpi " + s.open_mpi_version + "\njob_start_us " + std::to_string(s.job_start_us) + "\ninterval_us " +
         std::to_string(s.interval_us) + "\nhost " + s.host + "\npid " + std::to_string(s.pid) + "\n";
}

TotalsView view_of(const Snapshot& records) {
  TotalsView view;
  view.reserve(records.size());
  for (const Record& r : records) view.push_back({r.peer, r.category, &r.counters});
  return view;
}

namespace {

uint64_t relaxed(const uint64_t& value) {
  return std::atomic_ref(const_cast<uint64_t&>(value)).load(std::memory_order_relaxed);
}

// One record of a payload: "<peer> <category> <messages> <bytes>[ <bucket>:<count>,...]".
void append_record(std::string& out, int32_t peer, Category category, const Counters& d) {
  append_number(out, static_cast<uint64_t>(peer));
  out += ' ';
  out += category_name(category);
  out += ' ';
  append_number(out, d.messages);
  out += ' ';
  append_number(out, d.bytes);
  char separator = ' ';
  for (int b = 0; b < kHistogramBuckets; ++b) {
    if (d.histogram[b] == 0) continue;
    out += separator;
    append_number(out, static_cast<uint64_t>(b));
    out += ':';
    append_number(out, d.histogram[b]);
    separator = ',';
  }
  out += '\n';
}

// The whole block, its message count being its histogram's sum.
Counters read_whole(const Counters& live) {
  Counters c = load_counters(live);
  uint64_t messages = 0;
  for (uint64_t count : c.histogram) messages += count;
  c.messages = messages;
  return c;
}

}  // namespace

std::string DeltaEncoder::payload(const TotalsView& now, const std::vector<std::string>& annotation_lines,
                                  std::string_view end_reason) {
  std::string out;
  if (!end_reason.empty()) {
    out += "end ";
    out += end_reason;
    out += '\n';
  }
  changed_ = false;
  updates_.clear();
  inserts_.clear();
  size_t i = 0;
  for (const TotalsEntry& e : now) {
    while (i < committed_.size() &&
           (committed_[i].peer != e.peer ? committed_[i].peer < e.peer : committed_[i].category < e.category))
      ++i;
    const bool seen = i < committed_.size() && committed_[i].peer == e.peer && committed_[i].category == e.category;
    if (seen) {
      const Counters& last = committed_[i].counters;
      if (relaxed(e.counters->messages) == last.messages && relaxed(e.counters->bytes) == last.bytes) continue;
      const Counters whole = read_whole(*e.counters);
      if (whole.messages == last.messages && whole.bytes == last.bytes) continue;  // a message half-counted
      Counters d = whole;
      d.messages -= last.messages;
      d.bytes -= last.bytes;
      for (int b = 0; b < kHistogramBuckets; ++b) d.histogram[b] -= last.histogram[b];
      append_record(out, e.peer, e.category, d);
      updates_.emplace_back(i, whole);
    } else {
      Record r{e.peer, e.category, read_whole(*e.counters)};
      if (r.counters.messages == 0 && r.counters.bytes == 0) continue;
      append_record(out, e.peer, e.category, r.counters);
      inserts_.push_back(r);
    }
    changed_ = true;
  }
  std::vector<size_t> changed_lines;
  for (size_t k = 0; k < annotation_lines.size(); ++k)
    if (k >= committed_lines_.size() || annotation_lines[k] != committed_lines_[k]) changed_lines.push_back(k);
  if (!changed_lines.empty() || annotation_lines.size() != committed_lines_.size()) {
    changed_ = true;
    out += "annotations ";
    append_number(out, annotation_lines.size());
    out += ' ';
    append_number(out, changed_lines.size());
    out += '\n';
    for (size_t k : changed_lines) {
      append_number(out, k);
      out += ' ';
      out += annotation_lines[k];
      out += '\n';
    }
  }
  pending_lines_ = annotation_lines;
  return out;
}

void DeltaEncoder::commit() {
  for (const auto& [index, totals] : updates_) committed_[index].counters = totals;
  if (!inserts_.empty()) {  // new peers: one merge (rare once a process knows its peers)
    Snapshot merged;
    merged.reserve(committed_.size() + inserts_.size());
    std::merge(committed_.begin(), committed_.end(), inserts_.begin(), inserts_.end(), std::back_inserter(merged),
               record_before);
    committed_.swap(merged);
  }
  updates_.clear();
  inserts_.clear();
  committed_lines_.swap(pending_lines_);
}

}  // namespace mpimon::series
