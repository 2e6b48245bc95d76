#include "readers/series_payload_reader.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "readers/format_error.h"

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

}  // namespace

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
    if (!delta.records.empty() && !record_before(delta.records.back(), r))
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

}  // namespace mpimon::series
