#include "event_log.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "communication_events.h"

namespace mpimon::mel {

namespace {

bool is_separator(char c) { return c == ',' || c == ':' || c == ';' || std::isspace(static_cast<unsigned char>(c)); }

std::string format(const char* fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

// The largest basic datatype (long double complex): a bound for unknown datatypes.
constexpr size_t kLargestBasicType = 32;

template <typename T>
T load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

// An integer of 1, 2, 4 or 8 bytes, widened; false for other sizes.
template <typename T1, typename T2, typename T4, typename T8, typename Wide>
bool load_integer(const unsigned char* p, size_t size, Wide& out) {
  switch (size) {
    case 1:
      out = load<T1>(p);
      return true;
    case 2:
      out = load<T2>(p);
      return true;
    case 4:
      out = load<T4>(p);
      return true;
    case 8:
      out = load<T8>(p);
      return true;
    default:
      return false;
  }
}

std::string value_text(const ElementType& element, const Value& value) {
  switch (value.kind) {
    case ValueKind::signed_integer:
    case ValueKind::unsigned_integer: {
      int64_t index;
      if (!element.value_names.empty() && value.as_integer(index) && index >= 0 &&
          static_cast<uint64_t>(index) < element.value_names.size())
        return element.value_names[static_cast<size_t>(index)];
      return value.kind == ValueKind::signed_integer ? std::to_string(value.signed_value)
                                                     : std::to_string(value.unsigned_value);
    }
    case ValueKind::floating:
      return format("%.9g", value.floating_value);
    case ValueKind::character: {
      const char c = static_cast<char>(value.signed_value);
      if (std::isprint(static_cast<unsigned char>(c)) && c != ' ') return std::string(1, c);
      return std::to_string(value.signed_value);
    }
    case ValueKind::boolean:
      return value.unsigned_value != 0 ? "true" : "false";
    case ValueKind::unknown:
      break;
  }
  return "?";
}

}  // namespace

std::vector<std::string> parse_event_list(std::string_view text) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_separator(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_separator(text[i])) ++i;
    if (i > start) {
      std::string name(text.substr(start, i - start));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
  }
  return names;
}

std::string unknown_events_warning(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return {};
  std::string line = "mel: warning: MEL_EVENTS names ";
  line += unknown.size() == 1 ? "an event that does not exist: " : "events that do not exist: ";
  for (size_t i = 0; i < unknown.size(); ++i) line += (i ? ", '" : "'") + unknown[i] + "'";
  line += " (ignored)";
  return line;
}

size_t EventType::copy_buffer_size() const {
  size_t end = 0;
  for (const ElementType& e : elements) end = std::max(end, e.displacement + (e.size ? e.size : kLargestBasicType));
  end = (end + 15) / 16 * 16;
  return end + 64;
}

std::vector<std::string> split_value_names(std::string_view comma_list) {
  std::vector<std::string> names;
  if (comma_list.empty()) return names;
  size_t start = 0;
  while (true) {
    const size_t comma = comma_list.find(',', start);
    std::string_view item =
        comma_list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    names.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return names;
}

std::string value_names_info_key(const std::string& element_name) { return "mpimon_enum_" + element_name; }

bool Value::as_integer(int64_t& out) const {
  switch (kind) {
    case ValueKind::signed_integer:
    case ValueKind::character:
      out = signed_value;
      return true;
    case ValueKind::unsigned_integer:
    case ValueKind::boolean:
      out = static_cast<int64_t>(unsigned_value);
      return true;
    default:
      return false;
  }
}

std::vector<Value> decode_payload(const EventType& type, const unsigned char* payload, size_t size) {
  std::vector<Value> values;
  values.reserve(type.elements.size());
  for (const ElementType& e : type.elements) {
    Value v;
    if (e.size == 0 || payload == nullptr || e.displacement + e.size > size) {
      values.push_back(v);
      continue;
    }
    const unsigned char* p = payload + e.displacement;
    v.kind = e.kind;
    switch (e.kind) {
      case ValueKind::signed_integer:
      case ValueKind::character:
        if (!load_integer<int8_t, int16_t, int32_t, int64_t>(p, e.size, v.signed_value)) v.kind = ValueKind::unknown;
        v.unsigned_value = static_cast<uint64_t>(v.signed_value);
        break;
      case ValueKind::unsigned_integer:
      case ValueKind::boolean:
        if (!load_integer<uint8_t, uint16_t, uint32_t, uint64_t>(p, e.size, v.unsigned_value))
          v.kind = ValueKind::unknown;
        v.signed_value = static_cast<int64_t>(v.unsigned_value);
        break;
      case ValueKind::floating:
        if (e.size == sizeof(float))
          v.floating_value = load<float>(p);
        else if (e.size == sizeof(double))
          v.floating_value = load<double>(p);
        else if (e.size == sizeof(long double))
          v.floating_value = static_cast<double>(load<long double>(p));
        else
          v.kind = ValueKind::unknown;
        break;
      case ValueKind::unknown:
        break;
    }
    values.push_back(v);
  }
  return values;
}

std::string format_event_line(double seconds, const EventType& type, const std::vector<Value>& values) {
  std::string line = format("[%12.9f]", seconds) + " '" + type.name + "'";
  for (size_t i = 0; i < type.elements.size(); ++i) {
    line += ' ';
    line += type.elements[i].name;
    line += '=';
    line += i < values.size() ? value_text(type.elements[i], values[i]) : "?";
  }
  return line;
}

std::string format_dropped_line(long long count, const std::string& event_name) {
  return "dropped " + std::to_string(count) + " instance" + (count == 1 ? "" : "s") + " of '" + event_name + "'";
}

double ticks_to_seconds(long long ticks, long long origin, long long ticks_per_second) {
  if (ticks_per_second <= 0) return 0;
  // Split to keep precision for large tick counts (nanoseconds since boot, say).
  const long long delta = ticks - origin;
  return static_cast<double>(delta / ticks_per_second) +
         static_cast<double>(delta % ticks_per_second) / static_cast<double>(ticks_per_second);
}

void Timeline::set_reference(int source, long long ticks_per_second, const std::string& clock, long long origin) {
  reference_ = source;
  reference_ticks_per_second_ = ticks_per_second;
  reference_clock_ = clock;
  origin_ = origin;
  sources_[source] = {ticks_per_second, origin, 0};
}

void Timeline::add_source(int source, long long ticks_per_second, const std::string& clock, long long before,
                          long long ticks, long long after) {
  if (source == reference_) return;
  if (!clock.empty() && clock == reference_clock_ && ticks_per_second == reference_ticks_per_second_) {
    sources_[source] = {ticks_per_second, origin_, 0};  // the same clock: exactly the reference's origin
    return;
  }
  // The reading happened between `before` and `after` on the reference: at the middle.
  const long long middle = before + (after - before) / 2;
  sources_[source] = {ticks_per_second, ticks, ticks_to_seconds(middle, origin_, reference_ticks_per_second_)};
}

bool Timeline::knows(int source) const { return sources_.count(source) != 0; }

double Timeline::seconds(int source, long long ticks) const {
  const auto it = sources_.find(source);
  if (it == sources_.end()) return 0;
  const Placement& p = it->second;
  return p.seconds + ticks_to_seconds(ticks, p.ticks, p.ticks_per_second);
}

void DurationSummary::add(double seconds) {
  if (count == 0 || seconds < min) min = seconds;
  if (count == 0 || seconds > max) max = seconds;
  total += seconds;
  ++count;
}

int element_index(const EventType& type, std::string_view name) {
  for (size_t i = 0; i < type.elements.size(); ++i)
    if (type.elements[i].name == name) return static_cast<int>(i);
  return -1;
}

void Statistics::record(const EventType& type, const std::vector<Value>& values, double seconds) {
  ++events_[type.name].first;
  const bool send_posted = type.name == MPIMON_EVENT_PML_SEND_POSTED;
  const bool recv_posted = type.name == MPIMON_EVENT_PML_RECV_POSTED;
  const bool recv_completed = type.name == MPIMON_EVENT_PML_RECV_COMPLETED;
  if (!send_posted && !recv_posted && !recv_completed) return;
  auto integer = [&](std::string_view name, int64_t& out) {
    const int i = element_index(type, name);
    return i >= 0 && static_cast<size_t>(i) < values.size() && values[static_cast<size_t>(i)].as_integer(out);
  };
  int64_t peer, bytes, request;
  if (send_posted || recv_completed) {
    if (integer("peer", peer) && integer("bytes", bytes)) {
      PeerTraffic& t = (send_posted ? sent_ : received_)[peer];
      ++t.messages;
      t.bytes += static_cast<uint64_t>(bytes);
    }
  }
  if (!integer("request", request)) return;
  const uint64_t key = static_cast<uint64_t>(request);
  if (recv_posted) {
    posted_receives_[key] = seconds;
  } else if (recv_completed) {
    const auto it = posted_receives_.find(key);
    if (it != posted_receives_.end()) {
      receive_posted_.add(std::max(0.0, seconds - it->second));
      posted_receives_.erase(it);
    }
  }
}

void Statistics::record_dropped(const std::string& event_name, long long count) {
  if (count > 0) events_[event_name].second += static_cast<uint64_t>(count);
}

bool Statistics::logged(const char* event_name) const {
  return logged_.empty() || std::find(logged_.begin(), logged_.end(), event_name) != logged_.end();
}

std::string Statistics::report() const {
  std::string out;
  for (const auto& [name, counts] : events_)
    out += "statistics: events '" + name + "' logged=" + std::to_string(counts.first) +
           " dropped=" + std::to_string(counts.second) + "\n";
  // "" when every event of a statistic is logged, else the line that says it is not.
  auto not_logged = [&](const std::string& what, std::initializer_list<const char*> needed) {
    std::string missing;
    for (const char* name : needed)
      if (!logged(name)) missing += (missing.empty() ? "" : ", ") + std::string(name);
    return missing.empty() ? "" : "statistics: " + what + " not logged (MEL_EVENTS leaves out " + missing + ")\n";
  };
  auto traffic = [&](const char* what, const char* event, const std::map<int64_t, PeerTraffic>& table) {
    if (std::string line = not_logged(what, {event}); !line.empty()) return void(out += line);
    for (const auto& [peer, t] : table)
      out += std::string("statistics: ") + what + " peer=" + std::to_string(peer) +
             " messages=" + std::to_string(t.messages) + " bytes=" + std::to_string(t.bytes) + "\n";
  };
  traffic("sent", MPIMON_EVENT_PML_SEND_POSTED, sent_);
  traffic("received", MPIMON_EVENT_PML_RECV_COMPLETED, received_);
  const std::string receives =
      not_logged("receive posted-to-completed", {MPIMON_EVENT_PML_RECV_POSTED, MPIMON_EVENT_PML_RECV_COMPLETED});
  if (!receives.empty()) {
    out += receives;
    return out;
  }
  const DurationSummary& d = receive_posted_;
  out += "statistics: receive posted-to-completed seconds count=" + std::to_string(d.count) +
         " total=" + format("%.9f", d.total) + " average=" + format("%.9f", d.average()) +
         " min=" + format("%.9f", d.min) + " max=" + format("%.9f", d.max) + "\n";
  out += "statistics: receives posted and not completed=" + std::to_string(posted_receives_.size()) + "\n";
  return out;
}

std::string log_file_path(const std::string& prefix, int rank) { return prefix + "." + std::to_string(rank) + ".log"; }

std::string prefix_lines(const std::string& text, const std::string& prefix) {
  std::string out;
  out.reserve(text.size() + prefix.size() * 8);
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const size_t stop = end == std::string::npos ? text.size() : end + 1;
    out += prefix;
    out.append(text, start, stop - start);
    start = stop;
  }
  return out;
}

}  // namespace mpimon::mel
