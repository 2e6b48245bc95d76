#!/usr/bin/env bash
# The monitoring paper's placement experiment, end to end, over emulated hosts with a
# network that costs something: monitor a job once, place it with `mpimon place
# --hostfile`, rerun it by slot, round-robin by host, with Scotch's mapping, with mpimon's
# rankfile, and reordered inside the run by mpimon_reorder(), and compare.
#
#   bench/cluster_placement.sh [BUILD_DIR]      (default: the build/ next to bench/; ~1 hour)
#
# Cluster: MPIMON_PLACEMENT_HOSTS (4) emulated hosts x MPIMON_PLACEMENT_SLOTS (4) slots
# (test/cluster/cluster.sh), every host's link limited by MPIMON_HOSTS_NET (default
# "rate=1gbit": 1 Gbit/s per link and direction, cluster.sh's syntax; "" for the free
# network of veth pairs; a delay needs the kernel's sch_netem).
# Kernels (mpimon_bench_placement, placement_bench.cpp):
#   reduce    MPI_Reduce (MPI_MAX) of 10^6, 10^7 and 2.5x10^7 ints (4, 40, 100 MB) to rank
#             0, forced to Open MPI's binary tree (the paper: 10^6 to 2x10^8 ints on 32 and
#             64 ranks; 2.5x10^7 is what 16 ranks of this 24 GB machine hold comfortably,
#             each rank holding 3 buffers, next to other users)
#   stencil   a MiniGhost-like stencil, 2-D (256^2 points per rank) and 3-D (40^3), 8
#             variables per point, faces exchanged with the neighbours every iteration
# For each kernel:
#   1. one monitored run by slot (job file), then `mpimon place <job file> --hostfile hf
#      --category internal|external --rankfile rf --scotch-rankfile rf.scotch` (its
#      table: hop-bytes and bytes crossing hosts per placement; the reduce is placed by
#      its internal traffic, the binary tree the collective decomposes into, the stencil
#      by its external traffic);
#   2. reruns, interleaved (by-slot, round-robin, Scotch, rankfile, reorder; by-slot, ...),
#      MPIMON_PLACEMENT_REPEATS times (default 5), each monitored (pml_monitoring_enable
#      2, job file): the time per iteration it prints (barrier to barrier, after an
#      untimed first iteration), the bytes crossing hosts per timed iteration it prints
#      (E + I sent between processes on different hosts during the timed iterations,
#      from mpimon's performance variables: comparable between layouts), and the bytes
#      crossing hosts over the whole run measured from its own job file (the same
#      records; the first iteration and, for reorder, the by-slot first iteration, the
#      reordering and one untimed iteration on the new communicator included);
#   3. a table: the median time as a ratio to by-slot's median, every run's time as a ratio
#      to by-slot's median (lowest-highest: the noise), crossing bytes, runs; by-slot's
#      median time per iteration once, for scale; the load before and after (uptime).
#      Timings only as ratios (docs/performance.md): absolute times mean little here.
# Layouts: by-slot `--map-by slot`; round-robin `--map-by node`; Scotch and rankfile
# `--rankfile` (from step 1; with pinned hosts their slots are set to the host's core, see
# below); reorder: by slot, the program calls mpimon_reorder() (by all the traffic it
# sent so far, E + I) after its first iteration and runs the timed iterations on the
# communicator it returns. Every layout runs with `--bind-to none`, the rankfiles'
# binding aside.
#
# What emulated hosts on one machine can show: the hosts are network namespaces sharing
# this machine's cores, memory and kernel. Between hosts, Open MPI uses TCP over veth
# pairs whose every end is shaped (tbf: the rate; netem: the delay); within a host, shared
# memory (vader), which no link limits. A placement that keeps heavy partners on one host
# replaces rate-limited TCP by shared memory: that is the effect these runs show. They
# cannot show switch contention beyond each host's own link (the bridge is not limited),
# or the NUMA effects of a real node; all hosts share this machine's 2 cores (host h runs
# on core (h-1) mod cores), so computation and the kernel's TCP work compete, and other
# users' load adds noise: medians of interleaved runs, ratios, never absolute figures.
#
# Environment:
#   MPIMON_PLACEMENT_HOSTS=N, MPIMON_PLACEMENT_SLOTS=N   the cluster (default 4 x 4)
#   MPIMON_HOSTS_NET=SPEC        the links (default rate=1gbit; "" a free network)
#   MPIMON_PLACEMENT_REPEATS=N   reruns per layout (default 5)
#   MPIMON_PLACEMENT_KERNELS="reduce 1000000 3;stencil2d 256 10"   kernels (kind amount iterations)
#   MPIMON_PLACEMENT_PIN=0       do not give each host a core (default: host h runs on core
#                                (h-1) mod cores, `--bind-to none`)
#   MPIMON_PLACEMENT_QUICK=1     small sizes and 2 repeats (a smoke run of the pipeline)
#   MPIMON_BENCH_KEEP=1          keep the work folder (job files, logs, rankfiles)
# Needs root (network namespaces: test/cluster/cluster.sh) and, for a network with costs,
# tc's tbf (and netem for a delay); exits non-zero only when it cannot measure.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cluster=$here/../test/cluster/cluster.sh
program=$builddir/bin/mpimon_bench_placement
mpimon=$builddir/bin/mpimon
hosts=${MPIMON_PLACEMENT_HOSTS:-4}
slots=${MPIMON_PLACEMENT_SLOTS:-4}
[[ $hosts =~ ^[1-9][0-9]?$ && $slots =~ ^[1-9][0-9]?$ ]] || die "MPIMON_PLACEMENT_HOSTS and _SLOTS: 1 to 99"
ranks=$((hosts * slots))
repeats=${MPIMON_PLACEMENT_REPEATS:-5}
network=${MPIMON_HOSTS_NET-rate=1gbit}
run_timeout=1200
tree=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4)
if [[ ${MPIMON_PLACEMENT_QUICK:-0} == 1 ]]; then
  repeats=2
  kernels=("reduce 100000 3" "stencil2d 64 5")
