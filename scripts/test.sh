#!/usr/bin/env bash
# Set up, build, run every test (unit and real MPI jobs) with ctest's summary; then, for a
# full run (no arguments), the sanitizer build (docs/development.md): everything
# instrumented with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ (or
# $MPIMON_ASAN_BUILD_DIR), run on the MPI integration tests, the event logger's jobs and
# the events conformance suite. Arguments go to the first ctest only (e.g. -R pattern);
# MPIMON_SANITIZER_TESTS=0 skips the sanitizer pass, =1 runs it with arguments too.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
start=$SECONDS
ctest --test-dir "$build" --output-on-failure --timeout 300 "$@"
echo "test.sh: test suite: $((SECONDS - start)) s"

if [[ ${MPIMON_SANITIZER_TESTS:-$(( $# == 0 ))} == 1 ]]; then
  asan="${MPIMON_ASAN_BUILD_DIR:-$here/build-asan}"
  start=$SECONDS
  cmake -S "$here" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPIMON_SANITIZE=address >/dev/null
  # What those tests run: the plugins, libraries, tools, logger and programs they start.
  cmake --build "$asan" -j "$(nproc)" --target mpimon_mpi_tests mpimon_event_logger_mpi_tests \
    mpimon_events_conformance mpimon_events_before_mpi_init
  echo "test.sh: sanitizer build: $((SECONDS - start)) s"
  start=$SECONDS
  ctest --test-dir "$asan" --output-on-failure --timeout 600 -L '^(mpi|events)$'
  echo "test.sh: sanitizer tests: $((SECONDS - start)) s"
fi
