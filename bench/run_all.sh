#!/usr/bin/env bash
# Every benchmark in one run: PML send path, COLL allreduce, nonblocking collectives, OSC
# epoch (each ours vs Debian's component vs none), RMA wait states of a kernel, the job file,
# the tools at scale, the IMB-NBC overlap and whole applications (LAMMPS, HPCC, NetPIPE).
# Reports only.
#
#   bench/run_all.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for script in pml_overhead.sh coll_overhead.sh nbc_call_overhead.sh osc_overhead.sh bt_rma.sh events_overhead.sh job_file.sh series.sh tools.sh placement_quality.sh nbc_overlap.sh app_overhead.sh; do
  echo "## $script"
  echo
  bash "$here/$script" "$@"
  echo
done
