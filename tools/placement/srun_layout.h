// A placement in the form srun applies (docs/slurm.md "Placement with srun"): srun has no
// rankfile; it takes the host of every task from the file SLURM_HOSTFILE names (with
// --distribution=arbitrary: task i on line i's host) and one CPU list for every node
// (--cpu-bind=map_cpu:<list>: a node's lowest local task on the first CPU of the list,
// its next on the second, ...). The hosts can always be written; the binding only when
// every node's tasks want the same list (a node with fewer tasks uses its beginning).
#pragma once

#include <string>

#include "cluster.h"

namespace mpimon::placement {

struct SrunLayout {
  std::string hostfile;        // SLURM_HOSTFILE's text: one host name per line, task order
  std::string map_cpu;         // "1,0": --cpu-bind=map_cpu:1,0; "" when no one list fits
  std::string why_no_map_cpu;  // then why (names two hosts whose lists differ)
};

// The layout of `mapping` (cores are the hosts' logical core numbers, as in rankfiles).
SrunLayout srun_layout(const Cluster& cluster, const Mapping& mapping);

}  // namespace mpimon::placement
