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
#   none    ours loaded as `mpimon run` loads them (mpimon env), pml_monitoring_enable 0
#           (nothing of ours interposed, the io layer included)
#   distro  Debian's components: our dir not in the path, pml_monitoring_enable 2. Open
#           MPI has NO I/O monitoring (4.1, 5.0, main): no io component, nothing counted
#           per file. Its column is what its pml layer costs inside an MPI-IO call: for
#           the independent write nothing (= none), for the collective the shuffle's sends,
#           which it counts as application traffic.
#   mpimon  ours, pml_monitoring_enable 2 (io_monitoring_enable 1, the default)
#
# Second table: the other layers' hot paths do not move with the io layer. Instructions
# per MPI_Isend (8 B, MPI_COMM_WORLD, mpimon_bench_isend, 2 ranks, rank 0), per
# MPI_Allreduce (8 B, mpimon_bench_allreduce, 4 ranks, rank 0) and per passive-target put
# epoch (MPI_Win_lock + 8-byte MPI_Put + MPI_Win_unlock, mpimon_bench_put_epoch, 2 ranks,
# rank 0), all with our components at pml_monitoring_enable 2:
#   io on       io_monitoring_enable 1 (default)
#   io off      io_monitoring_enable 0 (the io component declines every file)
#   io absent   our plugin folder without mca_io_mpimon.so
#   before io   MPIMON_BENCH_BASE=<build dir of a commit before the io layer> (optional:
#               its plugins and bench programs; "-" when not given; the put epoch uses this
#               tree's program, which needs nothing of the layers)
# Each cell: the total inside the call and, beside it, the self cost of our objects (exact;
# the Allreduce's total also holds waiting for the other ranks).
# The PML's send wrappers are replaced by the shuffle's only while an MPI-IO call that may
# communicate runs (docs/io.md), so outside MPI-IO the send path is the same code.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

K1=200
K2=400
run_timeout=300

for tool in valgrind mpirun python3 timeout; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (scripts/setup.sh installs what the benchmarks need)"
done
clean_mpi_environment
[[ -f $plugindir/mca_io_mpimon.so ]] ||
  die "our io plugin $plugindir/mca_io_mpimon.so is missing: build it with 'cmake --build $builddir --target mca_io_mpimon'"
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
mpimon_environment "$snapdir"
snap_env=("${ours_env[@]}")

# run CONFIG CALL RANKS BYTES K -> the callgrind output file
run() {
  local config=$1 call=$2 ranks=$3 bytes=$4 k=$5
  local tag=$config.$call.$k out=$work/callgrind.$config.$call.$k log=$work/log.$config.$call.$k
  local -a envs=(env -u OMPI_MCA_mca_base_component_path)
  local enable=2
  case $config in
    none) envs+=("${snap_env[@]}"); enable=0 ;;
    distro) ;;
    mpimon) envs+=("${snap_env[@]}") ;;
  esac
  local wrapper=$work/rank0.$call.sh
  [[ -x $wrapper ]] || write_rank0_callgrind_wrapper "$wrapper" "PMPI_File_$call"
  mkdir -p "$work/files.$tag"
  rm -f "$out"
  local rc=0
  (cd "$work/files.$tag" && "${envs[@]}" timeout "$run_timeout" mpirun -np "$ranks" "${btl_args[@]}" \
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
  grep -qF "$snapdir/mca_io_mpimon.so" "$out" && ours_seen=1
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
echo "(distro: Open MPI's components have no I/O monitoring; they run inside MPI-IO calls only as the pml layer under"
echo " the collective's shuffle, which they count as application traffic)"

# ---------------------------------------------------------------------------------------
# The other layers' hot paths with the io layer on, off, absent, and before it existed.

if ! build_log=$(cmake --build "$builddir" --target mpimon_bench_isend mpimon_bench_allreduce mpimon_bench_put_epoch 2>&1); then
  echo "$build_log" | tail -n 20 >&2
  die "building targets mpimon_bench_isend mpimon_bench_allreduce mpimon_bench_put_epoch failed (output above)"
fi
cp -p "$builddir/bin/mpimon_bench_isend" "$builddir/bin/mpimon_bench_allreduce" "$builddir/bin/mpimon_bench_put_epoch" \
  "$work/"
absent_dir=$work/lib-mpimon-no-io
cp -a "$snapdir" "$absent_dir"
rm -f "$absent_dir/mca_io_mpimon.so"
base=${MPIMON_BENCH_BASE:-}
if [[ -n $base ]]; then
  [[ -f $base/lib/mpimon/mca_pml_monitoring.so && -x $base/bin/mpimon_bench_isend && -x $base/bin/mpimon_bench_allreduce ]] ||
    die "MPIMON_BENCH_BASE=$base: expected a build before the io layer (and before the mpimon name): lib/mpimon/mca_pml_monitoring.so, bin/mpimon_bench_isend and bin/mpimon_bench_allreduce there"
  [[ ! -f $base/lib/mpimon/mca_io_monitoring.so ]] || note "MPIMON_BENCH_BASE=$base has an io component: not a build before the io layer"
  mkdir "$work/base" "$work/base/bin"
  cp -a "$base/lib/mpimon" "$work/base/lib-mpimon"
  cp -p "$base/bin/mpimon_bench_isend" "$base/bin/mpimon_bench_allreduce" "$work/base/bin/"
fi
hot_wrapper_isend=$work/rank0.isend.sh
hot_wrapper_allreduce=$work/rank0.allreduce.sh
write_rank0_callgrind_wrapper "$hot_wrapper_isend" PMPI_Isend
write_rank0_callgrind_wrapper "$hot_wrapper_allreduce" PMPI_Allreduce
hot_wrapper_put=$work/rank0.put.sh
write_rank0_callgrind_wrapper "$hot_wrapper_put" PMPI_Win_lock PMPI_Put PMPI_Win_unlock

# hot_run CONFIG CALL K -> the callgrind output file
hot_run() {
  local config=$1 call=$2 k=$3 plugins=$snapdir bin=$work io=1
  local out=$work/callgrind.hot.$config.$call.$k log=$work/log.hot.$config.$call.$k
  case $config in
    on) ;;
    off) io=0 ;;
    absent) plugins=$absent_dir ;;
    base) plugins=$work/base/lib-mpimon bin=$work/base/bin ;;
  esac
  local -a program
  case $call in
    isend) program=(-np 2 "$hot_wrapper_isend" "$out" "$bin/mpimon_bench_isend" 8 "$k" world) ;;
    allreduce) program=(-np 4 "$hot_wrapper_allreduce" "$out" "$bin/mpimon_bench_allreduce" "$k") ;;
    put) program=(-np 2 "$hot_wrapper_put" "$out" "$work/mpimon_bench_put_epoch" "$k") ;;
  esac
  rm -f "$out"
  local rc=0
  # A base build predates the mpimon name: same-name replacement through the path, as then.
  local -a envs
  if [[ $config == base ]]; then
    envs=(OMPI_MCA_mca_base_component_path="$plugins:SYS_DEFAULT:USER_DEFAULT")
  else
    mapfile -t envs <<<"${hot_env_of[$plugins]}"
  fi
  (cd "$work" && env "${envs[@]}" timeout "$run_timeout" \
    mpirun "${btl_args[@]}" --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 \
    --mca io_monitoring_enable "$io" --mca pml_monitoring_job_file "" "${program[@]}") >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -n 20 "$log" >&2
    die "run failed (exit status $rc): io $config, $call, K=$k"
  fi
  [[ -s $out ]] || die "no callgrind output for io $config, $call, K=$k"
  echo "$out"
}
hot_plugins() { # CONFIG -> its plugin folder
  case $1 in
    absent) echo "$absent_dir" ;;
    base) echo "$work/base/lib-mpimon" ;;
    *) echo "$snapdir" ;;
  esac
}
hot_per_call() { # CONFIG CALL K1 K2 -> "<total> <inside our objects>" per call
  local a b ma mb
  a=$(hot_run "$1" "$2" "$3")
  b=$(hot_run "$1" "$2" "$4")
  ma=$(python3 "$here/callgrind_objects.py" "$a" "$(hot_plugins "$1")/")
  mb=$(python3 "$here/callgrind_objects.py" "$b" "$(hot_plugins "$1")/")
  awk -v a="$(callgrind_total "$a")" -v b="$(callgrind_total "$b")" -v ma="$ma" -v mb="$mb" -v d=$(($4 - $3)) \
    'BEGIN {printf "%.1f %.1f\n", (b - a) / d, (mb - ma) / d}'
}

