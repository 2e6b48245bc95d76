// TEMPLATE: a new analysis, reading its lines back (see largest_message.h). In the product
// this file is tools/readers/<name>_reader.cpp: every parser lives in the readers library.
#include "analysis/largest_message.h"
#include "readers/text_fields.h"

namespace mpimon::templates {

std::vector<LargestMessageLine> read_largest_message_lines(const std::vector<JobAnnotation>& annotations,
                                                           std::string_view file, int32_t world_size) {
  std::vector<LargestMessageLine> lines;
  for (const JobAnnotation& a : annotations) {
    if (a.keyword != "largest_message") continue;  // other keywords belong to other readers
    const auto rank = a.fields.size() == 3 ? parse_number<int32_t>(a.fields[0]) : std::nullopt;
    const auto peer = a.fields.size() == 3 ? parse_number<int32_t>(a.fields[1]) : std::nullopt;
    const auto bytes = a.fields.size() == 3 ? parse_number<uint64_t>(a.fields[2]) : std::nullopt;
    if (!rank || !peer || !bytes || *rank < 0 || *rank >= world_size || *peer < 0 || *peer >= world_size)
      fail_at(file, a.line,
              "'largest_message <rank> <peer> <bytes>' with ranks in [0, " + std::to_string(world_size) + ")");
    lines.push_back({*rank, *peer, *bytes});
  }
  return lines;
}

}  // namespace mpimon::templates
