#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time over the repository's corpus.
#   run_fuzzer.sh FUZZER SECONDS CORPUS_DIR WORK_DIR [libFuzzer options...]
# The corpus's folders are read, never written: new inputs go to WORK_DIR/new, crashes to
# WORK_DIR/crash-* (printed; copy them into CORPUS_DIR/regressions once fixed).
set -euo pipefail
fuzzer=$1 seconds=$2 corpus=$3 work=$4
shift 4
[[ -x $fuzzer ]] || { echo "run_fuzzer.sh: $fuzzer is missing (build the project with clang installed)"; exit 1; }
mkdir -p "$work/new"
dirs=()
for d in "$corpus"/*/; do dirs+=("$d"); done
status=0
"$fuzzer" "$work/new" "${dirs[@]}" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
  -malloc_limit_mb=256 -artifact_prefix="$work/" -print_final_stats=1 "$@" 2>"$work/log.txt" || status=$?
grep -E "^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|INFO: seed corpus)" "$work/log.txt" || true
if ((status != 0)); then
  tail -60 "$work/log.txt"
  echo "run_fuzzer.sh: the fuzzer found a problem (exit $status); the input is $(ls -t "$work"/crash-* "$work"/leak-* "$work"/oom-* "$work"/timeout-* 2>/dev/null | head -1)"
  exit 1
fi
echo "run_fuzzer.sh: no crash in ${seconds} s"
