#include "mca_values.h"

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

int checked_level(const char* parameter, const char* text, int default_value, int fallback,
                  const char* valid_values, std::string& warning, int max) {
  if (text == nullptr || *text == '\0') return default_value;
  if (auto v = parse_non_negative(text); v && *v <= max) return *v;
  warning = std::string("mpimon: invalid value '") + text + "' for MCA parameter " + parameter +
            " (valid: " + valid_values + "); using " + std::to_string(fallback);
  return fallback;
}

std::optional<OmpiVersion> parse_library_version(const char* text) {
  if (text == nullptr) return std::nullopt;
  const char* v = std::strstr(text, "Open MPI v");
  if (v == nullptr) return std::nullopt;
  OmpiVersion version;
  if (std::sscanf(v, "Open MPI v%d.%d.%d", &version.major, &version.minor, &version.release) < 2)
    return std::nullopt;
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
