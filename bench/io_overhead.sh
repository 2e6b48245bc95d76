#!/usr/bin/env bash
# Instructions per MPI-IO call: no monitoring vs Debian's monitoring components vs ours,
# side by side, measured with valgrind's callgrind. Reports only.
#
#   bench/io_overhead.sh [BUILD_DIR]        (default: the build/ next to bench/)
#
# Two calls, each with K1 and K2 iterations of mpimon_bench_io (io_bench.cpp) on a file in
# a scratch folder, world rank 0 under
#   valgrind --tool=callgrind --toggle-collect=PMPI_File_write_at[_all]
# so only instructions inside the call are counted; one call costs
# (total(K2) - total(K1)) / (K2 - K1):
#   MPI_File_write_at, 8 B, 1 rank        independent I/O: ompio's path to pwrite and ours
#                                         around it (asked view, timing, the fbtl's view)
#   MPI_File_write_at_all, 4096 B, 4 ranks  ompio's two-phase write (vulcan) at its
#                                         aggregator: ours adds the asked and fs views, the
#                                         window switch and the shuffle's attribution
# The collective's total includes progress loops that wait for the other ranks (varies
# from run to run on a loaded machine): its "inside monitoring code" column (the self
# cost of the monitoring objects: ours, everything in our plugin folder; Debian's, its
# pml/coll monitoring plugins, libmca_common_monitoring and libm) is the exact figure.
#
# Configurations:
#   none    our plugin dir first in mca_base_component_path, pml_monitoring_enable 0
#           (nothing of ours interposed, the io layer included)
#   distro  Debian's components: our dir not in the path, pml_monitoring_enable 2 (they
#           have no io layer: they count the shuffle's messages as application traffic)
#   mpimon  ours, pml_monitoring_enable 2 (io_monitoring_enable 1, the default)
# The other layers' hot paths: bench/pml_overhead.sh (the shuffle is looked for only
# inside MPI-IO calls, so its figures do not move).
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

K1=200
K2=400
run_timeout=300

for tool in valgrind mpirun.openmpi python3 timeout; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (scripts/setup.sh installs what the benchmarks need)"
done
clean_mpi_environment
[[ -f $plugindir/mca_io_monitoring.so ]] ||
  die "our io plugin $plugindir/mca_io_monitoring.so is missing: build it with 'cmake --build $builddir --target mca_io_monitoring'"
distro_dir=$(dirname "$(find /usr/lib -path '*openmpi*' -name mca_pml_monitoring.so | head -1)")
[[ -f $distro_dir/mca_pml_monitoring.so ]] || die "Debian's pml/monitoring component is not installed (libopenmpi3)"
if ! build_log=$(cmake --build "$builddir" --target mpimon_bench_io 2>&1); then
  echo "$build_log" | tail -n 20 >&2
  die "building target mpimon_bench_io failed (output above)"
fi
exe=$builddir/bin/mpimon_bench_io

make_work_dir io-overhead
snapshot_plugins "$work"
cp -p "$exe" "$work/mpimon_bench_io"
exe=$work/mpimon_bench_io
our_path="$snapdir:SYS_DEFAULT:USER_DEFAULT"

