#include "runtime/program_name.h"

#include <unistd.h>

#include <climits>

namespace mpimon {

std::string program_name() {
  char path[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return "unknown";
  const std::string full(path, static_cast<size_t>(length));
  const size_t slash = full.rfind('/');
  const std::string name = slash == std::string::npos ? full : full.substr(slash + 1);
  return name.empty() ? "unknown" : name;
}

}  // namespace mpimon
