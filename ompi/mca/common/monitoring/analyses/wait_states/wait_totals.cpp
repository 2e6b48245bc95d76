#include "analyses/wait_states/wait_totals.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mpimon::wait_states {

namespace {

void merge_patterns(PatternArray& into, const PatternArray& from) {
  for (int p = 0; p < kPatternCount; ++p) {
    into[p].count += from[p].count;
    into[p].time += from[p].time;
  }
}

std::string seconds_text(Nanos ns) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9f", static_cast<double>(ns) * 1e-9);
  return text;
}

}  // namespace

void WindowWaits::add(Pattern pattern, Nanos duration, int32_t culprit_world_rank) {
  const auto p = static_cast<int>(pattern);
  ++patterns[p].count;
  patterns[p].time += duration;
  PatternTotals& c = culprits[culprit_world_rank][p];
  ++c.count;
  c.time += duration;
}

void WindowWaits::merge(const WindowWaits& other) {
  merge_patterns(patterns, other.patterns);
  for (const auto& [culprit, totals] : other.culprits) merge_patterns(culprits[culprit], totals);
  rma_op_time += other.rma_op_time;
  unmatched += other.unmatched;
  // Several windows of one name: the worst clock figures.
  if (std::llabs(other.clock_offset) > std::llabs(clock_offset)) clock_offset = other.clock_offset;
  clock_uncertainty = std::max(clock_uncertainty, other.clock_uncertainty);
  if (other.drift_measured && (!drift_measured || std::llabs(other.clock_drift) > std::llabs(clock_drift))) {
    clock_drift = other.clock_drift;
    drift_measured = true;
  }
}

void WaitStateRegistry::open(uint64_t id) {
  std::lock_guard lock(mutex_);
  live_[id] = WindowWaits{};
}

void WaitStateRegistry::add(uint64_t id, Pattern pattern, Nanos duration, int32_t culprit_world_rank) {
  std::lock_guard lock(mutex_);
  if (auto it = live_.find(id); it != live_.end()) it->second.add(pattern, duration, culprit_world_rank);
}

void WaitStateRegistry::add_op_time(uint64_t id, Nanos duration) {
  std::lock_guard lock(mutex_);
  if (auto it = live_.find(id); it != live_.end()) it->second.rma_op_time += duration;
}

void WaitStateRegistry::add_unmatched(uint64_t id, uint64_t epochs) {
  std::lock_guard lock(mutex_);
  if (auto it = live_.find(id); it != live_.end()) it->second.unmatched += epochs;
}

void WaitStateRegistry::set_clock(uint64_t id, Nanos offset, Nanos uncertainty) {
  std::lock_guard lock(mutex_);
  if (auto it = live_.find(id); it != live_.end()) {
    it->second.clock_offset = offset;
    it->second.clock_uncertainty = uncertainty;
  }
}

void WaitStateRegistry::set_drift(uint64_t id, Nanos drift) {
  std::lock_guard lock(mutex_);
  if (auto it = live_.find(id); it != live_.end()) {
    it->second.clock_drift = drift;
    it->second.drift_measured = true;
  }
}

void WaitStateRegistry::close(uint64_t id, std::string_view name) {
  std::lock_guard lock(mutex_);
  auto live = live_.find(id);
  if (live == live_.end()) return;
  auto freed = freed_.find(name);
  if (freed == freed_.end()) freed = freed_.emplace(std::string(name), Freed{id, {}}).first;
  freed->second.waits.merge(live->second);
  live_.erase(live);
}

bool WaitStateRegistry::read(uint64_t id, double seconds[kPatternCount], uint64_t counts[kPatternCount]) const {
  std::lock_guard lock(mutex_);
  auto it = live_.find(id);
  if (it == live_.end()) return false;
  for (int p = 0; p < kPatternCount; ++p) {
    seconds[p] = static_cast<double>(it->second.patterns[p].time) * 1e-9;
    counts[p] = it->second.patterns[p].count;
  }
  return true;
}

