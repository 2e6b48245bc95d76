#!/usr/bin/env bash
# Inside a root of scripts/ompi-builds/root.sh: mpimon built against one source-built
# Open MPI (MPIMON_OMPI_PREFIX + MPIMON_OMPI_SOURCE, docs/install.md "Your cluster's Open
# MPI"), only what the MPI, events and cluster tests start, those tests run with ctest,
# and the bundled example's dumps written for the comparison test.sh makes.
#
#   test-inside.sh <name> <cache entry>     (the entry of scripts/ompi-builds/build.sh)
#
# Into build-srcbuild-<name>/ (the build) and build-ompi-builds/<name>/dumps. Run in a
# throwaway layer of the root (scripts/ompi-builds/test.sh: root.sh run --scratch). The
# installation's bin folder is NOT put on PATH: everything must come from the prefix given
# (a cluster user's `module load` would add it; not needing it is the stricter test).
# MPIMON_OMPI_BUILDS_CTEST: ctest arguments (default: the labels mpi, events and cluster).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
name="${1:?usage: test-inside.sh <name> <entry>}" entry="${2:?usage: test-inside.sh <name> <entry>}"
[ -n "${MPIMON_IN_SRCBUILD_ROOT:-}" ] || { echo "test-inside.sh: run me through scripts/ompi-builds/root.sh" >&2; exit 2; }
say() { echo "ompi-builds/test-inside ($name): $*"; }
work="$here/build-ompi-builds/$name"
mkdir -p "$work"

# The build beside the tree's other builds (same depth: cmake/CompilerCache.cmake shares
# compiled files between builds whose relative paths match).
build="$here/build-srcbuild-$name"
export MPIMON_OMPI_PREFIX="$entry/prefix" MPIMON_OMPI_SOURCE="$entry/source" MPIMON_BUILD_DIR="$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
say "$("$MPIMON_OMPI_PREFIX/bin/ompi_info" --version | head -n 1), prefix $MPIMON_OMPI_PREFIX"
debian_ompi() { dpkg -l 'libopenmpi*' 'openmpi*' 'mpi-default-*' 2>/dev/null | awk '/^ii/ {print $2}' | tr '\n' ' '; }
[ -z "$(debian_ompi)" ] || { say "this root holds Debian's Open MPI packages ($(debian_ompi)): not a test of a source build"; exit 1; }
start=$SECONDS
# What a cluster user runs (docs/install.md "Your cluster's Open MPI"): the set-up with the
# two variables, which must install no Debian Open MPI package (Scotch's headers come
# without libscotch-dev, which depends on it). This runs in a throwaway layer of the root
# (root.sh run --scratch): what it installs vanishes, the build folder stays.
"$here/scripts/setup.sh" --demo
[ -z "$(debian_ompi)" ] || { say "scripts/setup.sh installed Debian's Open MPI ($(debian_ompi)) although MPIMON_OMPI_PREFIX is set"; exit 1; }
say "set-up (packages, configure, mpimon_installable): $((SECONDS - start)) s"
start=$SECONDS
# Then the tests, in the same folder (the set-up's configuration, tests on).
cmake -S "$here" -B "$build" -DMPIMON_BUILD_TESTS=ON \
  -DMPIMON_OMPI_PREFIX="$MPIMON_OMPI_PREFIX" -DMPIMON_OMPI_SOURCE="$MPIMON_OMPI_SOURCE" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; say "configure failed"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target mpimon_mpi_tests mpimon_event_logger_mpi_tests \
  mpimon_events_conformance mpimon_events_before_mpi_init mca_coll_splittree mpimon_cluster_tests mpimon_example \
  mpimon_site_log_tests
say "test targets: $((SECONDS - start)) s"
start=$SECONDS
status=0
# The arguments come quoted (printf %q in test.sh): eval makes them words again.
if [ -n "${MPIMON_OMPI_BUILDS_CTEST:-}" ]; then eval "tests=($MPIMON_OMPI_BUILDS_CTEST)"; else tests=(-L '^(mpi|events|cluster)$'); fi
ctest --test-dir "$build" --output-on-failure --timeout 300 "${tests[@]}" || status=$?
say "tests: $((SECONDS - start)) s"
rm -rf "$work/dumps"
"$here/scripts/ompi-builds/example-dumps.sh" "$build" "$work/dumps" || status=1
exit $status
