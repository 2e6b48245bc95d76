// libFuzzer target: any bytes as the hostfile given to `mpimon place --hostfile`. The
// reader must accept or refuse them as "<file>:<line>: expected ..." (a line of the input),
// never crash, hang or throw anything else; what it accepts must be hosts mpirun can use.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hostfile.h"
#include "readers/format_error.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();  // libFuzzer reports it with the input
}

bool plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (unsigned char c : name)
    if (!(std::isalnum(c) || c == '-' || c == '.' || c == ':')) return false;  // ':' in IPv6 addresses
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string file = "fuzz";
  try {
    for (const mpimon::tools::HostfileHost& host : mpimon::tools::parse_hostfile(text, file)) {
      check(plain_name(host.name));
      check(host.line >= 1);
      check(!host.slots || *host.slots >= 0);
      check(host.max_slots >= 0);
    }
  } catch (const mpimon::FormatError& e) {
    // "fuzz:<line>: expected ..." or "fuzz: expected ..." (no host at all).
    const std::string what = e.what();
    check(what.rfind(file + ":", 0) == 0);
    check(what.find("expected") != std::string::npos);
  }
  return 0;
}
