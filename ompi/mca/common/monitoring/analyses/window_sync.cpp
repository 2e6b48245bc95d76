#include "analyses/window_sync.h"

#include "formats/job_format.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace mpimon {

const char* sync_kind_name(SyncKind kind) noexcept {
  static constexpr const char* names[kSyncKindCount] = {
      "fence",    "start",      "complete", "post",  "wait",      "test",        "lock",           "unlock",
      "lock_all", "unlock_all", "sync",     "flush", "flush_all", "flush_local", "flush_local_all"};
  const auto i = static_cast<unsigned>(kind);
  return i < kSyncKindCount ? names[i] : "unknown";
}

// ---------------------------------------------------------------------------------------
// Clock

SyncClock::Source SyncClock::best_source() {
#if defined(__x86_64__)
  // CPUID 0x80000007, EDX bit 8: invariant TSC (constant rate, runs in every C-state), so
  // tick differences measure time on any core.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) && eax >= 0x80000007 &&
      __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8)) != 0)
    return Source::tsc;
#endif
  return Source::steady;
}

SyncClock::SyncClock(Source source) : source_(source) {
  calibration_steady_ = std::chrono::steady_clock::now();
  calibration_tsc_ = tsc_now();
}

double SyncClock::seconds_per_tick() const {
  if (source_ == Source::steady) return 1e-9;
  std::call_once(calibrated_, [this] {
    constexpr auto kMinimum = std::chrono::milliseconds(20);
    const auto elapsed = std::chrono::steady_clock::now() - calibration_steady_;
    if (elapsed < kMinimum) std::this_thread::sleep_for(kMinimum - elapsed);
    // Both clocks read close together (the TSC on both sides of steady_clock).
    const uint64_t before = tsc_now();
    const auto steady = std::chrono::steady_clock::now();
    const uint64_t after = tsc_now();
    const double ticks = static_cast<double>(before / 2 + after / 2 - calibration_tsc_);
    const double seconds = std::chrono::duration<double>(steady - calibration_steady_).count();
    if (ticks > 0 && seconds > 0) seconds_per_tick_ = seconds / ticks;
  });
  return seconds_per_tick_;
}

// ---------------------------------------------------------------------------------------
// Registry

WindowSyncRegistry::WindowSyncRegistry(SyncClock::Source source) : clock_(source) {}

WindowSyncRegistry& window_sync() {
  static WindowSyncRegistry* registry = new WindowSyncRegistry();  // used until process exit
  return *registry;
}

WindowSyncRegistry::Opened WindowSyncRegistry::open(WindowSyncTimes& times) {
  std::lock_guard lock(mutex_);
  // The smallest number no live window holds.
  std::vector<int> numbers;
  numbers.reserve(live_.size());
  for (const Live& l : live_) numbers.push_back(l.number);
  std::sort(numbers.begin(), numbers.end());
  int number = 1;
  for (int n : numbers) {
    if (n == number)
      ++number;
    else if (n > number)
      break;
  }
  times = WindowSyncTimes{};
  Opened opened{next_id_++, number};
  live_.push_back(Live{opened.id, number, &times});
  return opened;
}

namespace {

// Relaxed loads: safe against a concurrent hot-path update.
uint64_t load(const uint64_t& value) {
  return std::atomic_ref(const_cast<uint64_t&>(value)).load(std::memory_order_relaxed);
}

}  // namespace

void WindowSyncRegistry::close(uint64_t id, std::string_view name) {
  std::lock_guard lock(mutex_);
  auto live = std::find_if(live_.begin(), live_.end(), [id](const Live& l) { return l.id == id; });
  if (live == live_.end()) return;
  auto freed = std::find_if(freed_.begin(), freed_.end(), [name](const Freed& f) { return f.name == name; });
  if (freed == freed_.end()) {
    freed_.push_back(Freed{std::string(name), id, {}, {}});
    freed = freed_.end() - 1;
  }
  bool any = false;
  for (int k = 0; k < kSyncKindCount; ++k) {
    freed->calls[k] += load(live->times->kinds[k].calls);
    freed->ticks[k] += load(live->times->kinds[k].ticks);
    any = any || freed->calls[k] != 0;
  }
  if (!any) freed_.erase(freed);  // a window that never synchronised leaves nothing
  live_.erase(live);
}

