#include "runtime/mca_values.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace mpimon {

std::optional<int> parse_non_negative(const char* text) {
  if (text == nullptr) return std::nullopt;
  std::string_view s(text);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size() || value < 0) return std::nullopt;
  return value;
}

int checked_level(const char* parameter, const char* text, int default_value, int fallback, const char* valid_values,
                  std::string& warning, int max) {
  if (text == nullptr || *text == '\0') return default_value;
  if (auto v = parse_non_negative(text); v && *v <= max) return *v;
  warning = std::string("invalid value '") + text + "' for MCA parameter " + parameter + " (valid: " + valid_values +
            "); using " + std::to_string(fallback);
  return fallback;
}

std::optional<double> parse_seconds(const char* text) {
  if (text == nullptr) return std::nullopt;
  std::string_view s(text);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  const size_t point = s.find('.');
  const std::string_view whole = s.substr(0, point);
  const std::string_view fraction = point == std::string_view::npos ? std::string_view{} : s.substr(point + 1);
  auto digits = [](std::string_view d) {
    for (char c : d)
      if (c < '0' || c > '9') return false;
    return true;
  };
  if (whole.empty() && fraction.empty()) return std::nullopt;
  if (!digits(whole) || !digits(fraction) || whole.size() > 9) return std::nullopt;
  double value = 0;
  for (char c : whole) value = value * 10 + (c - '0');
  double scale = 0.1;
  for (char c : fraction.substr(0, 9)) {  // beyond nanoseconds: ignored
    value += (c - '0') * scale;
    scale /= 10;
  }
  return value;
}

double checked_seconds(const char* parameter, const char* text, double default_value, double minimum, double maximum,
                       std::string& warning) {
  if (text == nullptr || *text == '\0') return default_value;
  const auto v = parse_seconds(text);
  if (v && (*v == 0 || (*v >= minimum && *v <= maximum))) return *v;
  char range[96];
  std::snprintf(range, sizeof range, "0 off, or seconds from %g to %g, fractions allowed (e.g. 0.5)", minimum, maximum);
  char fallback[32];
  std::snprintf(fallback, sizeof fallback, "%g", default_value);
  warning = std::string("invalid value '") + text + "' for MCA parameter " + parameter + " (valid: " + range +
            "); using " + fallback;
  return default_value;
}

std::optional<OmpiVersion> parse_library_version(const char* text) {
  if (text == nullptr) return std::nullopt;
  const char* v = std::strstr(text, "Open MPI v");
  if (v == nullptr) return std::nullopt;
  OmpiVersion version;
  if (std::sscanf(v, "Open MPI v%d.%d.%d", &version.major, &version.minor, &version.release) < 2) return std::nullopt;
  return version;
}

}  // namespace mpimon

namespace mpimon {

VersionVerdict compare_versions(const OmpiVersion& built, const OmpiVersion& running) {
  if (built.major != running.major || built.minor != running.minor) return VersionVerdict::incompatible;
  if (built.release != running.release) return VersionVerdict::other_release;
  return VersionVerdict::same;
}

}  // namespace mpimon
