#!/usr/bin/env bash
# Job file cost: bytes and writing time for an 8-rank run of the bundled example, and the
# size/time model for 100 000 ranks with 6 peers each. Reports only.
#   bench/job_file.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
[ -f "$build/lib/mpimon/mca_pml_mpimon.so" ] || { echo "job_file.sh: no plugin in $build/lib/mpimon (build first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
eval "$(MPIMON_PLUGIN_DIR="$build/lib/mpimon" "$build/bin/mpimon" env)"  # as mpimon run loads our components
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

runs=9
echo "| run | ranks | records | bytes | write time (ms, rank 0: exscan + create + pwrite + sync + read-back + link) |"
echo "|---|---:|---:|---:|---:|"
times=()
for i in $(seq 1 $runs); do
  out="$(cd "$work" && mpirun.openmpi -np 8 --mca pml_monitoring_enable 2 --mca pml_monitoring_verbose 1 \
         --mca pml_monitoring_job_file "job$i.txt" "$build/libexec/mpimon/mpimon_example" ring reduce halo 2>&1)"
  ms="$(sed -n 's/.*written in \([0-9.]*\) ms.*/\1/p' <<<"$out")"
  [ -n "$ms" ] || { echo "job_file.sh: no timing reported: $out" >&2; exit 1; }
  bytes="$(stat -c %s "$work/job$i.txt")"
  records="$(awk 'f && /^[0-9]/{n++} /^records$/{f=1} END{print n+0}' "$work/job$i.txt")"
  header="$(awk '/^records$/{print NR; exit}' "$work/job$i.txt")"
  echo "| $i | 8 | $records | $bytes | $ms |"
  times+=("$ms")
done
record_bytes="$(awk -v b="$bytes" -v r="$records" -v h="$(head -n "$header" "$work/job$runs.txt" | wc -c)" 'BEGIN{printf "%.1f", (b-h)/r}')"
echo
echo "write time over $runs runs: median $(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.1f", a[int((NR+1)/2)]}') ms, minimum $(printf '%s\n' "${times[@]}" | sort -g | head -1) ms (wall clock on a shared 2-core machine: noisy)"
echo "bytes per record (this run): $record_bytes"
# What the sync costs on its own here: the same bytes written by dd with and without
# conv=fsync into the same folder (difference of medians over 21 runs each).
dd_ms() {
  local t0 t1 samples=() i
  for i in $(seq 1 21); do
    t0="$(date +%s%N)"; dd if=/dev/zero of="$work/probe$i" bs="$bytes" count=1 "$@" status=none; t1="$(date +%s%N)"
    samples+=("$(( (t1 - t0) / 1000 ))"); rm -f "$work/probe$i"
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
plain_us="$(dd_ms)"; synced_us="$(dd_ms conv=fsync)"
echo "fsync of a $bytes-byte file in this folder ($(df -T "$work" | awk 'NR==2{print $2}')): about $(awk -v a="$synced_us" -v b="$plain_us" 'BEGIN{printf "%.2f", (a-b)/1000}') ms (median with conv=fsync minus median without); the rest is the ranks' collectives and pwrites"
echo
echo "Model, 100 000 ranks, 6 peers each, external + internal records (12 per rank):"
awk -v rb="$record_bytes" 'BEGIN{
  n = 100000; per_rank = 12 * rb; total = n * per_rank
  printf "- per rank: %.0f bytes written, O(its non-zeros); nothing gathered on any rank\n", per_rank
  printf "- file: %.1f MB (%.0f records)\n", total / 1e6, n * 12
  printf "- exscan of one 8-byte integer: O(log2 N) = %d steps\n", log(n)/log(2) + 1
  printf "- write: one pwrite per rank at its offset, one read-back of its own block, one sync on rank 0; at 1 GB/s of file-system bandwidth %.0f ms of data\n", total / 1e9 * 1000
}'
