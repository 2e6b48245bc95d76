// The PMIx side of the start-up check (runtime/deployment_check.h): publishing our tag in the
// modex and reading what each host's lowest rank published.
#pragma once

#include <string>
#include <vector>

#include "runtime/deployment_check.h"

namespace mpimon {

// Publishes `tag` under kComponentsKey with global scope. Call during MPI_Init before
// the modex fence (our PML component's selection is). Returns "" or what failed.
std::string publish_components_tag(const std::string& tag);

// After MPI_Init: one report per host, for its lowest rank, from O(hosts) lookups (the
// node map Open MPI's launcher registers, and the modex data the fence brought: in this
// process on 4.1, at this host's server on 5.0, asked all at once). Where the launcher
// gives no per-node map, one report per rank (O(ranks) lookups).
std::vector<HostReport> probe_hosts(int world_size);

}  // namespace mpimon
