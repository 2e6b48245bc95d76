#!/usr/bin/env bash
# RMA wait states of a real kernel, as the paper's Table 2 (Hermanns et al. 2009,
# section 5.2): the BT-RMA-like halo code (examples/bt_rma.cpp) in its four
# synchronisation variants (fence, gats_fence, gats, gats_opt), each run with
# osc_monitoring_wait_states 1, then `mpimon waits` on the four job files side by side;
# once with osc rdma and once with osc pt2pt. Also the kernel's own time with wait states
# off and on (wall clock: noisy on these shared machines).
#
#   bench/bt_rma.sh [BUILD_DIR]
#
# Environment: MPIMON_BT_RANKS (default 4), MPIMON_BT_ITERATIONS (50), MPIMON_BT_POINTS
# (64 grid points per dimension), MPIMON_BT_OSC ("rdma pt2pt"), MPIMON_BENCH_KEEP=1 keeps
# the job files. Ranks beyond the cores: mpi_yield_when_idle 1.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ranks=${MPIMON_BT_RANKS:-4}
iterations=${MPIMON_BT_ITERATIONS:-50}
points=${MPIMON_BT_POINTS:-64}
# Open MPI 5.0 has no osc/pt2pt (docs/open-mpi-5.md).
default_components="rdma pt2pt"
[[ $ompi_version == 4.1.* ]] || default_components="rdma"
components=(${MPIMON_BT_OSC:-$default_components})
variants=(fence gats_fence gats gats_opt)

for f in bin/bt_rma bin/mpimon lib/mpimon/mca_osc_mpimon.so; do
  [[ -e $builddir/$f ]] || die "$builddir/$f is missing: build mpimon first ('cmake --build $builddir')"
done
command -v mpirun.openmpi >/dev/null || die "mpirun.openmpi not found: Debian's openmpi-bin is required"
clean_mpi_environment
make_work_dir bt-rma
snapshot_plugins "$work"

run() { # FOLDER WAIT_STATES OSC VARIANT -> the kernel's line
  mkdir -p "$1"
  # mpimon run adds our OSC component to the selection (rdma -> rdma,mpimon).
  (cd "$1" && MPIMON_PLUGIN_DIR=$snapdir timeout 600 "$builddir/bin/mpimon" run -- \
    -np "$ranks" --mca mpi_yield_when_idle 1 --mca osc "$3" --mca pml_monitoring_enable 2 \
    --mca osc_monitoring_wait_states "$2" "$builddir/bin/bt_rma" "$4" "$iterations" "$points") >"$1/log" 2>&1 ||
    { tail -n 20 "$1/log" >&2; die "bt_rma $4 failed ($3, wait states $2)"; }
  grep '^bt_rma' "$1/log"
}

echo "## BT-RMA-like kernel: $ranks ranks, $iterations iterations, $points^3 points"
for osc in "${components[@]}"; do
  echo
  echo "### osc $osc: RMA wait states per variant (seconds summed over the ranks, % of their total time)"
  echo
  files=()
  declare -A seconds_on seconds_off
  for v in "${variants[@]}"; do
    line=$(run "$work/$osc-$v" 1 "$osc" "$v")
    seconds_on[$v]=$(sed -n 's/.*iterations, \([0-9.]*\) s.*/\1/p' <<<"$line")
    files+=("$work/$osc-$v/mpimon-job.txt")
    line=$(run "$work/$osc-$v-off" 0 "$osc" "$v")
    seconds_off[$v]=$(sed -n 's/.*iterations, \([0-9.]*\) s.*/\1/p' <<<"$line")
    note "$osc $v: $line"
  done
  "$builddir/bin/mpimon" waits --markdown --labels="$(IFS=,; echo "${variants[*]}")" "${files[@]}"
  echo
  echo "| kernel time [s] | $(IFS='|'; echo "${variants[*]}" | sed 's/|/ | /g') |"
  echo "|---|$(printf -- '---:|%.0s' "${variants[@]}")"
  row_off="| wait states off"
  row_on="| wait states on"
  for v in "${variants[@]}"; do
    row_off+=" | ${seconds_off[$v]}"
    row_on+=" | ${seconds_on[$v]}"
  done
  echo "$row_off |"
  echo "$row_on |"
done
exit 0
