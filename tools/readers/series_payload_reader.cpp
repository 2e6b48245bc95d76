#include "readers/series_payload_reader.h"

#include <algorithm>
#include <iterator>

#include "readers/format_error.h"
#include "readers/text_fields.h"

namespace mpimon::series {

namespace {

// One line of a payload: fields separated by exactly one space, errors naming the frame and
// the line, at most 40 characters of a bad field quoted (a payload is not the user's text).
FieldCursor payload_line(std::string_view line, std::string_view where, size_t line_no) {
  return FieldCursor(line, where, line_no, {FieldCursor::Separator::one_space, LinePlace::payload, 40});
}

// Calls on_line(cursor) for each line of a payload that must end with '\n'.
template <typename OnLine>
void for_each_line(std::string_view payload, std::string_view where, OnLine&& on_line) {
  if (!payload.empty() && payload.back() != '\n')
    throw FormatError(std::string(where) + ": expected a payload ending with a newline");
  size_t line_no = 0;
  while (!payload.empty()) {
    const size_t newline = payload.find('\n');
    FieldCursor cursor = payload_line(payload.substr(0, newline), where, ++line_no);
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
  for_each_line(payload, where, [&](FieldCursor& c) {
    const std::string_view key = c.next("a key");
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
        s.open_mpi_version = c.next("an Open MPI version");
        break;
      case 3:
        s.job_start_us = c.number<int64_t>("the job's start in microseconds");
        break;
      case 4:
        s.interval_us = c.number<int64_t>("the interval in microseconds");
        if (s.interval_us <= 0) c.fail("a positive interval");
        break;
      case 5:
        s.host = c.next("a host name");
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

namespace {

// "end <finalize|exit|signal <n>>": a final frame's first line.
std::string parse_end_reason(FieldCursor& c) {
  if (c.next("'end <reason>'") != "end") c.fail("'end <reason>' as a final frame's first line");
  const std::string_view why = c.next("a reason (finalize, signal <n>, exit)");
  std::string reason;
  if (why == "signal") {
    const int signal = c.number<int>("a signal number");
    if (signal <= 0 || signal > 64) c.fail("a signal number in [1, 64]");
    reason = "signal " + std::to_string(signal);
  } else if (why == "finalize" || why == "exit") {
    reason = std::string(why);
  } else {
    c.fail("a reason (finalize, signal <n>, exit), found '" + std::string(why.substr(0, 40)) + "'");
  }
  c.end();
  return reason;
}

// "<index> <annotation line>": one changed line, indexes increasing below the count.
AnnotationChange parse_annotation_change(FieldCursor& c, const SnapshotDelta& delta) {
  AnnotationChange change;
  change.index = c.number<uint32_t>("an annotation line's index");
  if (change.index >= delta.annotation_count) c.fail("an index below " + std::to_string(delta.annotation_count));
  if (!delta.annotation_changes.empty() && change.index <= delta.annotation_changes.back().index)
    c.fail("indexes in increasing order");
  if (c.rest().empty() || c.rest().front() < 'a' || c.rest().front() > 'z')
    c.fail("an annotation line (a lower-case keyword and fields)");
  change.line = std::string(c.rest());
  return change;
}

// "<bucket>:<count>,...": buckets increasing, counts non-zero; returns their sum.
uint64_t parse_histogram(FieldCursor& c, std::string_view histogram, Counters& counters) {
  uint64_t total = 0;
  int previous = -1;
  c.for_each_histogram_item(histogram, [&](int bucket, std::string_view count_text) {
    if (bucket <= previous || bucket >= kHistogramBuckets) c.fail("histogram buckets increasing within [0, 65]");
    previous = bucket;
    const uint64_t count = c.number<uint64_t>(count_text, "a histogram count");
    if (count == 0) c.fail("a non-zero histogram count");
    if (total + count < total) c.fail("histogram counts whose sum fits in 64 bits");
    counters.histogram[bucket] = count;
    total += count;
  });
  return total;
}

// "<peer> <category> <messages> <bytes> [<histogram>]": one changed record.
Record parse_record(FieldCursor& c, int world_size) {
  Record r;
  r.peer = c.number<int32_t>("a peer rank");
  if (r.peer < 0 || r.peer >= world_size) c.fail("a peer rank in [0, " + std::to_string(world_size) + ")");
  const std::string_view category = c.next("a category");
  if (!parse_category(category, r.category))
    c.fail("a category (external, internal, coll, osc_sent, osc_recv, io_shuffle), found '" +
           std::string(category.substr(0, 40)) + "'");
  r.counters.messages = c.number<uint64_t>("a message count");
  r.counters.bytes = c.number<uint64_t>("a byte count");
  uint64_t total = 0;
  if (!c.rest().empty()) total = parse_histogram(c, c.next("a histogram"), r.counters);
  c.end();
  if (total != r.counters.messages)
    c.fail("histogram counts summing to the message count " + std::to_string(r.counters.messages) + ", found " +
           std::to_string(total));
  if (r.counters.messages == 0 && r.counters.bytes == 0) c.fail("a record with a non-zero count");
  return r;
}

}  // namespace

SnapshotDelta parse_snapshot_payload(std::string_view payload, bool final, int world_size, std::string_view where) {
  SnapshotDelta delta;
  enum { reason, records, annotations } part = final ? reason : records;
  size_t annotation_lines_left = 0;
  bool have_annotation_header = false;
  for_each_line(payload, where, [&](FieldCursor& c) {
    if (part == reason) {
      delta.end_reason = parse_end_reason(c);
      part = records;
    } else if (part == records && c.rest().substr(0, 12) == "annotations ") {
      c.next("annotations");
      delta.annotation_count = c.number<uint32_t>("the number of annotation lines");
      annotation_lines_left = c.number<uint32_t>("the number of changed annotation lines");
      if (annotation_lines_left > delta.annotation_count)
        c.fail("at most " + std::to_string(delta.annotation_count) + " changed lines");
      c.end();
      delta.annotations_changed = have_annotation_header = true;
      part = annotations;
    } else if (part == annotations) {
      if (annotation_lines_left == 0) c.fail("end of the payload after the announced annotation lines");
      --annotation_lines_left;
      delta.annotation_changes.push_back(parse_annotation_change(c, delta));
    } else {
      const Record r = parse_record(c, world_size);
      if (!delta.records.empty() && !record_before(delta.records.back(), r))
        c.fail("records in increasing (peer, category) order, each once");
      delta.records.push_back(r);
    }
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
