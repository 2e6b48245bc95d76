#include "runtime/build_match.h"

namespace mpimon {

namespace {

std::string version_text(const OmpiVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.release);
}

// A release build's opal_object_t: the class pointer and a 32-bit reference count, padded.
constexpr std::size_t kReleaseObjectSize = sizeof(void*) + 8;

}  // namespace

bool debug_object_size(std::size_t opal_object_size) { return opal_object_size > kReleaseObjectSize; }

std::string describe_build(const OmpiBuildFacts& facts) {
  std::string text = "Open MPI " + version_text(facts.version) + (facts.debug ? " (debug build)" : " (release build)");
  if (!facts.where.empty()) text += " " + facts.where;
  return text;
}

std::optional<std::string> build_mismatch(const OmpiBuildFacts& built, const OmpiBuildFacts& running) {
  std::string differences;
  const auto add = [&differences](const std::string& text) {
    differences += differences.empty() ? "" : ", ";
    differences += text;
  };
  const OmpiVersion &b = built.version, &r = running.version;
  if (b.major != r.major || b.minor != r.minor || b.release != r.release) add("release");
  if (built.debug != running.debug) add("debug setting");
  int shown = 0, more = 0;
  for (std::size_t i = 0; i < built.sizes.size() && i < running.sizes.size(); ++i) {
    const StructSize &ours = built.sizes[i], &theirs = running.sizes[i];
    if (theirs.size == 0 || ours.size == theirs.size) continue;
    if (shown++ < 3) {
      add(ours.name + " " + std::to_string(theirs.size) + " bytes, built for " + std::to_string(ours.size));
    } else {
      ++more;
    }
  }
  if (more > 0) add(std::to_string(more) + " more struct sizes");
  if (differences.empty()) return std::nullopt;
  return "built for " + describe_build(built) + " but loaded by " + describe_build(running) + " (" + differences +
         "): monitoring off, the job runs unmonitored; rebuild mpimon for this Open MPI (docs/install.md, \"Your "
         "cluster's Open MPI\")";
}

}  // namespace mpimon
