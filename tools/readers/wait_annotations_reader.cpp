#include "readers/wait_annotations_reader.h"

#include <cmath>
#include <optional>

#include "readers/text_fields.h"

namespace mpimon::wait_states {

namespace {

[[noreturn]] void malformed(std::string_view file, const JobAnnotation& a, const std::string& expected) {
  fail_at(file, a.line, expected);
}

template <typename T>
bool parse_field(const std::string& text, T& value) {
  const std::optional<T> parsed = parse_number<T>(text);
  if (parsed) value = *parsed;
  return parsed.has_value();
}

bool parse_rank(const std::string& text, int32_t world_size, int32_t& rank) {
  return parse_field(text, rank) && rank >= 0 && (world_size <= 0 || rank < world_size);
}

bool parse_seconds(const std::string& text, double& value) { return parse_field(text, value) && std::isfinite(value); }

}  // namespace

WaitAnnotations read_wait_annotations(const std::vector<JobAnnotation>& annotations, std::string_view file_name,
                                      int32_t world_size) {
  WaitAnnotations out;
  const std::string ranks =
      world_size > 0 ? "ranks in [0, " + std::to_string(world_size) + ")" : std::string("ranks >= 0");
  for (const JobAnnotation& a : annotations) {
    const auto& f = a.fields;
    if (a.keyword == "wait_state") {
      WaitStateLine l;
      const auto pattern = f.size() == 6 ? pattern_of(f[2]) : std::nullopt;
      if (f.size() != 6 || !parse_rank(f[0], world_size, l.waiter) || !pattern ||
          !parse_rank(f[3], world_size, l.culprit) || !parse_field(f[4], l.count) || l.count >= kCountLimit ||
          !parse_seconds(f[5], l.seconds) || l.seconds < 0)
        malformed(file_name, a,
                  "'wait_state <waiter rank> <window> <pattern> <culprit rank> <count> <seconds>' with " + ranks +
                      ", a count below 2^60, seconds >= 0 and a pattern among late_post early_transfer early_wait "
                      "late_complete wait_at_fence early_fence lock_competition");
      l.window = unescape_name(f[1]);
      l.pattern = *pattern;
      out.waits.push_back(std::move(l));
    } else if (a.keyword == "wait_window") {
      WaitWindowLine l;
      double drift = 0;
      if (f.size() != 7 || !parse_rank(f[0], world_size, l.rank) || !parse_seconds(f[2], l.rma_seconds) ||
          l.rma_seconds < 0 || !parse_field(f[3], l.unmatched) || l.unmatched >= kCountLimit ||
          !parse_seconds(f[4], l.clock_offset) || (f[5] != "-" && !parse_seconds(f[5], drift)) ||
          !parse_seconds(f[6], l.clock_uncertainty) || l.clock_uncertainty < 0)
        malformed(file_name, a,
                  "'wait_window <rank> <window> <rma seconds> <unmatched> <clock offset> <clock drift or -> "
                  "<clock uncertainty>' with " +
                      ranks + ", seconds >= 0 (offset and drift: any sign)");
      l.window = unescape_name(f[1]);
      if (f[5] != "-") l.clock_drift = drift;
      out.windows.push_back(std::move(l));
    } else if (a.keyword == "wait_process_time") {
      int32_t rank = 0;
      double seconds = 0;
      if (f.size() != 2 || !parse_rank(f[0], world_size, rank) || !parse_seconds(f[1], seconds) || seconds < 0)
        malformed(file_name, a, "'wait_process_time <rank> <seconds>' with " + ranks + " and seconds >= 0");
      out.process_seconds[rank] = seconds;
    }
  }
  return out;
}

}  // namespace mpimon::wait_states
