// The start-up check of a deployment: does every rank of the job run these components?
//
// A job can mix hosts: one lacking our plugin folder (its ranks load Open MPI's own
// monitoring components, or none), one with another version installed. A collective call
// of our own (the job file's, and any later one) would then wait forever for ranks that
// never make it. So every rank of ours learns at start-up, without any collective call,
// whether all ranks run these components, and if not, the job runs on unmonitored.
//
// Protocol (kept stable across versions, so that any two versions agree on the verdict
// and on who reports it):
//  - during MPI_Init, before the PMIx modex fence, each of our ranks publishes
//    kComponentsKey = components_tag() (e.g. "mpimon 0.1.0") with global scope;
//  - after MPI_Init, each of our ranks looks at each host's lowest rank (O(hosts) local
//    lookups of data the fence already brought) and judges with judge_deployment();
//  - the one line is printed by the lowest of the hosts' lowest ranks that published any
//    tag: rank 0, unless rank 0's host lacks our components.
// Different tags are different versions: two releases may not agree on the collectives
// they make, so a mixed-version job runs unmonitored too.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mpimon {

inline constexpr const char* kComponentsKey = "mpimon.components";

// "mpimon <major>.<minor>.<patch>": what our ranks publish.
std::string components_tag(int major, int minor, int patch);

// What one rank found out about one host (or one rank, when the launcher gives no
// per-host information and every rank is looked at).
struct HostReport {
  std::string host;                // as Open MPI names it: the hostfile's name
  int rank = 0;                    // the host's lowest MPI_COMM_WORLD rank (the rank looked at)
  std::optional<std::string> tag;  // what that rank published; none: not our components
};

struct DeploymentVerdict {
  bool all_monitored = true;
  // The rank that prints `line` (the lowest looked-at rank that published any tag);
  // -1 when all are monitored.
  int reporting_rank = -1;
  std::string line;  // the one line naming the hosts (without "mpimon: "); empty when all monitored
};

// Several reports may name one host (one per rank): a host counts as lacking our
// components if any of its reports has no tag, as another version if any has another.
// At most `max_named` hosts are named per kind, then "and N more".
DeploymentVerdict judge_deployment(const std::vector<HostReport>& reports, const std::string& our_tag,
                                   size_t max_named = 8);

}  // namespace mpimon
