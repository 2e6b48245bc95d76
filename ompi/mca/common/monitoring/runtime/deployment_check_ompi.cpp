#include "runtime/deployment_check_ompi.h"

#include "ompi_release_pmix.h"
#include "runtime/ompi_glue.h"

#include <cstdlib>
#include <optional>

namespace mpimon {

namespace {

using ompi_release::pmix::Query;

std::string hostname_of(int rank) {
  const auto name = Query(true).string(static_cast<uint32_t>(rank), ompi_release::pmix::kHostname);
  return name ? *name : "the host of rank " + std::to_string(rank);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// The lowest rank in "3,1,7"; nullopt if the list is empty or malformed.
std::optional<int> lowest_rank(const std::string& peers) {
  std::optional<int> lowest;
  for (const std::string& p : split_commas(peers)) {
    char* end = nullptr;
    const long rank = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || rank < 0) return std::nullopt;
    if (!lowest || rank < *lowest) lowest = static_cast<int>(rank);
  }
  return lowest;
}

}  // namespace

std::string publish_components_tag(const std::string& tag) {
  const int rc = ompi_release::pmix::put_global_string(kComponentsKey, tag);
  return rc == 0 ? "" : "cannot publish this rank's components in the PMIx modex (error " + std::to_string(rc) + ")";
}

std::vector<HostReport> probe_hosts(int world_size) {
  std::vector<HostReport> reports;
  const uint32_t wildcard = ompi_release::pmix::kWildcardRank;
  const auto nodes = Query(true).number(wildcard, ompi_release::pmix::kNumNodes);
  const auto node_list = Query(true).string(wildcard, ompi_release::pmix::kNodeList);
  const std::vector<std::string> names = node_list ? split_commas(*node_list) : std::vector<std::string>{};
  // The job's nodes: its node list where there is one (5.0's node count is the whole
  // allocation's, the launcher's node included, even when it runs no rank), else the count.
  const uint32_t job_nodes = names.empty() ? nodes.value_or(0) : static_cast<uint32_t>(names.size());
  if (job_nodes > 0) {
    for (uint32_t n = 0; n < job_nodes; ++n) {
      const std::string name = names.empty() ? "" : names[n];
      const auto peers = Query(true).on_node(n, name).string(wildcard, ompi_release::pmix::kLocalPeers);
      const auto lowest = peers ? lowest_rank(*peers) : std::nullopt;
      if (!lowest || *lowest >= world_size) {
        reports.clear();  // no usable node map: look at every rank below
        break;
      }
      reports.push_back({name.empty() ? hostname_of(*lowest) : name, *lowest, std::nullopt});
    }
  }
  if (reports.empty())
    for (int r = 0; r < world_size; ++r) reports.push_back({hostname_of(r), r, std::nullopt});
  // What each looked-at rank published under our key, all looked up together.
  std::vector<uint32_t> ranks;
  ranks.reserve(reports.size());
  for (const HostReport& report : reports) ranks.push_back(static_cast<uint32_t>(report.rank));
  const std::vector<std::optional<std::string>> tags = ompi_release::pmix::published_strings(ranks, kComponentsKey);
  for (size_t i = 0; i < reports.size(); ++i) reports[i].tag = tags[i];
  return reports;
}

}  // namespace mpimon
