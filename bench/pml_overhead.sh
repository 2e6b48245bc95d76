#!/usr/bin/env bash
# Instructions added per MPI_Isend by PML monitoring: no monitoring vs Open MPI's own
# pml/monitoring component vs ours, side by side, measured with valgrind's callgrind, on
# the Open MPI this machine runs (4.1, or 5.0 in the Debian 13 root).
#
#   bench/pml_overhead.sh [BUILD_DIR]        (default: the build/ next to bench/)
#
# For each configuration, communicator (MPI_COMM_WORLD, and an MPI_Comm_split
# communicator with reversed rank order) and message size (0 B, 8 B, 1 KiB), the program
# mpimon_bench_isend runs on 2 ranks twice, with K1 and K2 sends; world rank 0 runs under
#   valgrind --tool=callgrind --toggle-collect=PMPI_Isend
# so only instructions executed inside MPI_Isend are counted (MPI_Isend is a weak alias
# of PMPI_Isend; a PML wrapper is called from inside it). The cost of one MPI_Isend is
# (total(K2) - total(K1)) / (K2 - K1): start-up and first-call costs cancel out.
#
# Configurations:
#   none    our components loaded as `mpimon run` loads them, pml_monitoring_enable 0
#           (our component then does not interpose)
#   distro  Open MPI's own component: our dir not in the path, pml_monitoring_enable 2
#   mpimon  ours: <BUILD_DIR>/lib/mpimon as `mpimon run` loads it, pml_monitoring_enable 2
#   site    ours, only the site switch: mpimon_log_path <work>/site-logs (dated folders made by
#           `mpimon admin mk-log-dirs`), pml_monitoring_enable 0 (docs/site-deployment.md)
# After each run the callgrind output is checked to contain (or not) the expected
# monitoring code, so a component that silently failed to load cannot fake a result.
#
# It is a benchmark: it prints a table and how it compares with the targets, and exits 0
# whatever the figures are (non-zero only when it cannot measure).
#
# Environment:
#   MPIMON_BENCH_EXE=<path>  use this mpimon_bench_isend instead of building the CMake
#                            target (e.g. before bench/ is part of the build)
#   MPIMON_BENCH_KEEP=1      keep the callgrind files (for callgrind_annotate) and logs
#   MPIMON_BENCH_CONFIGS="none mpimon site"  the configurations to run (default: none distro
#                            mpimon; the table's columns follow)
# OMPI_MCA_* variables of the caller are ignored (unset) so that results are comparable.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

K1=1000
K2=2000
sizes=(0 8 1024)
comms=(world split)
read -r -a configs <<<"${MPIMON_BENCH_CONFIGS:-none distro mpimon}"
target_world=25 # issue 23
target_split=35
run_timeout=180 # seconds per mpirun (a run takes ~1-2 s)

# ---------------------------------------------------------------- prerequisites
for tool in valgrind mpirun.openmpi ompi_info timeout; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    case $tool in
      valgrind) die "valgrind not found: install it (apt-get install valgrind); the measurement uses callgrind" ;;
      mpirun.openmpi | ompi_info) die "$tool not found: Open MPI (Debian's openmpi-bin) is required" ;;
      *) die "$tool not found" ;;
    esac
  fi
done
valgrind --tool=callgrind --version >/dev/null 2>&1 || die "valgrind's callgrind tool does not run ('valgrind --tool=callgrind --version' fails)"

clean_mpi_environment

[[ -f $plugindir/mca_pml_mpimon.so ]] ||
  die "our PML plugin $plugindir/mca_pml_mpimon.so is missing: build it with 'cmake --build $builddir --target mca_pml_mpimon'"
ompi_info_out=$(env -u OMPI_MCA_mca_base_component_path ompi_info --parsable 2>&1) ||
  die "ompi_info failed: $(head -n 3 <<<"$ompi_info_out")"
distro_pml=$(grep -E '^mca:pml:monitoring:' <<<"$ompi_info_out" | head -n1 || true)
[[ -n $distro_pml ]] ||
  die "Open MPI's own pml/monitoring component is not found by ompi_info (Debian ships it in libopenmpi3 on 12, inside libmpi on 13); the 'distro' column needs it"

# ---------------------------------------------------------------- benchmark program
if [[ -n ${MPIMON_BENCH_EXE:-} ]]; then
  exe=$MPIMON_BENCH_EXE
  [[ -x $exe ]] || die "MPIMON_BENCH_EXE=$exe is not an executable"
