// Scotch's static mapping of the same traffic onto the same tree (a "tleaf" target
// architecture), the reference `mpimon place` compares TreeMatch with.
#pragma once

#include "treematch.h"

namespace mpimon::placement {

// Throws std::runtime_error when Scotch fails.
Placement scotch_placement(const Affinity& affinity, const Tree& tree, int oversubscription = 1);

}  // namespace mpimon::placement