else
  kernels=("reduce 1000000 5" "reduce 10000000 3" "reduce 25000000 2" "stencil2d 256 10" "stencil3d 40 10")
fi
if [[ -n ${MPIMON_PLACEMENT_KERNELS:-} ]]; then
  IFS=';' read -r -a kernels <<<"$MPIMON_PLACEMENT_KERNELS"
  for kernel in "${kernels[@]}"; do
    [[ $kernel =~ ^(reduce|stencil2d|stencil3d)\ [1-9][0-9]*\ [1-9][0-9]*$ ]] ||
      die "MPIMON_PLACEMENT_KERNELS: expected 'reduce|stencil2d|stencil3d <amount> <iterations>' separated by ';', found '$kernel'"
  done
fi
layouts=(by-slot round-robin scotch rankfile reorder)

[[ -x $program ]] || die "$program is missing: build it with 'cmake --build $builddir --target mpimon_bench_placement'"
[[ -x $mpimon ]] || die "$mpimon is missing: build it with 'cmake --build $builddir --target mpimon'"
[[ -f $plugindir/mca_pml_mpimon.so ]] || die "our plugins are missing in $plugindir: build mpimon first"
if ! why=$("$cluster" check); then die "cannot emulate hosts here: $why"; fi
if ! why=$("$cluster" net-check "$network" 2>&1); then die "MPIMON_HOSTS_NET='$network': $why"; fi
clean_mpi_environment
mpimon_environment "$plugindir"
make_work_dir cluster-placement

