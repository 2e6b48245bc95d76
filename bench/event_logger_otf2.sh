#!/usr/bin/env bash
# The event logger's two outputs side by side: its text log (MEL_FORMAT=text) and its
# OTF2 archive (MEL_FORMAT=otf2): bytes per event on disk, and instructions per event
# while the job runs (the logger's event callback: decode, then format and buffer the
# line, or keep a 40-byte record) and at MPI_Finalize (text: the last flush and the
# statistics; OTF2: writing the archive), counted with valgrind's callgrind.
#
#   bench/event_logger_otf2.sh [BUILD_DIR]        (default: the build/ next to bench/)
#
# The program mpimon_bench_events (bench/events_bench.cpp, mode plain) runs on 2 ranks,
# K MPI_Isend + MPI_Wait of 8 bytes with an acknowledgement each, under our components
# (pml_monitoring_enable 2) and the logger (LD_PRELOAD); world rank 0 runs under callgrind
# toggled on mpimon::mel::on_event (the run) or on mpimon::mel::finish and the
# attribute callback that publishes the log and writes the archive (MPI_Finalize).
# Events: rank 0's "statistics: events ... logged=" lines.
#
# It is a benchmark: it prints a table and exits 0 whatever the figures (non-zero only
# when it cannot measure). MPIMON_BENCH_KEEP=1 keeps the files.
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

K=${MPIMON_BENCH_K:-2000}
for tool in valgrind mpirun.openmpi timeout; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (scripts/setup.sh installs everything)"
done
clean_mpi_environment
exe=$builddir/bin/mpimon_bench_events
logger=$plugindir/libmpimon_event_logger.so
[[ -x $exe && -f $logger ]] || die "build mpimon_bench_events and mpimon_event_logger first (cmake --build $builddir --target mpimon_bench_events mpimon_event_logger)"
[[ $(nm -C "$logger" | grep -c write_otf2_archive) -gt 0 ]] || die "$logger has no OTF2 output (libotf2-trace-dev missing at build time)"
make_work_dir event-logger-otf2
snapshot_plugins "$work"
mpimon_environment "$snapdir"
cp "$logger" "$work/logger.so"

during=$work/during.sh
write_rank0_callgrind_wrapper "$during" 'mpimon::mel::on_event*'
finalize=$work/finalize.sh
write_rank0_callgrind_wrapper "$finalize" 'mpimon::mel::finish*' '*publish_log*'

# run FORMAT WRAPPER -> folder $work/<format>-<wrapper>
run() {
  local format=$1 wrapper=$2 dir=$work/$1-$(basename "$2" .sh)
  mkdir -p "$dir"
  (cd "$dir" && timeout 300 env "${ours_env[@]}" mpirun.openmpi -np 2 "${btl_args[@]}" \
    --mca pml_monitoring_enable 2 -x LD_PRELOAD="$work/logger.so" -x MEL_OUTPUT=ev -x MEL_FORMAT="$format" \
    "$wrapper" "$dir/callgrind.out" "$exe" plain "$K" >"$dir/output.txt" 2>&1) ||
    die "the $format run failed: $(tail -n 5 "$dir/output.txt")"
  echo "$dir"
}

declare -A events instr_during instr_final bytes
for format in text otf2; do
  d=$(run "$format" "$during")
  f=$(run "$format" "$finalize")
  events[$format]=$(awk -F'logged=' '/^statistics: events/ {split($2, a, " "); n += a[1]} END {print n + 0}' "$d/ev.0.log")
  instr_during[$format]=$(callgrind_total "$d/callgrind.out")
  instr_final[$format]=$(callgrind_total "$f/callgrind.out")
  if [[ $format == text ]]; then
    bytes[$format]=$(stat -c %s "$d/ev.0.log")
  else  # rank 0's location (its events and its definitions) and rank 0's share of the global files
    loc=$(find "$d/ev.otf2/traces" -name '0.*' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    global=$(stat -c %s "$d/ev.otf2/traces.otf2" "$d/ev.otf2/traces.def" | awk '{s += $1} END {print s + 0}')
    bytes[$format]=$((loc + global / 2))
    archive_total=$(du -sb "$d/ev.otf2" | cut -f1)
    text_log_with_otf2=$(stat -c %s "$d/ev.0.log")
  fi
done

per() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "# Event logger outputs, $K iterations of MPI_Isend + MPI_Wait (8 B) on 2 ranks, rank 0"
echo "| output | events | bytes on disk | bytes/event | instructions/event during the run | instructions/event at MPI_Finalize |"
echo "|---|---:|---:|---:|---:|---:|"
for format in text otf2; do
  n=${events[$format]}
  echo "| $format | $n | ${bytes[$format]} | $(per "${bytes[$format]}" "$n") | $(per "${instr_during[$format]}" "$n") | $(per "${instr_final[$format]}" "$n") |"
done
echo "OTF2 archive of both ranks: $archive_total bytes; the text log beside it (statistics only): $text_log_with_otf2 bytes"
