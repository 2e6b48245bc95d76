#!/usr/bin/env bash
# A longer fuzzing run of the tools' readers than ctest's (Fuzz.DumpsBoundedRun, 25 s, and
# Fuzz.SeriesBoundedRun, 20 s): the libFuzzer targets mpimon_fuzz_dumps (every command on
# any bytes) and mpimon_fuzz_series (any bytes as a time series' file), under
# AddressSanitizer and UndefinedBehaviorSanitizer, memory limited, over the repository's
# corpus (test/fuzz/corpus/dumps, test/fuzz/corpus/series). Prints executions, coverage
# and peak memory per target; exits 1 when it finds a crash, a leak, a time-out or an input
# that needs too much memory, and names the input.
#
#   bench/fuzz.sh [BUILD_DIR]          MPIMON_FUZZ_SECONDS (default 600) per run
#   MPIMON_FUZZ_MERGE=1 bench/fuzz.sh  also merge the new inputs that add coverage into
#                                      test/fuzz/corpus/<target>/found/ (to commit)
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
seconds=${MPIMON_FUZZ_SECONDS:-600}
echo "| run | seconds | executions | coverage | corpus | peak RSS (MiB) |"
echo "|---|---:|---:|---|---:|---:|"
status=0
# The dump readers (corpus/dumps), then the time series' reader (corpus/series).
for target in dumps series; do
  fuzzer=$builddir/fuzz/mpimon_fuzz_$target
  [[ -x $fuzzer ]] || die "$fuzzer is missing: install clang and libclang-rt-14-dev (scripts/setup.sh) and build"
  corpus=$here/../test/fuzz/corpus/$target
  work=$(mktemp -d)
  note "fuzzing mpimon_fuzz_$target for ${seconds} s (inputs up to 8 KiB, 256 MiB per allocation, 1 GiB in all)"
  run_status=0
  "$here/../test/fuzz/run_fuzzer.sh" "$fuzzer" "$seconds" "$corpus" "$work" >"$work/summary.txt" || run_status=$?
  if ((run_status != 0)); then
    cat "$work/summary.txt" >&2
    status=$run_status
  fi
  cov=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$work/log.txt" | tail -1 || true)
  printf '| mpimon_fuzz_%s | %s | %s | %s | %s | %s |\n' "$target" "$seconds" \
    "$(grep -oE 'stat::number_of_executed_units:[[:space:]]+[0-9]+' "$work/log.txt" | awk '{print $2}')" \
    "$(echo "$cov" | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo '?')" \
    "$(echo "$cov" | grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' || echo '?')" \
    "$(grep -oE 'stat::peak_rss_mb:[[:space:]]+[0-9]+' "$work/log.txt" | awk '{print $2}')"
  if [[ ${MPIMON_FUZZ_MERGE:-0} == 1 ]]; then
    mkdir -p "$corpus/found"
    "$fuzzer" -merge=1 "$corpus/found" "$work/new" >/dev/null 2>&1 || true
    note "new inputs that add coverage merged into $corpus/found ($(ls "$corpus/found" | wc -l) files)"
  fi
  ((run_status != 0)) && note "kept $work (the failing input is named above)" || rm -rf "$work"
done
exit $status