else
  [[ -f $builddir/CMakeCache.txt ]] || die "$builddir is not a CMake build directory (no CMakeCache.txt)"
  command -v cmake >/dev/null 2>&1 || die "cmake not found"
  if ! build_log=$(cmake --build "$builddir" --target mpimon_bench_isend 2>&1); then
    echo "$build_log" | tail -n 20 >&2
    if grep -qiE "unknown target|no rule to make target|not a known target" <<<"$build_log"; then
      die "$builddir has no target mpimon_bench_isend: add 'add_subdirectory(bench)' to the top-level CMakeLists.txt and rebuild (or set MPIMON_BENCH_EXE)"
    fi
    die "building target mpimon_bench_isend failed (output above)"
  fi
  exe=$builddir/bin/mpimon_bench_isend
  [[ -x $exe ]] || die "target mpimon_bench_isend built, but $exe does not exist"
fi

make_work_dir pml-overhead
if [[ " ${configs[*]} " == *" site "* ]]; then
  mkdir -m 0755 "$work/site-logs"
  "$builddir/bin/mpimon" admin mk-log-dirs "$work/site-logs" >/dev/null || die "mpimon admin mk-log-dirs failed"
fi

# Only MPI_COMM_WORLD rank 0 (the sender) runs under callgrind; rank 1 runs natively.
wrapper=$work/rank0_callgrind.sh
write_rank0_callgrind_wrapper "$wrapper" PMPI_Isend

snapshot_plugins "$work"
cp -p "$exe" "$work/mpimon_bench_isend"
exe=$work/mpimon_bench_isend
mpimon_environment "$snapdir"

# run_one CONFIG COMM SIZE K -> prints callgrind's total instruction count
run_one() {
  local config=$1 comm=$2 size=$3 k=$4
  local tag=$config.$comm.$size.$k
  local out=$work/callgrind.$tag log=$work/log.$tag
  local -a envs=(env -u OMPI_MCA_mca_base_component_path)
  local enable=2
  case $config in
    none) envs+=("${ours_env[@]}"); enable=0 ;;
    distro) ;;
    mpimon) envs+=("${ours_env[@]}") ;;
    site) envs+=("${ours_env[@]}" OMPI_MCA_mpimon_log_path="$work/site-logs"); enable=0 ;;
  esac
  rm -f "$out"
  local rc=0
  (cd "$work" && "${envs[@]}" timeout "$run_timeout" mpirun.openmpi -np 2 "${btl_args[@]}" \
    --mca pml_monitoring_enable "$enable" "$wrapper" "$out" "$exe" "$size" "$k" "$comm") >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -n 20 "$log" >&2
    [[ $rc -eq 124 ]] && die "run timed out after ${run_timeout} s: $config, $comm, $size B, K=$k"
    die "run failed (exit status $rc): $config, $comm, $size B, K=$k${MPIMON_BENCH_KEEP:+ (log: $log)}"
  fi
  [[ -s $out ]] || { tail -n 20 "$log" >&2; die "no callgrind output for $config, $comm, $size B, K=$k"; }
  if [[ -s $log ]] && grep -qi "valgrind\|==[0-9]*==" "$log"; then
    note "valgrind/MPI messages for $config, $comm, $size B, K=$k:"
    head -n 5 "$log" >&2
  fi

  # The callgrind file names every object that executed code inside MPI_Isend.
  local objs ours_seen=0 distro_seen=0
  objs=$(grep -oE '/[^ ]*\.so[.0-9]*' "$out" | sort -u)
  grep -qxF "$snapdir/mca_pml_mpimon.so" <<<"$objs" && ours_seen=1
  openmpi_monitoring_ran "$out" pml && distro_seen=1
  case $config:$ours_seen:$distro_seen in
    none:0:0 | distro:0:1 | mpimon:1:0 | site:1:0) ;;
    site:*) die "config 'site': our $plugindir/mca_pml_mpimon.so did not run inside MPI_Isend with only mpimon_log_path set" ;;
    none:*) die "config 'none' ran a monitoring component inside MPI_Isend (pml_monitoring_enable 0 should disable it)" ;;
    distro:*) die "config 'distro': Open MPI's pml/monitoring did not run inside MPI_Isend (ours=$ours_seen)" ;;
    mpimon:*) die "config 'mpimon': our $plugindir/mca_pml_mpimon.so did not run inside MPI_Isend (distro=$distro_seen); does it load? try: OMPI_MCA_mca_base_component_path=$plugindir:SYS_DEFAULT:USER_DEFAULT ompi_info | grep 'pml: mpimon'" ;;
  esac

  local total
  total=$(callgrind_total "$out")
  [[ $total =~ ^[0-9]+$ && $total -gt 0 ]] ||
    die "callgrind counted nothing for $config, $comm, $size B, K=$k (does --toggle-collect=PMPI_Isend match?)"
  echo "$total"
}

