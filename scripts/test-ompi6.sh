#!/usr/bin/env bash
# Inside the Debian sid root (scripts/sid-root.sh): builds mpimon against Open MPI 6.0
# (6.0.0~rc2 today; a later rc or 6.0.0 when sid takes it) into build-ompi6/ (or
# $MPIMON_OMPI6_BUILD_DIR), only what the MPI tests run, and runs them with ctest's
# summary. Arguments go to ctest (default: the label mpi). Not yet the whole 5.0 set: the
# emulated-host jobs (label cluster) need the coll component, and the events suites our
# events registered through Open MPI's mca_base_event, neither ported yet; nor called by
# scripts/test.sh until it passes completely (docs/open-mpi-6.md, "CI"). By hand:
#   scripts/sid-root.sh run -- scripts/test-ompi6.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_OMPI6_BUILD_DIR:-$here/build-ompi6}"
[ "${MPIMON_IN_SID_ROOT:-}" = 1 ] || echo "test-ompi6.sh: not inside scripts/sid-root.sh; using this machine's Open MPI" >&2
echo "test-ompi6.sh: $(ompi_info --version 2>/dev/null | head -n 1)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
start=$SECONDS
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# What the tests below start (their add_dependencies pull the plugins, tools and programs).
cmake --build "$build" -j "$(nproc)" --target mpimon_mpi_tests
echo "test-ompi6.sh: build: $((SECONDS - start)) s"
start=$SECONDS
if [ $# -eq 0 ]; then set -- -L '^mpi$'; fi
status=0
ctest --test-dir "$build" --output-on-failure --timeout 300 "$@" || status=$?
echo "test-ompi6.sh: tests: $((SECONDS - start)) s"
exit $status
