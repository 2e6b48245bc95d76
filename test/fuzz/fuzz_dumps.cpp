// libFuzzer target: any bytes as a dump file given to every mpimon command (.prof files,
// captured output, job files with their annotations). See every_command.h.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "every_command.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mpimon::tools::run_every_command(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
