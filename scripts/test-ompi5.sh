#!/usr/bin/env bash
# Inside the Debian 13 root (scripts/debian13-root.sh; scripts/test.sh runs it there):
# builds mpimon against Open MPI 5.0 into build-ompi5/ (or $MPIMON_OMPI5_BUILD_DIR), only
# what the MPI, events and cluster tests run, and runs them with ctest's summary. Arguments
# go to ctest (default: the labels mpi, events and cluster, i.e. pml, coll, osc, pvars,
# files, events, series, wait states, nbc, tools, the event logger's jobs, and the jobs
# over emulated hosts: dumps, the mixed-deployment check, placement, wait states).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_OMPI5_BUILD_DIR:-$here/build-ompi5}"
[ "${MPIMON_IN_DEBIAN13_ROOT:-}" = 1 ] || echo "test-ompi5.sh: not inside scripts/debian13-root.sh; using this machine's Open MPI" >&2
echo "test-ompi5.sh: $(ompi_info --version 2>/dev/null | head -n 1)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
start=$SECONDS
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# What the tests below start (their add_dependencies pull the plugins, tools and programs).
# The Python package's tests (label python, and mpi: they start jobs) when the root has
# pybind11 and pytest: the package and the programs their jobs run.
python_targets=()
# (The target list is read whole first: `grep -q` would stop reading early, and with
# pipefail make's broken pipe would make the test false.)
targets="$(cmake --build "$build" --target help)"
if grep -q '^\.\.\. mpimon_python$' <<<"$targets" &&
  [ -f "$build/python/tests/CTestTestfile.cmake" ]; then
  # mpimon_installable: every installed target (plugins, the tool, the logger, the package)
  python_targets=(mpimon_installable mpimon_example osc_patterns io_patterns nbc_patterns rma_wait_states)
fi
cmake --build "$build" -j "$(nproc)" --target mpimon_mpi_tests mpimon_event_logger_mpi_tests \
  mpimon_events_conformance mpimon_events_before_mpi_init mca_coll_splittree mpimon_cluster_tests \
  mpimon_site_log_tests mpimon_slurm_tests \
  "${python_targets[@]}"
echo "test-ompi5.sh: build: $((SECONDS - start)) s"
start=$SECONDS
if [ $# -eq 0 ]; then set -- -L '^(mpi|events|cluster)$'; fi
status=0
ctest --test-dir "$build" --output-on-failure --timeout 300 "$@" || status=$?
echo "test-ompi5.sh: tests: $((SECONDS - start)) s"
exit $status