std::vector<WindowWaitsEntry> WaitStateRegistry::entries(
    const std::function<std::string(uint64_t id)>& live_name) const {
  std::vector<uint64_t> live_ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, w] : live_) live_ids.push_back(id);
  }
  // Names first (live_name may take the caller's locks, never ours).
  std::vector<std::pair<uint64_t, std::string>> names;
  for (uint64_t id : live_ids) names.emplace_back(id, live_name(id));

  std::map<std::string, std::pair<uint64_t, WindowWaits>> merged;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, f] : freed_) {
      auto& m = merged.try_emplace(name, f.first_id, WindowWaits{}).first->second;
      m.first = std::min(m.first, f.first_id);
      m.second.merge(f.waits);
    }
    for (const auto& [id, name] : names) {
      auto it = live_.find(id);
      if (it == live_.end()) continue;
      auto& m = merged.try_emplace(name, id, WindowWaits{}).first->second;
      m.first = std::min(m.first, id);
      m.second.merge(it->second);
    }
  }
  std::vector<std::pair<uint64_t, WindowWaitsEntry>> ordered;
  for (auto& [name, m] : merged) ordered.push_back({m.first, WindowWaitsEntry{name, std::move(m.second)}});
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<WindowWaitsEntry> out;
  for (auto& [order, e] : ordered) out.push_back(std::move(e));
  return out;
}

size_t WaitStateRegistry::live_count() const {
  std::lock_guard lock(mutex_);
  return live_.size();
}

size_t WaitStateRegistry::freed_count() const {
  std::lock_guard lock(mutex_);
  return freed_.size();
}

// ---------------------------------------------------------------------------------------
// Dump lines

namespace {

// The lines of one rank in either dump: .prof (tab-separated, units after the numbers,
// names with spaces) or job file (space-separated, names escaped).
std::string format_wait_lines(int me, const std::vector<WindowWaitsEntry>& entries, bool prof) {
  const char separator = prof ? '\t' : ' ';
  const std::string rank = std::to_string(me), times = prof ? " times" : "", unit = prof ? " s" : "";
  std::string out;
  for (const WindowWaitsEntry& e : entries) {
    const std::string head = rank + separator + escape_name(e.name, !prof) + separator;
    for (int p = 0; p < kPatternCount; ++p) {
      for (const auto& [culprit, totals] : e.waits.culprits) {
        if (totals[p].count == 0) continue;
        out += (prof ? "# WAIT\t" : "wait_state ") + head + pattern_name(static_cast<Pattern>(p)) + separator +
               std::to_string(culprit) + separator + std::to_string(totals[p].count) + times + separator +
               seconds_text(totals[p].time) + unit + '\n';
      }
    }
    const WindowWaits& w = e.waits;
    out += (prof ? "# WAIT_WINDOW\t" : "wait_window ") + head + seconds_text(w.rma_op_time) + unit + separator +
           std::to_string(w.unmatched) + (prof ? " unmatched" : "") + separator + seconds_text(w.clock_offset) + unit +
           separator + (w.drift_measured ? seconds_text(w.clock_drift) : std::string("-")) + unit + separator +
           seconds_text(w.clock_uncertainty) + unit + '\n';
  }
  return out;
}

}  // namespace

std::string format_wait_prof_lines(int me, const std::vector<WindowWaitsEntry>& entries) {
  return format_wait_lines(me, entries, true);
}

std::string format_wait_job_lines(int me, const std::vector<WindowWaitsEntry>& entries, double process_seconds) {
  std::string out = format_wait_lines(me, entries, false);
  const std::string rank = std::to_string(me);
  char seconds[64];
  std::snprintf(seconds, sizeof seconds, "%.9f", process_seconds);
  out += "wait_process_time " + rank + ' ' + seconds + '\n';
  return out;
}

}  // namespace mpimon::wait_states
