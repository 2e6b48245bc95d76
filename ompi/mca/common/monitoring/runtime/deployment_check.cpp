#include "runtime/deployment_check.h"

#include <algorithm>
#include <map>

namespace mpimon {

std::string components_tag(int major, int minor, int patch) {
  return "mpimon " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace {

// "a, b and 3 more"
std::string name_list(const std::vector<std::string>& names, size_t max_named) {
  std::string text;
  const size_t shown = std::min(names.size(), max_named);
  for (size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > shown) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

}  // namespace

DeploymentVerdict judge_deployment(const std::vector<HostReport>& reports, const std::string& our_tag,
                                   size_t max_named) {
  // Per host, in order of its lowest rank: lacking, or the first other tag seen.
  struct HostState {
    int lowest_rank;
    bool lacking = false;
    std::string other_tag;
  };
  std::map<std::string, HostState> hosts;
  DeploymentVerdict verdict;
  for (const HostReport& r : reports) {
    auto [it, fresh] = hosts.try_emplace(r.host, HostState{r.rank, false, {}});
    HostState& h = it->second;
    h.lowest_rank = std::min(h.lowest_rank, r.rank);
    if (!r.tag) {
      h.lacking = true;
    } else {
      if (*r.tag != our_tag && h.other_tag.empty()) h.other_tag = *r.tag;
      if (verdict.reporting_rank < 0 || r.rank < verdict.reporting_rank) verdict.reporting_rank = r.rank;
    }
  }
  std::vector<std::pair<int, std::string>> lacking, other;
  for (const auto& [name, h] : hosts) {
    if (h.lacking)
      lacking.emplace_back(h.lowest_rank, name);
    else if (!h.other_tag.empty())
      other.emplace_back(h.lowest_rank, name + " (" + h.other_tag + ")");
  }
  if (lacking.empty() && other.empty()) return DeploymentVerdict{};
  std::sort(lacking.begin(), lacking.end());
  std::sort(other.begin(), other.end());
  auto names = [](const std::vector<std::pair<int, std::string>>& v) {
    std::vector<std::string> n;
    for (const auto& p : v) n.push_back(p.second);
    return n;
  };
  verdict.all_monitored = false;
  std::string what;
  if (!lacking.empty())
    what = "its components are not running on " + std::to_string(lacking.size()) +
           (lacking.size() == 1 ? " host: " : " hosts: ") + name_list(names(lacking), max_named);
  if (!other.empty())
    what += (what.empty() ? "" : "; ") + std::string("another version runs on ") + std::to_string(other.size()) +
            (other.size() == 1 ? " host: " : " hosts: ") + name_list(names(other), max_named);
  verdict.line = "monitoring off for this job (" + our_tag + "): " + what +
                 "; the job runs on unmonitored (no dumps, no job file); install the same plugin folder at the same "
                 "path on every host (docs/running-on-a-cluster.md)";
  return verdict;
}

}  // namespace mpimon
