#include "formats/series_format.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <iterator>

#include "formats/prof_format.h"  // FormatError

namespace mpimon::series {

namespace {

// One line of a payload, split into space-separated words, with errors naming the line.
struct LineCursor {
  std::string_view rest;
  std::string_view where;
  size_t line_no;

  [[noreturn]] void fail(const std::string& expected) const {
    throw FormatError(std::string(where) + ": line " + std::to_string(line_no) + ": expected " + expected);
  }
  std::string_view word(const char* what) {
    if (rest.empty()) fail(std::string(what) + ", found end of line");
    const size_t space = std::min(rest.find(' '), rest.size());
    const std::string_view w = rest.substr(0, space);
    if (w.empty()) fail(std::string(what) + ", found a second space");
    rest.remove_prefix(space == rest.size() ? space : space + 1);
    return w;
  }
  template <typename Int>
  Int number(std::string_view text, const char* what) const {
    Int value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
      fail(std::string(what) + ", found '" + std::string(text.substr(0, 40)) + "'");
    return value;
  }
  template <typename Int>
  Int number(const char* what) {
    return number<Int>(word(what), what);
  }
  void end() const {
    if (!rest.empty()) fail("end of line, found '" + std::string(rest.substr(0, 40)) + "'");
  }
};

// Calls on_line(cursor) for each line of a payload that must end with '\n'.
template <typename OnLine>
void for_each_line(std::string_view payload, std::string_view where, OnLine&& on_line) {
  if (!payload.empty() && payload.back() != '\n')
    throw FormatError(std::string(where) + ": expected a payload ending with a newline");
  size_t line_no = 0;
  while (!payload.empty()) {
    const size_t newline = payload.find('\n');
    LineCursor cursor{payload.substr(0, newline), where, ++line_no};
    payload.remove_prefix(newline + 1);
    on_line(cursor);
  }
}

void append_number(std::string& out, uint64_t value) {
  char text[24];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  out.append(text, end);
}

bool before(const Record& a, const Record& b) { return a.peer != b.peer ? a.peer < b.peer : a.category < b.category; }

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

SeriesStart parse_start_payload(std::string_view payload, std::string_view where) {
  SeriesStart s;
  unsigned seen = 0;  // one bit per key
  static constexpr const char* kKeys[] = {"world_size",  "enable_level", "open_mpi", "job_start_us",
                                          "interval_us", "host",         "pid"};
  for_each_line(payload, where, [&](LineCursor& c) {
    const std::string_view key = c.word("a key");
    int index = -1;
    for (int k = 0; k < 7; ++k)
      if (key == kKeys[k]) index = k;
    if (index < 0) return;  // a key from a later version: ignored
    if (seen & (1u << index)) c.fail("one '" + std::string(key) + "' line, found a second one");
    seen |= 1u << index;
    switch (index) {
      case 0:
        s.world_size = c.number<int>("the world size");
        if (s.world_size <= 0) c.fail("a positive world size");
        break;
      case 1:
        s.enable_level = c.number<int>("the enable level");
        break;
      case 2:
        s.open_mpi_version = c.word("an Open MPI version");
        break;
      case 3:
        s.job_start_us = c.number<int64_t>("the job's start in microseconds");
        break;
      case 4:
        s.interval_us = c.number<int64_t>("the interval in microseconds");
        if (s.interval_us <= 0) c.fail("a positive interval");
        break;
      case 5:
        s.host = c.word("a host name");
        break;
      case 6:
        s.pid = c.number<int64_t>("a process id");
        break;
    }
    c.end();
  });
  for (int k = 0; k < 7; ++k)
    if (!(seen & (1u << k))) throw FormatError(std::string(where) + ": expected a '" + kKeys[k] + "' line");
  return s;
}

// ---------------------------------------------------------------------------------------
// snapshot, final

SnapshotDelta parse_snapshot_payload(std::string_view payload, bool final, int world_size, std::string_view where) {
  SnapshotDelta delta;
  enum { reason, records, annotations } part = final ? reason : records;
  size_t annotation_lines_left = 0;
  bool have_annotation_header = false;
  for_each_line(payload, where, [&](LineCursor& c) {
    if (part == reason) {
      if (c.word("'end <reason>'") != "end") c.fail("'end <reason>' as a final frame's first line");
      const std::string_view why = c.word("a reason (finalize, signal <n>, exit)");
      if (why == "signal") {
        const int signal = c.number<int>("a signal number");
        if (signal <= 0 || signal > 64) c.fail("a signal number in [1, 64]");
        delta.end_reason = "signal " + std::to_string(signal);
      } else if (why == "finalize" || why == "exit") {
        delta.end_reason = std::string(why);
      } else {
        c.fail("a reason (finalize, signal <n>, exit), found '" + std::string(why.substr(0, 40)) + "'");
      }
      c.end();
      part = records;
      return;
    }
    if (part == records && c.rest.substr(0, 12) == "annotations ") {
      c.word("annotations");
      delta.annotation_count = c.number<uint32_t>("the number of annotation lines");
      annotation_lines_left = c.number<uint32_t>("the number of changed annotation lines");
      if (annotation_lines_left > delta.annotation_count)
        c.fail("at most " + std::to_string(delta.annotation_count) + " changed lines");
      c.end();
      delta.annotations_changed = have_annotation_header = true;
      part = annotations;
      return;
    }
    if (part == annotations) {
      if (annotation_lines_left == 0) c.fail("end of the payload after the announced annotation lines");
      --annotation_lines_left;
      AnnotationChange change;
      change.index = c.number<uint32_t>("an annotation line's index");
      if (change.index >= delta.annotation_count) c.fail("an index below " + std::to_string(delta.annotation_count));
      if (!delta.annotation_changes.empty() && change.index <= delta.annotation_changes.back().index)
        c.fail("indexes in increasing order");
      if (c.rest.empty() || c.rest.front() < 'a' || c.rest.front() > 'z')
        c.fail("an annotation line (a lower-case keyword and fields)");
      change.line = std::string(c.rest);
      delta.annotation_changes.push_back(std::move(change));
      return;
    }
    Record r;
    r.peer = c.number<int32_t>("a peer rank");
    if (r.peer < 0 || r.peer >= world_size) c.fail("a peer rank in [0, " + std::to_string(world_size) + ")");
    const std::string_view category = c.word("a category");
    if (!parse_category(category, r.category))
      c.fail("a category (external, internal, coll, osc_sent, osc_recv, io_shuffle), found '" +
             std::string(category.substr(0, 40)) + "'");
    r.counters.messages = c.number<uint64_t>("a message count");
    r.counters.bytes = c.number<uint64_t>("a byte count");
    uint64_t total = 0;
    if (!c.rest.empty()) {
      std::string_view histogram = c.word("a histogram");
      int previous = -1;
      while (!histogram.empty()) {
        const size_t comma = std::min(histogram.find(','), histogram.size());
        const std::string_view item = histogram.substr(0, comma);
        histogram.remove_prefix(comma == histogram.size() ? comma : comma + 1);
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos)
          c.fail("<bucket>:<count>, found '" + std::string(item.substr(0, 40)) + "'");
        const int bucket = c.number<int>(item.substr(0, colon), "a histogram bucket");
        if (bucket <= previous || bucket >= kHistogramBuckets) c.fail("histogram buckets increasing within [0, 65]");
        previous = bucket;
        const uint64_t count = c.number<uint64_t>(item.substr(colon + 1), "a histogram count");
        if (count == 0) c.fail("a non-zero histogram count");
        if (total + count < total) c.fail("histogram counts whose sum fits in 64 bits");
        r.counters.histogram[bucket] = count;
        total += count;
      }
    }
    c.end();
    if (total != r.counters.messages)
      c.fail("histogram counts summing to the message count " + std::to_string(r.counters.messages) + ", found " +
             std::to_string(total));
    if (r.counters.messages == 0 && r.counters.bytes == 0) c.fail("a record with a non-zero count");
    if (!delta.records.empty() && !before(delta.records.back(), r))
      c.fail("records in increasing (peer, category) order, each once");
    delta.records.push_back(r);
  });
  if (part == reason) throw FormatError(std::string(where) + ": expected 'end <reason>' in a final frame");
  if (have_annotation_header && annotation_lines_left != 0)
    throw FormatError(std::string(where) + ": expected " + std::to_string(annotation_lines_left) +
                      " more annotation lines, found the end of the payload");
  return delta;
}

void apply_annotation_changes(const SnapshotDelta& delta, std::vector<std::string>& lines) {
  if (!delta.annotations_changed) return;
  lines.resize(delta.annotation_count);
  for (const AnnotationChange& change : delta.annotation_changes) lines[change.index] = change.line;
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
               before);
    committed_.swap(merged);
  }
  updates_.clear();
  inserts_.clear();
  committed_lines_.swap(pending_lines_);
}

}  // namespace mpimon::series
