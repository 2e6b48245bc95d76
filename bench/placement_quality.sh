#!/usr/bin/env bash
# Placement quality (no MPI, no hosts needed): `mpimon place`'s placement core against
#   1. brute force: every mapping, or every host assignment on hosts whose cores are all
#      2 hops apart, enumerated literally on random matrices of 8-12 processes (5 each):
#      the costs (bytes crossing hosts, then hop-bytes) must agree; times per matrix;
#   2. mpirun's by-slot and round-robin by host and Scotch, on random matrices and on 2-D
#      stencils whose ranks are numbered in a random order, 16-64 processes over 2-8 hosts
#      of 2 packages: bytes crossing hosts and hop-bytes summed over the trials.
# Times are wall-clock on a shared machine: read them as orders of magnitude.
#
#   bench/placement_quality.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
program=$builddir/bin/mpimon_bench_placement_quality
[[ -x $program ]] || die "$program is missing: build the project (cmake --build $builddir)"
"$program"
