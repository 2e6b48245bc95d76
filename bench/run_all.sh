#!/usr/bin/env bash
# Every benchmark in one run: PML send path, COLL allreduce, OSC epoch (each ours vs
# Debian's component vs none), RMA wait states of a kernel, the job file, and the tools
# at scale. Reports only.
#
#   bench/run_all.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for script in pml_overhead.sh coll_overhead.sh osc_overhead.sh bt_rma.sh events_overhead.sh job_file.sh tools.sh placement_quality.sh; do
  echo "## $script"
  echo
  bash "$here/$script" "$@"
  echo
done