bool WindowSyncRegistry::read(uint64_t id, uint64_t calls[kSyncKindCount], double seconds[kSyncKindCount]) const {
  const double per_tick = clock_.seconds_per_tick();
  std::lock_guard lock(mutex_);
  for (const Live& l : live_) {
    if (l.id != id) continue;
    for (int k = 0; k < kSyncKindCount; ++k) {
      calls[k] = load(l.times->kinds[k].calls);
      seconds[k] = static_cast<double>(load(l.times->kinds[k].ticks)) * per_tick;
    }
    return true;
  }
  return false;
}

std::vector<WindowSyncEntry> WindowSyncRegistry::entries(
    const std::function<std::string(uint64_t id)>& live_name) const {
  struct Sum {
    uint64_t order;
    uint64_t calls[kSyncKindCount] = {};
    uint64_t ticks[kSyncKindCount] = {};
  };
  // Names are collected first (live_name may take the caller's locks, never ours).
  std::vector<std::pair<uint64_t, std::string>> live_names;
  {
    std::lock_guard lock(mutex_);
    for (const Live& l : live_) live_names.emplace_back(l.id, std::string());
  }
  for (auto& [id, name] : live_names) name = live_name(id);

  const double per_tick = clock_.seconds_per_tick();
  std::map<std::string, Sum> sums;
  {
    std::lock_guard lock(mutex_);
    for (const Freed& f : freed_) {
      Sum& s = sums.try_emplace(f.name, Sum{f.first_id}).first->second;
      s.order = std::min(s.order, f.first_id);
      for (int k = 0; k < kSyncKindCount; ++k) {
        s.calls[k] += f.calls[k];
        s.ticks[k] += f.ticks[k];
      }
    }
    for (const auto& [id, name] : live_names) {
      auto live = std::find_if(live_.begin(), live_.end(), [id = id](const Live& l) { return l.id == id; });
      if (live == live_.end()) continue;  // freed meanwhile: already among the freed entries
      Sum& s = sums.try_emplace(name, Sum{id}).first->second;
      s.order = std::min(s.order, id);
      for (int k = 0; k < kSyncKindCount; ++k) {
        s.calls[k] += load(live->times->kinds[k].calls);
        s.ticks[k] += load(live->times->kinds[k].ticks);
      }
    }
  }
  std::vector<std::pair<uint64_t, WindowSyncEntry>> ordered;
  for (const auto& [name, s] : sums) {
    WindowSyncEntry e;
    e.name = name;
    bool any = false;
    for (int k = 0; k < kSyncKindCount; ++k) {
      e.calls[k] = s.calls[k];
      e.seconds[k] = static_cast<double>(s.ticks[k]) * per_tick;
      any = any || s.calls[k] != 0;
    }
    if (any) ordered.emplace_back(s.order, std::move(e));
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<WindowSyncEntry> out;
  out.reserve(ordered.size());
  for (auto& [order, e] : ordered) out.push_back(std::move(e));
  return out;
}

size_t WindowSyncRegistry::live_count() const {
  std::lock_guard lock(mutex_);
  return live_.size();
}

size_t WindowSyncRegistry::freed_count() const {
  std::lock_guard lock(mutex_);
  return freed_.size();
}

// ---------------------------------------------------------------------------------------
// Dump lines

namespace {

std::string seconds_text(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9f", seconds);
  return text;
}

}  // namespace

std::string format_sync_prof_lines(int me, const std::vector<WindowSyncEntry>& entries) {
  std::string out;
  for (const WindowSyncEntry& e : entries) {
    const std::string name = escape_name(e.name, false);
    for (int k = 0; k < kSyncKindCount; ++k) {
      if (e.calls[k] == 0) continue;
      out += "# SYNC\t" + std::to_string(me) + '\t' + name + '\t' + sync_kind_name(static_cast<SyncKind>(k)) + '\t' +
             std::to_string(e.calls[k]) + " calls\t" + seconds_text(e.seconds[k]) + " s\n";
    }
  }
  return out;
}

std::string format_sync_job_lines(int me, const std::vector<WindowSyncEntry>& entries) {
  std::string out;
  for (const WindowSyncEntry& e : entries) {
    const std::string name = escape_name(e.name, true);
    for (int k = 0; k < kSyncKindCount; ++k) {
      if (e.calls[k] == 0) continue;
      out += "window_sync " + std::to_string(me) + ' ' + name + ' ' + sync_kind_name(static_cast<SyncKind>(k)) + ' ' +
             std::to_string(e.calls[k]) + ' ' + seconds_text(e.seconds[k]) + '\n';
    }
  }
  return out;
}

}  // namespace mpimon
