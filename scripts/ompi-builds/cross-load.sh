#!/usr/bin/env bash
# mpimon's plugins built for one Open MPI loaded by another (what `module load mpimon`
# of the wrong build does): the job must run unmonitored, exit 0, write no dump, and say
# so in exactly one line (world rank 0; docs/install.md "Your cluster's Open MPI").
#
#   cross-load.sh <plugins' environment> <Open MPI bin folder (the job's)> <output folder (new or empty)>
#
# <plugins' environment>: what `mpimon env` of the plugins' build printed (a file, made
# where that build's mpimon runs: its tools need their own Debian release's libraries).
# The application is a ring compiled with the job's own mpicc; monitoring is requested
# (pml_monitoring_enable 2 and a dump file name) on top of that environment.
# Exit 0 when all of that holds, else 1 with what did not.
set -euo pipefail
usage="usage: cross-load.sh <plugins' environment> <Open MPI bin folder> <output>"
plugins_env="$(readlink -f "${1:?$usage}")"
[ -f "$plugins_env" ] || { echo "cross-load: $1: no such file" >&2; exit 2; }
ompi_bin="$(cd "${2:?$usage}" && pwd)"
out="${3:?$usage}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
[ -z "$(ls -A "$out")" ] || { echo "cross-load: $out is not empty" >&2; exit 2; }
say() { echo "cross-load: $*" >&2; }
mpicc="$ompi_bin/mpicc" mpirun="$ompi_bin/mpirun"
[ -x "$mpicc" ] || mpicc="$ompi_bin/mpicc.openmpi"     # Debian's names, for the package build
[ -x "$mpirun" ] || mpirun="$ompi_bin/mpirun.openmpi"
cat >"$out/ring.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv) {
  int rank, size, token = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 1, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  return MPI_Finalize();
}
C
"$mpicc" -o "$out/ring" "$out/ring.c"
export OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC1090
. "$plugins_env"
status=0
timeout 120 "$mpirun" -np 2 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
  --mca pml_monitoring_filename "$out/dump" \
  "$out/ring" >"$out/job.log" 2>&1 || status=$?
failed=0
if ((status != 0)); then say "the job exited with $status (expected 0)"; failed=1; fi
if compgen -G "$out/dump*" >/dev/null; then say "a dump was written: $(ls "$out"/dump*)"; failed=1; fi
lines="$(grep -c . "$out/job.log" || true)"
if [ "$lines" != 1 ]; then say "the job printed $lines lines (expected the one refusal line)"; failed=1; fi
if ! grep -q mpimon "$out/job.log"; then say "no line from mpimon"; failed=1; fi
echo "cross-load: plugins of $plugins_env under $mpirun:"
sed 's/^/  | /' "$out/job.log"
if ((failed)); then say "FAILED"; exit 1; fi
echo "cross-load: refused in one line, exit 0, no dump"
