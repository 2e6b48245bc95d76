#include "runtime/warnings.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mpimon {

int launcher_world_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank <= 0x7fffffff) return static_cast<int>(rank);
  }
  return -1;
}

void warn_line(std::string_view source, std::string_view message, WarningScope scope) {
  if (scope == WarningScope::once_per_job && launcher_world_rank() > 0) return;
  std::string line;
  line.reserve(source.size() + message.size() + 3);
  line.append(source).append(": ").append(message).push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace mpimon
