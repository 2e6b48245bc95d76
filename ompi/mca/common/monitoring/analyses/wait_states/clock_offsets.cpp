#include "analyses/wait_states/clock_offsets.h"

#include <charconv>
#include <cmath>

namespace mpimon::wait_states {

std::optional<ClockOffset> estimate_offset(const std::vector<ClockSample>& samples) {
  const ClockSample* best = nullptr;
  for (const ClockSample& s : samples) {
    if (s.received < s.sent) continue;  // cannot happen on a monotonic clock
    if (best == nullptr || s.received - s.sent < best->received - best->sent) best = &s;
  }
  if (best == nullptr) return std::nullopt;
  const Nanos round_trip = best->received - best->sent;
  // The midpoint without overflow: sent + round_trip / 2.
  return ClockOffset{best->reference - (best->sent + round_trip / 2), (round_trip + 1) / 2};
}

uint64_t clock_domain_id(std::string_view host_name, bool testing_group) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : host_name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return testing_group ? ~h : h;
}

ScanElement scan_combine(const ScanElement& earlier, const ScanElement& later) {
  return later.is_leader ? later : earlier;
}

bool TestingClockShift::applies_to(int32_t world_rank, std::string_view host_name) const {
  if (!host.empty()) return host == host_name;
  for (int32_t r : ranks)
    if (r == world_rank) return true;
  return false;
}

std::optional<TestingClockShift> parse_testing_clock_shift(std::string_view text, std::string& error) {
  TestingClockShift shift;
  if (text.empty()) return shift;
  const size_t colon = text.find(':');
  const std::string_view seconds_text = text.substr(0, colon);
  double seconds = 0;
  const auto [end, ec] = std::from_chars(seconds_text.data(), seconds_text.data() + seconds_text.size(), seconds);
  if (colon == std::string_view::npos || ec != std::errc{} || end != seconds_text.data() + seconds_text.size() ||
      !std::isfinite(seconds) || std::fabs(seconds) > 1e6) {
    error = "expected <seconds>:<world ranks, comma-separated> or <seconds>:host=<host name>";
    return std::nullopt;
  }
  shift.shift = static_cast<Nanos>(std::llround(seconds * 1e9));
  std::string_view who = text.substr(colon + 1);
  if (who.substr(0, 5) == "host=") {
    shift.host = std::string(who.substr(5));
    if (shift.host.empty()) {
      error = "expected a host name after 'host='";
      return std::nullopt;
    }
    return shift;
  }
  while (!who.empty()) {
    const size_t comma = who.find(',');
    const std::string_view item = who.substr(0, comma);
    int32_t rank = -1;
    const auto [e, c] = std::from_chars(item.data(), item.data() + item.size(), rank);
    if (c != std::errc{} || e != item.data() + item.size() || rank < 0) {
      error = "expected world ranks (integers >= 0) separated by commas after ':'";
      return std::nullopt;
    }
    shift.ranks.push_back(rank);
    if (comma == std::string_view::npos) break;
    who.remove_prefix(comma + 1);
  }
  if (shift.ranks.empty()) {
    error = "expected at least one world rank after ':'";
    return std::nullopt;
  }
  return shift;
}

}  // namespace mpimon::wait_states