declare -A per # [config.comm.size] -> instructions per MPI_Isend (decimal)
total_runs=$((${#configs[@]} * ${#comms[@]} * ${#sizes[@]} * 2))
n=0
start=$SECONDS
for comm in "${comms[@]}"; do
  for size in "${sizes[@]}"; do
    for config in "${configs[@]}"; do
      printf '%s: runs %2d-%2d of %d: %-6s %-5s %4s B, K=%d and %d\n' "$prog" $((n + 1)) $((n + 2)) "$total_runs" \
        "$config" "$comm" "$size" "$K1" "$K2" >&2
      n=$((n + 2))
      t1=$(run_one "$config" "$comm" "$size" "$K1")
      t2=$(run_one "$config" "$comm" "$size" "$K2")
      per[$config.$comm.$size]=$(awk -v a="$t1" -v b="$t2" -v k1="$K1" -v k2="$K2" 'BEGIN {printf "%.2f", (b - a) / (k2 - k1)}')
    done
  done
done
elapsed=$((SECONDS - start))

# ---------------------------------------------------------------- report
size_label() { case $1 in 0) echo "0 B" ;; 1024) echo "1 KiB" ;; *) echo "$1 B" ;; esac; }
comm_label() { case $1 in world) echo "MPI_COMM_WORLD" ;; split) echo "split (reversed)" ;; esac; }

if [[ "${configs[*]}" != "none distro mpimon" ]]; then # MPIMON_BENCH_CONFIGS: the chosen columns only
  echo "## Instructions per MPI_Isend (callgrind Ir inside PMPI_Isend of world rank 0, Open MPI ${ompi_version:-?})"
  echo
  header="| comm | size |" rule="|---|---|"
  for config in "${configs[@]}"; do header+=" $config |" rule+="---:|"; done
  echo "$header"
  echo "$rule"
  for comm in "${comms[@]}"; do
    for size in "${sizes[@]}"; do
      line="| $(comm_label "$comm") | $(size_label "$size") |"
      for config in "${configs[@]}"; do line+=" $(fmt "${per[$config.$comm.$size]}") |"; done
      echo "$line"
    done
  done
  echo
  echo "($total_runs runs in ${elapsed} s)"
  exit 0
fi
echo "## Instructions per MPI_Isend, added by PML monitoring"
echo
echo "Open MPI ${ompi_version:-?}, ob1 (btl self,$shm_btl), 2 ranks; callgrind Ir inside PMPI_Isend"
echo "of world rank 0, (total(K=$K2) - total(K=$K1)) / $((K2 - K1)); one message in flight at a time."
echo "none: pml_monitoring_enable 0 | distro: Open MPI's pml/monitoring, enable 2 | mpimon: $plugindir (copied at start), enable 2"
echo
echo "| comm | size | none | distro | mpimon | distro added | mpimon added |"
echo "|---|---|---:|---:|---:|---:|---:|"
verdicts=()
for comm in "${comms[@]}"; do
  for size in "${sizes[@]}"; do
    v_none=${per[none.$comm.$size]}
    v_distro=${per[distro.$comm.$size]}
    v_ours=${per[mpimon.$comm.$size]}
    add_distro=$(awk -v a="$v_distro" -v b="$v_none" 'BEGIN {printf "%.2f", a - b}')
    add_ours=$(awk -v a="$v_ours" -v b="$v_none" 'BEGIN {printf "%.2f", a - b}')
    echo "| $(comm_label "$comm") | $(size_label "$size") | $(fmt "$v_none") | $(fmt "$v_distro") | $(fmt "$v_ours") | $(fmt "$add_distro" +) | $(fmt "$add_ours" +) |"
    limit=$target_world
    [[ $comm == split ]] && limit=$target_split
    verdict=$(awk -v a="$add_ours" -v l="$limit" 'BEGIN {print (a < l + 0.5) ? "PASS" : "MISS"}') # as displayed
    verdicts+=("- $(comm_label "$comm"), $(size_label "$size"): mpimon $(fmt "$add_ours" +) (limit $limit): $verdict")
  done
done
echo
echo "target: mpimon adds <= $target_world instructions per small send on MPI_COMM_WORLD, <= $target_split on a split communicator"
printf '%s\n' "${verdicts[@]}"
echo
echo "($total_runs runs in ${elapsed} s)"
exit 0