# run CONFIG CALL RANKS BYTES K -> the callgrind output file
run() {
  local config=$1 call=$2 ranks=$3 bytes=$4 k=$5
  local tag=$config.$call.$k out=$work/callgrind.$config.$call.$k log=$work/log.$config.$call.$k
  local -a envs=(env -u OMPI_MCA_mca_base_component_path)
  local enable=2
  case $config in
    none) envs+=("OMPI_MCA_mca_base_component_path=$our_path"); enable=0 ;;
    distro) ;;
    mpimon) envs+=("OMPI_MCA_mca_base_component_path=$our_path") ;;
  esac
  local wrapper=$work/rank0.$call.sh
  [[ -x $wrapper ]] || write_rank0_callgrind_wrapper "$wrapper" "PMPI_File_$call"
  mkdir -p "$work/files.$tag"
  rm -f "$out"
  local rc=0
  (cd "$work/files.$tag" && "${envs[@]}" timeout "$run_timeout" mpirun.openmpi -np "$ranks" --mca btl self,vader \
    --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable "$enable" --mca pml_monitoring_job_file "" \
    "$wrapper" "$out" "$exe" "$call" "$bytes" "$k") >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -n 20 "$log" >&2
    die "run failed (exit status $rc): $config, $call, K=$k"
  fi
  [[ -s $out ]] || die "no callgrind output for $config, $call, K=$k"
  # The io layer ran exactly where it should (a component that silently failed to load
  # cannot fake a figure).
  local ours_seen=0
  grep -qF "$snapdir/mca_io_monitoring.so" "$out" && ours_seen=1
  case $config:$ours_seen in
    mpimon:1 | none:0 | distro:0) ;;
    mpimon:0) die "config 'mpimon': our io component did not run inside MPI_File_$call" ;;
    *) die "config '$config': our io component ran inside MPI_File_$call" ;;
  esac
  echo "$out"
}

objects() { # config -> substrings naming its monitoring objects
  case $1 in
    mpimon) echo "$snapdir/" ;;
    distro) echo "$distro_dir/mca_coll_monitoring.so $distro_dir/mca_pml_monitoring.so libmca_common_monitoring libm.so" ;;
    none) echo "no-such-object" ;;
  esac
}

# per_call CONFIG CALL RANKS BYTES -> "<total> <inside monitoring code>" per call
per_call() {
  local a b ma mb
  a=$(run "$1" "$2" "$3" "$4" $K1)
  b=$(run "$1" "$2" "$3" "$4" $K2)
  # shellcheck disable=SC2046
  ma=$(python3 "$here/callgrind_objects.py" "$a" $(objects "$1"))
  # shellcheck disable=SC2046
  mb=$(python3 "$here/callgrind_objects.py" "$b" $(objects "$1"))
  awk -v a="$(callgrind_total "$a")" -v b="$(callgrind_total "$b")" -v ma="$ma" -v mb="$mb" -v d=$((K2 - K1)) \
    'BEGIN {printf "%.1f %.1f\n", (b - a) / d, (mb - ma) / d}'
}

start=$SECONDS
declare -A total inside
for call in write_at write_at_all; do
  for config in none distro mpimon; do
    note "$call: $config"
    if [[ $call == write_at ]]; then
      read -r t i < <(per_call "$config" write_at 1 8)
    else
      read -r t i < <(per_call "$config" write_at_all 4 4096)
    fi
    total[$config.$call]=$t
    inside[$config.$call]=$i
  done
done

echo "## Instructions per MPI-IO call"
echo
echo "callgrind Ir inside PMPI_File_<call> of world rank 0, (total(K=$K2) - total(K=$K1)) / $((K2 - K1)); ompio, fbtl posix"
echo "none: pml_monitoring_enable 0 | distro: Debian's components, enable 2 | mpimon: ours, enable 2"
echo
echo "| call | none | distro | mpimon | distro added | mpimon added | inside monitoring code: distro | mpimon |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for call in write_at write_at_all; do
  label="MPI_File_write_at, 8 B, 1 rank"
  [[ $call == write_at_all ]] && label="MPI_File_write_at_all, 4096 B, 4 ranks (aggregator)"
  n=${total[none.$call]} d=${total[distro.$call]} m=${total[mpimon.$call]}
  echo "| $label | $n | $d | $m | $(awk -v a="$d" -v b="$n" 'BEGIN{printf "%+.1f", a - b}') |" \
    "$(awk -v a="$m" -v b="$n" 'BEGIN{printf "%+.1f", a - b}') | ${inside[distro.$call]} | ${inside[mpimon.$call]} |"
done
echo
echo "(the collective's totals include waiting for the other ranks; its 'inside monitoring code' columns are exact)"
echo "(12 runs in $((SECONDS - start)) s)"
exit 0
