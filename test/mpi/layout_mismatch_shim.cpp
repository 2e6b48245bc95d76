// Preloaded into a job (LD_PRELOAD) to play an events library from another build: its
// inline_layout() interposes the library's and reports a layout no plugin was built for.
#include <cstdint>

namespace mpimon::events {
uint32_t inline_layout() { return 0; }
}  // namespace mpimon::events
