// Checking the text of MCA parameters ourselves: Open MPI parses integers silently
// ("abc" becomes 0, "1k" becomes 1024), so our integer parameters are registered as
// Open MPI integers whose text is validated here (runtime/mca_values_ompi.h).
#pragma once

#include <climits>
#include <optional>
#include <string>

namespace mpimon {

// A decimal integer >= 0 (surrounding blanks allowed); nullopt for anything else, and for
// NULL or empty text when there is no default.
std::optional<int> parse_non_negative(const char* text);

// The value of an integer MCA parameter (a decimal integer in 0..max), or `fallback`
// (with `warning` set to a one-line message naming the parameter, the value and the valid
// values) if the text is invalid; `default_value` for NULL or empty text.
int checked_level(const char* parameter, const char* text, int default_value, int fallback, const char* valid_values,
                  std::string& warning, int max = INT_MAX);

// A duration in seconds: digits with an optional fraction ("10", "0.5", "2.25", ".5"),
// surrounding blanks allowed; nullopt for anything else (signs, exponents, units, hex,
// nan, inf, empty text).
std::optional<double> parse_seconds(const char* text);

// The value of a duration MCA parameter in seconds: 0 (off), or within [minimum,
// maximum]; `default_value` for NULL or empty text; otherwise `default_value` again with
// `warning` set to a one-line message naming the parameter, the value and the valid values.
double checked_seconds(const char* parameter, const char* text, double default_value, double minimum, double maximum,
                       std::string& warning);

struct OmpiVersion {
  int major = 0, minor = 0, release = 0;
};
// "Open MPI v4.1.4, package: ..." (MPI_Get_library_version) -> 4.1.4
std::optional<OmpiVersion> parse_library_version(const char* text);

}  // namespace mpimon

namespace mpimon {

// Our plugins are built against one Open MPI's internal struct layouts. Another
// major.minor at run time: refuse (layouts differ, the loader checks nothing); another
// release only: run, with a warning.
enum class VersionVerdict { same, other_release, incompatible };
VersionVerdict compare_versions(const OmpiVersion& built, const OmpiVersion& running);

}  // namespace mpimon
