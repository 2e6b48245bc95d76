# shellcheck shell=bash
# Shared by the install tests (sourced): an installed tree in a temporary prefix, MPI jobs
# as these machines run them, and exact checks of what a job wrote.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

# Root in containers and CI; 2 cores for up to 8 ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1

# A new folder, removed when the test ends (whatever way it ends).
work="$(mktemp -d "${TMPDIR:-/tmp}/mpimon-install-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# install_into <build dir> <prefix>: cmake --install, its output kept for a failure.
install_into() {
  cmake --install "$1" --prefix "$2" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install $1 --prefix $2 failed"; }
}

# expect_pairs <folder> <prefix> <ranks> <offset> <bytes>: every rank r's .prof file
# (<folder>/<prefix>.<r>.prof) has exactly one application (E) line: <bytes> in one
# message to rank (r + offset) mod <ranks>.
expect_pairs() {
  local folder="$1" prefix="$2" ranks="$3" offset="$4" bytes="$5" r file lines
  for ((r = 0; r < ranks; ++r)); do
    file="$folder/$prefix.$r.prof"
    [ -f "$file" ] || fail "no $file (files there: $(ls "$folder" | tr '\n' ' '))"
    lines="$(grep -P '^E\t' "$file" | cut -f1-5)"
    [ "$lines" = "$(printf 'E\t%d\t%d\t%d bytes\t1 msgs sent' "$r" $(((r + offset) % ranks)) "$bytes")" ] ||
      fail "$file: expected one E line, $bytes bytes from $r to $(((r + offset) % ranks)); got: ${lines:-nothing}"
  done
}

# expect_job_file <file> <ranks>: our job file (Open MPI's own component writes none),
# for <ranks> ranks, complete (its last line is the size trailer).
expect_job_file() {
  [ -f "$1" ] || fail "no job file $1: the job did not run mpimon's components"
  grep -qx "world_size $2" "$1" || fail "$1: no 'world_size $2' line: $(head -n 5 "$1")"
  tail -n 1 "$1" | grep -q '^eof [0-9]*$' || fail "$1: incomplete (last line: $(tail -n 1 "$1"))"
}
