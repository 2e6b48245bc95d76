#!/usr/bin/env bash
# The bundled example under monitoring, as mpimon-demo runs it, from a build folder of
# mpimon (through its own `mpimon run`, hence the launcher of the Open MPI it was built
# for), and its dumps reduced to what must not depend on how that Open MPI was built:
# the E, I and C lines of every rank's .prof (Open MPI's format), in rank order.
#
#   example-dumps.sh <mpimon build folder> <output folder (new or empty)>
#
# Writes <output>/example.<rank>.prof and <output>/eic.txt. The patterns: a ring, an
# MPI_Reduce forced to a binary tree (coll_tuned_reduce_algorithm 4), a 2-D halo, a
# persistent send started 3 times, on 4 ranks (oversubscribed on 2 cores).
set -euo pipefail
build="$(cd "${1:?usage: example-dumps.sh <build> <output>}" && pwd)"
out="${2:?usage: example-dumps.sh <build> <output>}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
[ -z "$(ls -A "$out")" ] || { echo "example-dumps: $out is not empty" >&2; exit 2; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$build/bin/mpimon" run -- -np 4 --mca mpi_yield_when_idle 1 \
  --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$out/example" \
  --mca pml_monitoring_job_file "" \
  --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4 \
  "$build/libexec/mpimon/mpimon_example" ring reduce halo persistent >"$out/run.log" 2>&1 ||
  { cat "$out/run.log" >&2; echo "example-dumps: the example failed under $build" >&2; exit 1; }
for rank in 0 1 2 3; do
  f="$out/example.$rank.prof"
  [ -f "$f" ] || { cat "$out/run.log" >&2; echo "example-dumps: no $f" >&2; exit 1; }
  echo "rank $rank"
  grep -E '^[EIC][[:space:]]' "$f" | sort
done >"$out/eic.txt"
echo "example-dumps: $(grep -c -E '^[EIC]' "$out/eic.txt") E/I/C lines in $out/eic.txt"
