#!/usr/bin/env bash
# The main job: install what the demo needs (only that), build what it runs (the
# plugins, mpimon, the event logger, the example: no tests), then run the bundled example
# (a ring, an MPI_Reduce forced to a binary tree, a 2-D halo exchange) on 8 ranks under
# monitoring and print its matrices; then the same program under the MPI_T event logger
# (rank 1's events and statistics). The run itself is examples/mpimon-demo, which an
# installed tree has as P/bin/mpimon-demo.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
start=$SECONDS
"$here/scripts/setup.sh" --demo
echo "demo.sh: set-up and build: $((SECONDS - start)) s"
rm -rf "$build/demo"
"$build/bin/mpimon-demo" "$build/demo"
