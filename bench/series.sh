#!/usr/bin/env bash
# The time series' cost per snapshot and per process, and what it means at 100 000 ranks.
#
#   bench/series.sh [BUILD_DIR]       (default: the build/ next to bench/; ~30 s)
#
# 1. mpimon_bench_series (no MPI): CPU time and bytes of one snapshot of a process talking
#    to 6 ... 100 000 peers in two categories, when every record changed since the previous
#    snapshot and when none did.
# 2. A real job: the test suite's 4-rank ring (10 messages per second per rank, a collective
#    every second) with 0.1 s snapshots for 4 s and pml_monitoring_verbose 1: each rank
#    reports its snapshots, bytes and CPU time per snapshot.
# 3. The model for 100 000 ranks, one hour, the default 10 s interval, from row 1's 6-peer
#    bytes and the real job's CPU time per snapshot (which includes asking the COLL and OSC
#    layers for their lines): bytes per process and per job, appends per second, files.
# Reports only; exits 0 once it has measured.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
clean_mpi_environment
mpimon_environment "$plugindir"
command -v mpirun.openmpi >/dev/null 2>&1 || die "mpirun.openmpi not found (Debian 12's openmpi-bin)"
[[ -f $plugindir/mca_pml_mpimon.so ]] || die "no plugin in $plugindir (build first)"
cmake --build "$builddir" --target mpimon_bench_series series_patterns >/dev/null ||
  die "building mpimon_bench_series and series_patterns failed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "### One snapshot of one process (CPU time of the series' thread; bytes appended)"
echo
"$builddir/bin/mpimon_bench_series" "$work" | tee "$work/table.md"
echo

echo "### A 4-rank job, 0.1 s snapshots for 4 s (pml_monitoring_verbose 1)"
echo
out=$(cd "$work" && env "${ours_env[@]}" \
  timeout 120 mpirun.openmpi -np 4 --mca mpi_yield_when_idle 1 --mca pml_monitoring_enable 2 \
  --mca pml_monitoring_snapshot_interval 0.1 --mca pml_monitoring_verbose 1 \
  "$builddir/bin/series_patterns" ring 4 2>&1) || die "the ring job failed: $out"
echo "| rank | snapshots | bytes | CPU us per snapshot (mean) | at most |"
echo "|---:|---:|---:|---:|---:|"
sed -n 's/^mpimon: rank \([0-9]*\): time series .*: \([0-9]*\) snapshots, \([0-9]*\) bytes, \([0-9.]*\) us of CPU time per snapshot on average, \([0-9.]*\) us at most.*/| \1 | \2 | \3 | \4 | \5 |/p' <<<"$out" | sort -t'|' -k2 -n | tee "$work/job.md"
job_cpu_us=$(awk -F'|' '{s += $5; n++} END {printf "%.1f", s / n}' "$work/job.md")
echo
echo "series files: $(ls "$work"/mpimon-job.txt.series | wc -l) (one per host), $(du -b "$work"/mpimon-job.txt.series/* | awk '{s+=$1} END{print s}') bytes; job file: $(stat -c %s "$work/mpimon-job.txt") bytes"
echo

echo "### Model: 100 000 ranks, one hour, snapshots every 10 s (the default)"
echo
row=$(awk -F'|' '$2+0 == 6 {print $4, $5, $7}' "$work/table.md")
read -r _ busy_bytes idle_bytes <<<"$row"
start_bytes=$(cat "$work"/mpimon-job.txt.series/* | grep -a '^@mpimon start' | awk '{s += $6 + length($0) + 1} END {printf "%.0f", s / NR}')
awk -v us="$job_cpu_us" -v b="$busy_bytes" -v idle="$idle_bytes" -v start="$start_bytes" 'BEGIN{
  n = 100000; snapshots = 3600 / 10; per_rank = snapshots * b
  printf "- per process: %d snapshots, %.0f KB if all 12 records change in every interval (%.0f KB if idle), %.1f ms of CPU in the hour at the real job'"'"'s %.0f us per snapshot (%.4f%% of a core)\n", snapshots, per_rank / 1e3, snapshots * idle / 1e3, snapshots * us / 1e3, us, snapshots * us / 1e6 / 3600 * 100
  printf "- job: %.1f GB in the hour, %.1f MB/s appended in all, %d appends per second in all\n", n * per_rank / 1e9, n * per_rank / 3600 / 1e6, n / 10
  printf "- files: 1 folder and one file per host (1 563 at 64 ranks per host, 782 at 128): created once at the start, each process opens its host file once; per-rank files would be 100 000 creates in one folder\n"
  printf "- at start: one MPI_Bcast of 16 bytes from rank 0 (O(log N)), and one %d-byte start frame per process (%.0f MB in all)\n", start, n * start / 1e6
  printf "- with 60 s snapshots instead: %.1f GB in the hour\n", n * 60 * b / 1e9
}'
