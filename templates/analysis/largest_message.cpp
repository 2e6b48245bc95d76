// TEMPLATE: a new analysis, its state and its lines (see largest_message.h).
#include "analysis/largest_message.h"

#include <algorithm>

namespace mpimon::templates {

void LargestMessage::record(int32_t peer, uint64_t bytes) {
  uint64_t& largest = largest_[peer];
  largest = std::max(largest, bytes);
}

std::string LargestMessage::job_lines(int32_t world_rank) const {
  std::string lines;
  for (const auto& [peer, bytes] : largest_)
    lines += "largest_message " + std::to_string(world_rank) + " " + std::to_string(peer) + " " +
             std::to_string(bytes) + "\n";
  return lines;
}

}  // namespace mpimon::templates
