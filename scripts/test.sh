#!/usr/bin/env bash
# Set up, build, run every test (unit and real MPI jobs) with ctest's summary.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ctest --test-dir "$build" --output-on-failure --timeout 300 "$@"
