// libFuzzer target: any bytes as one host's file of a job's time series, read and summed
// by the tools and drawn as a timeline. See every_command.h.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "every_command.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mpimon::tools::run_every_series_command(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
