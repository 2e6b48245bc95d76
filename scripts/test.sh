#!/usr/bin/env bash
# Set up, build, run every test (unit and real MPI jobs) with ctest's summary; then, for a
# full run (no arguments), the sanitizer build (docs/development.md): everything
# instrumented with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ (or
# $MPIMON_ASAN_BUILD_DIR), run on the MPI integration tests, the event logger's jobs and
# the events conformance suite; then Open MPI 5.0: in a Debian 13 root
# (scripts/debian13-root.sh) the project is built against 5.0.7 and its MPI, events and
# emulated-host tests run (scripts/test-ompi5.sh; docs/open-mpi-5.md); then Open MPI 4.1 and
# 5.0 built from source as clusters do (scripts/ompi-builds/test.sh). Arguments go to the
# first ctest only (e.g. -R pattern); MPIMON_SANITIZER_TESTS=0 skips the sanitizer pass,
# =1 runs it with arguments too; MPIMON_OMPI5_TESTS and MPIMON_OMPI_BUILDS_TESTS the same
# for the Open MPI 5.0 and source-build passes.
# MPIMON_OMPI_PREFIX + MPIMON_OMPI_SOURCE: both builds are for that Open MPI installation
# instead of Debian's (scripts/setup.sh; docs/install.md, "Your cluster's Open MPI").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
start=$SECONDS
ctest --test-dir "$build" --output-on-failure --timeout 300 "$@"
echo "test.sh: test suite: $((SECONDS - start)) s"

if [[ ${MPIMON_SANITIZER_TESTS:-$(( $# == 0 ))} == 1 ]]; then
  asan="${MPIMON_ASAN_BUILD_DIR:-$here/build-asan}"
  start=$SECONDS
  cmake_ompi=()
  [ -z "${MPIMON_OMPI_PREFIX:-}" ] || cmake_ompi=(-DMPIMON_OMPI_PREFIX="$MPIMON_OMPI_PREFIX" -DMPIMON_OMPI_SOURCE="${MPIMON_OMPI_SOURCE:-}")
  cmake -S "$here" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPIMON_SANITIZE=address "${cmake_ompi[@]}" >/dev/null
  # What those tests run: the plugins, libraries, tools, logger and programs they start.
  cmake --build "$asan" -j "$(nproc)" --target mpimon_mpi_tests mpimon_event_logger_mpi_tests \
    mpimon_events_conformance mpimon_events_before_mpi_init
  echo "test.sh: sanitizer build: $((SECONDS - start)) s"
  start=$SECONDS
  ctest --test-dir "$asan" --output-on-failure --timeout 600 -L '^(mpi|events)$'
  echo "test.sh: sanitizer tests: $((SECONDS - start)) s"
fi

# shellcheck disable=SC1091
release="$(. /etc/os-release && echo "${ID:-}:${VERSION_ID:-}")"
if [[ $release == debian:13 ]]; then
  echo "test.sh: this machine runs Debian 13's Open MPI 5.0 itself: the suite above was the 5.0 suite (no Debian 13 root)"
elif [[ ${MPIMON_OMPI5_TESTS:-$(( $# == 0 ))} == 1 ]]; then
  start=$SECONDS
  status=0
  "$here/scripts/debian13-root.sh" run -- scripts/test-ompi5.sh || status=$?
  echo "test.sh: Open MPI 5.0 (Debian 13 root, made or updated, built, tested): $((SECONDS - start)) s"
  if ((status == 77)); then
    echo "test.sh: Open MPI 5.0 tests skipped (the reason is above)"
  elif ((status != 0)); then
    exit "$status"
  fi
fi

# Then Open MPI as clusters build it: 4.1.4 and 5.0.7 built from source as Spack and
# EasyBuild do (cached per machine), each in a Debian root without Debian's Open MPI,
# mpimon built against them and tested, the example's dumps compared with Debian's builds,
# plugins loaded by the wrong Open MPI (scripts/ompi-builds/test.sh;
# docs/open-mpi-builds.md). MPIMON_OMPI_BUILDS_TESTS as MPIMON_OMPI5_TESTS.
if [[ ${MPIMON_OMPI_BUILDS_TESTS:-$(( $# == 0 ))} == 1 ]]; then
  start=$SECONDS
  status=0
  "$here/scripts/ompi-builds/test.sh" || status=$?
  echo "test.sh: Open MPI built from source (builds made or cached, mpimon built and tested): $((SECONDS - start)) s"
  if ((status == 77)); then
    echo "test.sh: source-built Open MPI tests skipped (the reason is above)"
  elif ((status != 0)); then
    exit "$status"
  fi
fi
echo "test.sh: every pass passed in $SECONDS s"
