#!/usr/bin/env bash
# The main job: set up, build, run the bundled example (a ring, an MPI_Reduce forced to a
# binary tree, a 2-D halo exchange) on 8 ranks under monitoring, and print its matrices.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out="$build/demo"
rm -rf "$out" && mkdir -p "$out"
echo "== mpimon run -- -np 8 mpimon_example (ring, binary-tree reduce, 2-D halo)"
"$build/bin/mpimon" run -- -np 8 \
  --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
  --mca pml_monitoring_filename "$out/example" \
  --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4 \
  "$build/bin/mpimon_example" ring reduce halo
echo "== per-rank dumps (Open MPI's .prof format): $out/example.<rank>.prof"
"$build/bin/mpimon" matrix "$out/example" --metric messages
"$build/bin/mpimon" matrix "$out/example" --metric bytes
