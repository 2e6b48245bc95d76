#!/usr/bin/env bash
# The main job: set up, build, run the bundled example (a ring, an MPI_Reduce forced to a
# binary tree, a 2-D halo exchange) on 8 ranks under monitoring, and print its matrices;
# then the same program under the MPI_T event logger (rank 1's events and statistics).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
out="$build/demo"
rm -rf "$out" && mkdir -p "$out"
echo "== mpimon run -- -np 8 mpimon_example (ring, binary-tree reduce, 2-D halo)"
"$build/bin/mpimon" run -- -np 8 \
  --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
  --mca pml_monitoring_filename "$out/example" --mca pml_monitoring_job_file "$out/mpimon-job.txt" \
  --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4 \
  "$build/bin/mpimon_example" ring reduce halo
echo "== per-rank dumps (Open MPI's .prof format): $out/example.<rank>.prof"
"$build/bin/mpimon" matrix "$out/example" --metric messages
"$build/bin/mpimon" matrix "$out/example" --metric bytes
echo "== the same under the MPI_T event logger (LD_PRELOAD, MEL_OUTPUT=$out/events): rank 1's log"
"$build/bin/mpimon" run -- -np 8 --mca pml_monitoring_enable 2 \
  --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4 \
  --mca pml_monitoring_job_file "" \
  -x LD_PRELOAD="$build/lib/mpimon/libmpimon_event_logger.so" -x MEL_OUTPUT="$out/events" \
  "$build/bin/mpimon_example" ring reduce
head -n 8 "$out/events.1.log"
echo "..."
grep '^statistics: \(sent\|received\|receive\)' "$out/events.1.log"