# The emulated cluster, removed at exit whatever happens.
name="mpimon-cl-$("$cluster" owner $$)-bench"
cleanup() {
  "$cluster" down "$name" || true
  [[ ${MPIMON_BENCH_KEEP:-0} == 1 ]] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
MPIMON_HOSTS_NET=$network "$cluster" up "$name" "$hosts"
# Each host on its own core (of this machine's), as hosts have their own CPUs: its ranks
# compete for that core, not with the other host's.
cores=$(nproc)
if [[ ${MPIMON_PLACEMENT_PIN:-1} == 1 ]]; then
  for ((h = 1; h <= hosts; h++)); do "$cluster" cpus "$name" "$h" $(((h - 1) % cores)); done
fi
hostfile=$work/hostfile
for ((h = 1; h <= hosts; h++)); do echo "10.200.0.$((10 + h)) slots=$slots"; done >"$hostfile"
mapfile -t launch < <(eval "printf '%s\n' $("$cluster" mpirun-args "$name")")

# run <folder> <log> <job file> <mpirun arguments...> -- <program arguments...>
run() {
  local folder=$1 log=$2 job=$3
  shift 3
  local mpirun_args=() program_args=()
  while [[ $1 != -- ]]; do mpirun_args+=("$1"); shift; done
  shift
  program_args=("$@")
  (cd "$folder" && env "${ours_env[@]}" \
    timeout -k 10 "$run_timeout" "$cluster" run "$name" mpirun.openmpi --hostfile "$hostfile" -np "$ranks" \
    "${launch[@]}" --bind-to none --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 --mca pml_monitoring_job_file "$job" \
    "${mpirun_args[@]}" "$program" "${program_args[@]}") >"$log" 2>&1
}

# Bytes between ranks on different hosts in a job file's point-to-point records (E + I),
# the hosts read from the program's "host <rank> <name>" lines.
crossing_bytes() {
  awk 'FNR == NR { if ($1 == "host") host[$2] = $3; next }
       $0 == "records" { records = 1; next }
       records && ($3 == "external" || $3 == "internal") && host[$1] != host[$2] { sum += $5 }
       END { printf "%.0f\n", sum }' "$1" "$2"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

report=$work/report.md
{
  pinning="the hosts share $cores cores"
  [[ ${MPIMON_PLACEMENT_PIN:-1} == 1 ]] && pinning="host h runs on core (h-1) mod $cores"
  echo "Placement over $hosts emulated hosts x $slots slots, $ranks ranks (TCP between hosts over links shaped '${network:-free}', shared memory within; $pinning); $repeats interleaved runs per layout, medians."
  echo
  echo "Load before: $(uptime | sed 's/.*load average: //') (1, 5, 15 min; this machine has $cores cores)"
  echo
} >"$report"

for kernel in "${kernels[@]}"; do
  read -r kind amount iterations <<<"$kernel"
  dir=$work/${kind}_$amount
  mkdir -p "$dir"
  extra=()
  [[ $kind == reduce ]] && extra=("${tree[@]}")
  note "$kernel: monitored run by slot, then mpimon place"
  run "$dir" "$dir/monitored.log" monitored.txt --map-by slot "${extra[@]}" -- "$kind" "$amount" 1 ||
    die "$kernel: the monitored run failed: $(tail -5 "$dir/monitored.log")"
  # The reduce is placed by its decomposed traffic (internal: the binary tree, the paper's
  # point), the stencil by the application's messages (external).
  category=external
  [[ $kind == reduce ]] && category=internal
  have_rankfile=0
  have_scotch=0
  rm -f "$dir/rf" "$dir/rf.scotch"
  "$mpimon" place "$dir/monitored.txt" --hostfile "$hostfile" --category "$category" --rankfile "$dir/rf" \
    --scotch-rankfile "$dir/rf.scotch" >"$dir/place.txt" 2>&1 ||
    note "$kernel: mpimon place --hostfile: $(tail -1 "$dir/place.txt")"
  [[ -s $dir/rf ]] && have_rankfile=1
  [[ -s $dir/rf.scotch ]] && have_scotch=1
  # Pinned hosts: the rankfiles keep their host for each rank, and bind it to its host's
  # core (their slot numbers name this machine's cores, which would let the rankfile's
  # ranks escape their host's core and run faster for that reason alone).
  if [[ ${MPIMON_PLACEMENT_PIN:-1} == 1 ]]; then
    for f in "$dir/rf" "$dir/rf.scotch"; do
      [[ -s $f ]] || continue
      awk -v cores="$cores" '{ if (match($0, /=10\.200\.0\.[0-9]+ /)) { h = substr($0, RSTART + 10, RLENGTH - 11) - 10
                                 sub(/slot=[0-9-]+/, "slot=" (h - 1) % cores) } print }' "$f" >"$f.pinned"
      mv "$f.pinned" "$f"
    done
  fi

  declare -A times=() crossing=() per_iteration=() failures=()
  for ((rep = 1; rep <= repeats; rep++)); do
    for layout in "${layouts[@]}"; do
      args=(--map-by slot)
      reorder=()
      case $layout in
        round-robin) args=(--map-by node) ;;
        scotch) [[ $have_scotch == 1 ]] || continue; args=(--rankfile "$dir/rf.scotch") ;;
        rankfile) [[ $have_rankfile == 1 ]] || continue; args=(--rankfile "$dir/rf") ;;
        reorder) reorder=(reorder) ;;
      esac
      note "$kernel: run $rep of $repeats, $layout"
      log=$dir/$layout.$rep.log
      if run "$dir" "$log" "$layout.$rep.txt" "${args[@]}" "${extra[@]}" -- "$kind" "$amount" "$iterations" "${reorder[@]}" &&
        seconds=$(awk '$1 == "seconds_per_iteration" {print $2}' "$log") && [[ -n $seconds ]]; then
        times[$layout]+="$seconds "
        crossing[$layout]+="$(crossing_bytes "$log" "$dir/$layout.$rep.txt") "
        per_iteration[$layout]+="$(awk '$1 == "crossing_per_iteration" {print $2}' "$log") "
      else
        failures[$layout]=$((${failures[$layout]:-0} + 1))
        note "$kernel: $layout run $rep failed: $(tail -3 "$log" | tr '\n' ' ')"
      fi
    done
  done

  {
    case $kind in
      reduce) echo "### MPI_Reduce, binary tree, $amount ints ($(awk -v a="$amount" 'BEGIN { printf "%g", a * 4 / 1e6 }') MB), $iterations timed iterations" ;;
      *) echo "### ${kind#stencil} stencil, $amount points per side per rank, 8 variables, $iterations timed iterations" ;;
    esac
    echo
    echo "\`mpimon place --hostfile --category $category\` on the monitored run:"
    echo
    if [[ $have_rankfile == 1 ]]; then grep '^|' "$dir/place.txt" | head -6; else echo "(failed: $(tail -1 "$dir/place.txt"))"; fi
    if [[ $have_rankfile == 1 && $have_scotch == 0 ]]; then echo; echo "(no Scotch rankfile: $(tail -1 "$dir/place.txt"))"; fi
    echo
    echo "| layout | median time per iteration vs by-slot's | each run vs by-slot's median (min-max) | bytes crossing hosts per iteration | bytes crossing hosts, whole run (job file) | runs |"
    echo "|---|---:|---:|---:|---:|---:|"
    base=$(printf '%s\n' ${times[by-slot]:-} | median)
    for layout in "${layouts[@]}"; do
      if [[ -z ${times[$layout]:-} ]]; then
        echo "| $layout | - | - | - | - | 0 (${failures[$layout]:-0} failed) |"
        continue
      fi
      t=$(printf '%s\n' ${times[$layout]} | median)
      c=$(printf '%s\n' ${crossing[$layout]} | median)
      i=$(printf '%s\n' ${per_iteration[$layout]:-} | median)
      ratio=$(awk -v t="$t" -v b="$base" 'BEGIN { if (b == "-" || b == 0) print "-"; else printf "%.2fx\n", t / b }')
      # The noise: every run of this layout against by-slot's median, lowest to highest.
      spread=$(printf '%s\n' ${times[$layout]} | sort -g | awk -v b="$base" 'NR == 1 { lo = $1 } { hi = $1 }
        END { if (b == "-" || b == 0) print "-"; else printf "%.2fx-%.2fx\n", lo / b, hi / b }')
      n=$(printf '%s\n' ${times[$layout]} | wc -l)
      echo "| $layout | $ratio | $spread | $i | $c | $n${failures[$layout]:+ (${failures[$layout]} failed)} |"
    done
    echo
    echo "(by-slot's median time per iteration, for scale: $(awk -v t="$base" 'BEGIN { if (t == "-") print "-"; else printf "%.1f ms\n", t * 1000 }'))"
    echo
  } >>"$report"
  unset times crossing per_iteration failures
done

echo "Load after: $(uptime | sed 's/.*load average: //')" >>"$report"
cat "$report"
