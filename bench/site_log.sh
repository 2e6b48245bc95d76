#!/usr/bin/env bash
# Site log cost (docs/site-deployment.md, docs/performance.md "Site log"). Reports only.
#   bench/site_log.sh [BUILD_DIR] [RANKS]      (RANKS for the finalize timing, default 64)
# 1. Log size at 64, 1 000 and 100 000 ranks: generated jobs written with the writer library
#    (mpimon_bench_site_log sizes: format_job_records per rank, site annotations, assemble, gzip).
# 2. Writing time at MPI_Finalize for a real job of RANKS ranks (mpimon_example ring reduce
#    halo persistent, only mpimon_log_path set; pml_monitoring_verbose 1 makes rank 0 report
#    the gather + assemble + compress + create + write + fsync + link time), 5 runs.
# 3. Index time and size for 10 000 generated logs of 64 ranks (MPIMON_BENCH_SITE_LOGS to change).
# Instructions per send with the site log on: MPIMON_BENCH_CONFIGS="none mpimon site" bench/pml_overhead.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
ranks="${2:-64}"
logs="${MPIMON_BENCH_SITE_LOGS:-10000}"
for f in bin/mpimon bin/mpimon_bench_site_log lib/mpimon/mca_pml_mpimon.so libexec/mpimon/mpimon_example; do
  [ -e "$build/$f" ] || { echo "site_log.sh: $build/$f missing (build targets mpimon mpimon_bench_site_log mca_pml_mpimon mpimon_example)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
eval "$(MPIMON_PLUGIN_DIR="$build/lib/mpimon" "$build/bin/mpimon" env)" # as mpimon run loads our components
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "## 1. Log size (generated: 3-D halo, 6 neighbours x 200 x 8 KiB; a reduction tree; 32 ranks per host)"
echo
"$build/bin/mpimon_bench_site_log" sizes 64 1000 100000
echo

echo "## 2. Writing the log at MPI_Finalize, $ranks ranks (this machine: $(nproc) cores, oversubscribed)"
echo
mkdir -m 0755 "$work/logs"
"$build/bin/mpimon" admin mk-log-dirs "$work/logs" >/dev/null
echo "| run | log (bytes) | uncompressed | write time at finalize (ms, rank 0) |"
echo "|---|---:|---:|---:|"
for i in 1 2 3 4 5; do
  out="$(cd "$work" && timeout 600 mpirun.openmpi -np "$ranks" --mca mpi_yield_when_idle 1 --mca mpimon_log_path "$work/logs" \
    --mca pml_monitoring_verbose 1 "$build/libexec/mpimon/mpimon_example" ring reduce halo persistent 2>&1)" ||
    { echo "site_log.sh: the job failed: $out" >&2; exit 1; }
  line="$(grep 'mpimon: site log ' <<<"$out")" || { echo "site_log.sh: no site log reported: $out" >&2; exit 1; }
  bytes="$(sed -n 's/.*: \([0-9]*\) bytes (\([0-9]*\) uncompressed).*/\1/p' <<<"$line")"
  plain="$(sed -n 's/.*: \([0-9]*\) bytes (\([0-9]*\) uncompressed).*/\2/p' <<<"$line")"
  ms="$(sed -n 's/.*written in \([0-9.]*\) ms.*/\1/p' <<<"$line")"
  echo "| $i | $bytes | $plain | $ms |"
done
echo

echo "## 3. Index: $logs generated logs of 64 ranks"
echo
mkdir "$work/index"
"$build/bin/mpimon_bench_site_log" index "$work/index" "$logs"
