#!/usr/bin/env bash
# What a SIGTERM keeps, and how long each rank's final snapshot takes: the test suite's
# ring (10 messages of 1 KiB per second per rank, 1 s snapshots) at 4 and 64 ranks on this
# machine (64: oversubscribed, mpi_yield_when_idle 1), idle and loaded (two busy loops,
# one per core, while it runs), ended two ways with Open MPI's defaults:
#   mpirun  `kill -TERM <mpirun>`: mpirun sends SIGCONT, then SIGTERM a second later,
#           then SIGKILL (a second later, or at once when a rank dies first; docs/time-series.md, "Signals")
#   ranks   a batch system's way: SIGTERM to every rank, SIGKILL 1 s later
#
#   bench/series_sigterm.sh [BUILD_DIR]     (MPIMON_BENCH_RUNS=3 runs per row; ~10 min)
#
# Per rank: from the SIGTERM sent to it (the kill(2) of mpirun, or of procps' kill, seen
# by strace) to its final frame's time stamp (taken when the snapshot is read; the
# frame is encoded and written tens of microseconds later). Kept: every rank's messages
# in the series against the sends it logged before its SIGTERM. Reports only; exits 0
# once it has measured.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
clean_mpi_environment
command -v mpirun.openmpi >/dev/null 2>&1 || die "mpirun.openmpi not found (Debian 12's openmpi-bin)"
command -v strace >/dev/null 2>&1 || die "strace not found (it shows when mpirun signals each rank)"
[[ -f $plugindir/mca_pml_mpimon.so ]] || die "no plugin in $plugindir (build first)"
cmake --build "$builddir" --target series_patterns mpimon >/dev/null || die "building series_patterns and mpimon failed"
runs=${MPIMON_BENCH_RUNS:-3}
work=$(mktemp -d)
load_pids=()
stop_load() {
  [[ ${#load_pids[@]} -gt 0 ]] && kill "${load_pids[@]}" 2>/dev/null
  load_pids=()
}
trap 'stop_load; rm -rf "$work"' EXIT

# One run in folder $1: $2 ranks, ended by $3 (mpirun | ranks). Appends "<latency ms>" per
# rank with a final frame to $work/latencies, and prints "<ranks> <finals> <ranks keeping
# every message sent before their SIGTERM>".
run_once() {
  local dir=$1 n=$2 how=$3 m s i
  mkdir -p "$dir"
  (cd "$dir" && OMPI_MCA_mca_base_component_path="$plugindir:SYS_DEFAULT:USER_DEFAULT" exec mpirun.openmpi -np "$n" \
    --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 --mca pml_monitoring_snapshot_interval 1 \
    "$builddir/bin/series_patterns" ring 120 >"$dir/out.txt" 2>&1) &
  m=$!
  for i in $(seq 1200); do
    [[ -f $dir/sent.0 && $(wc -l <"$dir/sent.0") -ge 25 ]] && break
    sleep 0.1
  done
  strace -f -qq -ttt -e trace=kill -e signal=none -p "$m" -o "$dir/mpirun.strace" &
  s=$!
  sleep 1
  if [[ $how == mpirun ]]; then
    kill -TERM "$m"
  else
    local ranks
    ranks=$(cat "$dir"/pid.*)
    # procps' kill under strace: when each rank was signalled, to the microsecond
    # shellcheck disable=SC2086
    strace -qq -ttt -e trace=kill -e signal=none -o "$dir/kill.strace" /usr/bin/kill -TERM $ranks
    sleep 1
    # shellcheck disable=SC2086
    kill -KILL $ranks 2>/dev/null || true
  fi
  wait "$m" || true
  wait "$s" || true
  # When each rank was signalled (µs): mpirun's kill(-pgid, SIGTERM), the pgid being the
  # rank's pid; or ours, kill(pid, SIGTERM).
  local pid trace=$dir/mpirun.strace target
  [[ $how == mpirun ]] || trace=$dir/kill.strace
  for i in $(seq 0 $((n - 1))); do
    pid=$(cat "$dir/pid.$i")
    target=$pid
    [[ $how == mpirun ]] && target=-$pid
    echo "$i $(sed 's/^[0-9]\+ \+\([0-9]\+\.[0-9]\+\) /\1 /; s/kill(/kill( /' "$trace" |
      awk -v p="$target," '$2 == "kill(" && $3 == p && $4 ~ /^SIGTERM/ {printf "%.0f", $1 * 1e6; exit}')"
  done >"$dir/signalled"
  "$builddir/bin/mpimon" matrix "$dir/mpimon-job.txt" --format mtx --category external >"$dir/matrix.txt" 2>/dev/null
  cat "$dir"/mpimon-job.txt.series/* | grep -a '^@mpimon final' | awk '{print $3, $5}' >"$dir/finals"
  awk -v n="$n" -v dir="$dir" -v lat="$work/latencies" '
    FILENAME ~ /signalled$/ {sig[$1] = $2; next}
    FILENAME ~ /finals$/ {if (!($1 in fin)) fin[$1] = $2; next}
    FILENAME ~ /matrix.txt$/ {if ($1 ~ /^[0-9]+$/ && NF == 3 && $2 == ($1 % n) + 1) kept[$1 - 1] = $3; next}
    END {
      finals = 0; whole = 0
      for (r = 0; r < n; r++) {
        if (r in fin && sig[r] != "") { finals++; printf "%.3f\n", (fin[r] - sig[r]) / 1000 >> lat }
        before = 0
        while ((getline line < (dir "/sent." r)) > 0) { split(line, f, " "); if (f[2] < sig[r]) before++ }
        close(dir "/sent." r)
        if (sig[r] != "" && kept[r] >= before) whole++
      }
      print n, finals, whole
    }' "$dir/signalled" "$dir/finals" "$dir/matrix.txt"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "| ranks | machine | SIGTERM to | runs | ranks with a final frame | ranks keeping every message sent before their SIGTERM | SIGTERM → final snapshot per rank, ms: median / p90 / max |"
echo "|---:|---|---|---:|---:|---:|---:|"
for n in 4 64; do
  for load in idle loaded; do
    if [[ $load == loaded ]]; then
      for _ in 1 2; do
        (while :; do :; done) &
        load_pids+=($!)
      done
    fi
    for how in mpirun ranks; do
      : >"$work/latencies"
      total=0 finals=0 whole=0
      for r in $(seq "$runs"); do
        read -r a b c < <(run_once "$work/$n-$load-$how-$r" "$n" "$how")
        total=$((total + a)) finals=$((finals + b)) whole=$((whole + c))
      done
      stats=$(sort -n "$work/latencies" | awk '{v[NR] = $1} END {if (NR == 0) {print "-"; exit}
        p90 = int(NR * 0.9); if (p90 < 1) p90 = 1
        printf "%.2f / %.2f / %.2f", v[int((NR + 1) / 2)], v[p90], v[NR]}')
      echo "| $n | $load | $how | $runs | $finals of $total | $whole of $total | $stats |"
    done
    stop_load
  done
done
echo
echo "Machine: $(nproc) cores, load average $load_before before the runs and $(cut -d' ' -f1-3 /proc/loadavg) after; 'loaded' adds two busy loops."
