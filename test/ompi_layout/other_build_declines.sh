#!/usr/bin/env bash
# other_build_declines.sh <other Open MPI prefix> <mpimon> <example>
# Our plugins, built for this build's Open MPI, loaded by another installation's mpirun and
# libmpi (e.g. a --enable-debug build of the same release): the job must run on
# unmonitored — exit 0 (every rank ran the ring to MPI_Finalize), no dump — and mpimon must say so in
# exactly one line naming both builds (runtime/build_match_ompi.h).
set -euo pipefail
other="$1" mpimon="$2" example="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
libs="$other/lib"
[ -d "$other/lib64" ] && libs="$other/lib64:$libs"
eval "$("$mpimon" env)"   # our component path and selections, as `mpimon run` sets them
status=0
(cd "$work" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_LIBRARY_PATH="$libs" \
  timeout 120 "$other/bin/mpirun" --oversubscribe -np 4 --mca mpi_yield_when_idle 1 \
  -x LD_LIBRARY_PATH --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
  "$example" ring) >"$work/out" 2>"$work/err" || status=$?
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1; }
((status == 0)) || fail "exit status $status"
lines="$(grep -c '^mpimon: ' "$work/err" || true)"
((lines == 1)) || fail "$lines lines from mpimon on stderr, expected exactly 1"
grep -q "^mpimon: built for Open MPI .* but loaded by Open MPI .*: monitoring off, the job runs unmonitored" "$work/err" ||
  fail "not the refusal line"
files="$(cd "$work" && ls -A | grep -v -x -e out -e err || true)"
[ -z "$files" ] || fail "files left by the job: $files"
grep '^mpimon: ' "$work/err"
echo "exit 0, no dump"
