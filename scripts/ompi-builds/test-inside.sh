#!/usr/bin/env bash
# Inside a root of scripts/ompi-builds/root.sh: mpimon built against one source-built
# Open MPI (MPIMON_OMPI_PREFIX + MPIMON_OMPI_SOURCE, docs/install.md "Your cluster's Open
# MPI"), only what the MPI, events and cluster tests start, those tests run with ctest,
# and the bundled example's dumps written for the comparison test.sh makes.
#
#   test-inside.sh <name> <cache entry>     (the entry of scripts/ompi-builds/build.sh)
#
# Into build-ompi-builds/<name>/{build,dumps}. The installation's bin folder is NOT put on
# PATH: everything must come from the prefix given (a cluster user's `module load` would
# add it; not needing it is the stricter test). MPIMON_OMPI_BUILDS_CTEST: ctest arguments
# (default: the labels mpi, events and cluster).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
name="${1:?usage: test-inside.sh <name> <entry>}" entry="${2:?usage: test-inside.sh <name> <entry>}"
[ -n "${MPIMON_IN_SRCBUILD_ROOT:-}" ] || { echo "test-inside.sh: run me through scripts/ompi-builds/root.sh" >&2; exit 2; }
say() { echo "ompi-builds/test-inside ($name): $*"; }
work="$here/build-ompi-builds/$name"
mkdir -p "$work"

# Scotch's headers without libscotch-dev (which depends on Debian's Open MPI): its files
# unpacked into a folder of the root, beside the library package the root has.
scotch_dev=/opt/mpimon-scotch-dev
if [ ! -f "$scotch_dev/usr/include/scotch/scotch.h" ]; then
  rm -rf "$scotch_dev.partial" && mkdir -p "$scotch_dev.partial"
  (cd "$scotch_dev.partial" && apt-get download -q libscotch-dev >/dev/null && dpkg-deb -x libscotch-dev_*.deb . && rm libscotch-dev_*.deb)
  # Its .so links are relative to /usr/lib/<arch>, where the library is.
  for l in "$scotch_dev.partial"/usr/lib/*/lib*.so; do
    [ -L "$l" ] && ln -sfn "/usr/lib/$(basename "$(dirname "$l")")/$(readlink "$l")" "$l"
  done
  rm -rf "$scotch_dev" && mv "$scotch_dev.partial" "$scotch_dev"
fi

export MPIMON_OMPI_PREFIX="$entry/prefix" MPIMON_OMPI_SOURCE="$entry/source"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
say "$("$MPIMON_OMPI_PREFIX/bin/ompi_info" --version | head -n 1), prefix $MPIMON_OMPI_PREFIX"
if dpkg -l 'libopenmpi*' 'openmpi*' 'mpi-default-*' 2>/dev/null | grep -q '^ii'; then
  say "this root holds Debian's Open MPI packages: not a test of a source build"; exit 1
fi
start=$SECONDS
cmake -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$scotch_dev/usr" \
  -DMPIMON_OMPI_PREFIX="$MPIMON_OMPI_PREFIX" -DMPIMON_OMPI_SOURCE="$MPIMON_OMPI_SOURCE" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; say "configure failed"; exit 1; }
cmake --build "$work/build" -j "$(nproc)" --target mpimon_mpi_tests mpimon_event_logger_mpi_tests \
  mpimon_events_conformance mpimon_events_before_mpi_init mca_coll_splittree mpimon_cluster_tests mpimon_example
say "configure + build: $((SECONDS - start)) s"
start=$SECONDS
status=0
if [ -n "${MPIMON_OMPI_BUILDS_CTEST:-}" ]; then read -r -a tests <<<"$MPIMON_OMPI_BUILDS_CTEST"; else tests=(-L '^(mpi|events|cluster)$'); fi
ctest --test-dir "$work/build" --output-on-failure --timeout 300 "${tests[@]}" || status=$?
say "tests: $((SECONDS - start)) s"
rm -rf "$work/dumps"
"$here/scripts/ompi-builds/example-dumps.sh" "$work/build" "$work/dumps" || status=1
exit $status