declare -A hot hot_inside hot_env_of
configs=(on off absent)
[[ -n $base ]] && configs+=(base)
# What `mpimon run` sets, once per plugin folder (hot_run runs in a subshell: filled here).
for config in "${configs[@]}"; do
  [[ $config == base ]] && continue
  folder=$(hot_plugins "$config")
  [[ -n ${hot_env_of[$folder]+set} ]] && continue
  mpimon_environment "$folder"
  hot_env_of[$folder]=$(printf '%s\n' "${ours_env[@]}")
done
for call in isend allreduce put; do
  for config in "${configs[@]}"; do
    note "hot path $call: io $config"
    case $call in
      isend) read -r t i < <(hot_per_call "$config" isend 1000 2000) ;;
      allreduce) read -r t i < <(hot_per_call "$config" allreduce 200 400) ;;
      put) read -r t i < <(hot_per_call "$config" put 1000 2000) ;;
    esac
    hot[$config.$call]=$t
    hot_inside[$config.$call]=$i
  done
done

echo
echo "## The other layers' hot paths with the io layer on, off, absent and before it"
echo
echo "callgrind Ir at world rank 0, ours at pml_monitoring_enable 2, per call:"
echo "MPI_Isend and the put epoch: (total(K=2000) - total(K=1000)) / 1000; MPI_Allreduce: (total(K=400) - total(K=200)) / 200"
echo "inside our code: the self cost of our plugin folder's objects (exact); the Allreduce's total also holds"
echo "the progress loop waiting for the 3 other ranks (varies from run to run on a loaded machine)"
echo "before io: ${base:-not measured (set MPIMON_BENCH_BASE to a build of a commit before the io layer)}"
echo
echo "| call | io on | io off | io absent | before io | inside our code: io on | io off | io absent | before io |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for call in isend allreduce put; do
  case $call in
    isend) label="MPI_Isend, 8 B, MPI_COMM_WORLD, 2 ranks" ;;
    allreduce) label="MPI_Allreduce, 8 B, 4 ranks" ;;
    put) label="put epoch (MPI_Win_lock + MPI_Put 8 B + MPI_Win_unlock), 2 ranks" ;;
  esac
  echo "| $label | ${hot[on.$call]} | ${hot[off.$call]} | ${hot[absent.$call]} | ${hot[base.$call]:--} |" \
    "${hot_inside[on.$call]} | ${hot_inside[off.$call]} | ${hot_inside[absent.$call]} | ${hot_inside[base.$call]:--} |"
done
echo
echo "(all runs in $((SECONDS - start)) s)"
exit 0
