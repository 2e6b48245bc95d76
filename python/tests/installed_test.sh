#!/usr/bin/env bash
# The Python package of an installed tree (docs/python.md "Where it is"): after
# `cmake --install`, `. P/share/mpimon/mpimon-env.sh` and, with Debian's Lmod,
# `module load mpimon` put P's site-packages on PYTHONPATH, and Debian's python3 then
# imports mpimon from P and reads a job's file into the matrix `mpimon matrix` prints.
#   installed_test.sh <build dir> <source dir> <mpirun>
build="$1" source="$2" mpirun="$3"
# shellcheck source=SCRIPTDIR/../../test/install/install_common.sh
. "$source/test/install/install_common.sh"
python=/usr/bin/python3
prefix="$work/prefix"
install_into "$build" "$prefix"
site="$(cd "$prefix" && ls -d lib/python3*/site-packages/mpimon 2>/dev/null || true)"
[ -n "$site" ] || fail "no lib/python3.*/site-packages/mpimon under $prefix (the Python package was not built?)"

mkdir "$work/job" && cd "$work/job"
"$mpirun" -np 4 --mca mca_base_component_path "$prefix/lib/mpimon:SYS_DEFAULT:USER_DEFAULT" \
  --mca pml ^monitoring --mca coll ^monitoring --mca osc ^monitoring \
  --mca pml_monitoring_enable 2 --mca pml_monitoring_job_file job.txt \
  "$prefix/libexec/mpimon/mpimon_example" ring halo >job.log 2>&1 ||
  { cat job.log; fail "the job failed"; }

# check <how>: in the current environment, mpimon comes from the prefix and its matrix is
# the tool's (sparse CSV of the non-zeros).
check() {
  "$python" - "$prefix" "$prefix/bin/mpimon" <<'PY' || fail "$1: the package's matrix differs from mpimon matrix (above)"
import csv, io, subprocess, sys
import mpimon
prefix, tool = sys.argv[1], sys.argv[2]
assert mpimon.__file__.startswith(prefix + "/"), f"mpimon imported from {mpimon.__file__}, not from {prefix}"
job = mpimon.read_job("job.txt")
for metric in ("bytes", "messages"):
    out = subprocess.run([tool, "matrix", "job.txt", "--category", "external", "--metric", metric, "--format", "sparse"],
                         check=True, capture_output=True, text=True).stdout
    expected = {(int(r[0]), int(r[1])): int(r[2]) for r in list(csv.reader(io.StringIO(out)))[1:] if r}
    m = job.matrix("E", metric)
    got = {(int(i), int(j)): int(m[i, j]) for i, j in zip(*m.nonzero())}
    assert got == expected and got, (metric, got, expected)
PY
  note "$1: mpimon from $prefix/$site, E matrix equal to mpimon matrix"
}

(
  unset PYTHONPATH
  # shellcheck disable=SC1091
  . "$prefix/share/mpimon/mpimon-env.sh"
  check "environment script"
)
lmod_init=/usr/share/lmod/lmod/init/bash
if [ -f "$lmod_init" ]; then
  (
    unset PYTHONPATH
    # shellcheck disable=SC1090
    . "$lmod_init"
    module use "$prefix/share/modulefiles"
    module load mpimon || fail "module load mpimon failed"
    check "module load mpimon"
  )
else
  note "Lmod is not installed: module load not tested (Debian package lmod)"
fi
echo "python installed: OK"
