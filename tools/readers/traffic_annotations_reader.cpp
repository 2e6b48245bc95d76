#include "readers/traffic_annotations_reader.h"

#include <cmath>
#include <optional>

#include "analyses/window_sync.h"  // sync_kind_name
#include "engine/engine.h"         // kCountLimit
#include "formats/job_format.h"    // unescape_name
#include "readers/text_fields.h"

namespace mpimon {

namespace {

void expect_fields(const JobAnnotation& a, std::string_view file, size_t n) {
  if (a.fields.size() != n)
    fail_at(file, a.line,
            std::to_string(n) + " fields after '" + a.keyword + "', found " + std::to_string(a.fields.size()));
}

uint64_t count_field(const JobAnnotation& a, size_t i, std::string_view file, const char* what) {
  const std::optional<uint64_t> value = parse_number<uint64_t>(a.fields[i]);
  if (!value || *value >= kCountLimit)
    fail_at(file, a.line, std::string(what) + " (a count below 2^60), found '" + a.fields[i] + "'");
  return *value;
}

int32_t rank_field(const JobAnnotation& a, size_t i, std::string_view file) {
  const std::optional<int32_t> rank = parse_number<int32_t>(a.fields[i]);
  if (!rank || *rank < 0) fail_at(file, a.line, "a rank, found '" + a.fields[i] + "'");
  return *rank;
}

double seconds_field(const JobAnnotation& a, size_t i, std::string_view file) {
  const std::optional<double> value = parse_number<double>(a.fields[i]);
  if (!value || !std::isfinite(*value) || *value < 0)
    fail_at(file, a.line, "a number of seconds >= 0, found '" + a.fields[i] + "'");
  return *value;
}

}  // namespace

bool is_sync_kind(std::string_view kind) {
  for (int k = 0; k < kSyncKindCount; ++k)
    if (kind == sync_kind_name(static_cast<SyncKind>(k))) return true;
  return false;
}

CollectivesLine read_collectives_line(const JobAnnotation& a, std::string_view file) {
  expect_fields(a, file, 8);
  CollectivesLine line;
  line.rank = rank_field(a, 0, file);
  line.communicator = unescape_name(a.fields[1]);
  for (int c = 0; c < 3; ++c) {
    line.calls[c] = count_field(a, 2 + 2 * c, file, "a call count");
    line.bytes[c] = count_field(a, 3 + 2 * c, file, "a byte count");
  }
  return line;
}

WindowSyncLine read_window_sync_line(const JobAnnotation& a, std::string_view file) {
  expect_fields(a, file, 5);
  WindowSyncLine line;
  line.rank = rank_field(a, 0, file);
  line.window = unescape_name(a.fields[1]);
  if (!is_sync_kind(a.fields[2])) fail_at(file, a.line, "a synchronisation kind, found '" + a.fields[2] + "'");
  line.kind = a.fields[2];
  line.calls = count_field(a, 3, file, "a call count");
  line.seconds = seconds_field(a, 4, file);
  return line;
}

}  // namespace mpimon
