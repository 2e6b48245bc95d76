#!/usr/bin/env bash
# The user-side tools at scale: `mpimon place` for 1024 processes over a 4-level synthetic
# tree, and `mpimon matrix` on a job file of one million non-zero records: wall time and
# peak memory (GNU time), one table. Target: under 2 s each here. Reports only.
#
#   bench/tools.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
mpimon=$builddir/bin/mpimon
[[ -x $mpimon ]] || die "$mpimon is missing: build mpimon first ('cmake --build $builddir')"
[[ -x /usr/bin/time ]] || die "GNU time (/usr/bin/time) is needed: apt-get install time"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Job files written here: a 3-D periodic stencil of 1024 = 16 x 8 x 8 processes (6 peers
# each), and 10 000 processes x 100 peers = one million records.
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
header = ("# mpimon job file (one record per non-zero source, destination, category)\n"
          "format mpimon-job 1\nworld_size {}\nenable_level 2\nopen_mpi 4.1.4\n"
          "start 2026-01-01T00:00:00Z\nend 2026-01-01T00:00:01Z\nrecords\n")
X, Y, Z = 16, 8, 8
with open(f"{work}/stencil.txt", "w") as f:
    f.write(header.format(X * Y * Z))
    for r in range(X * Y * Z):
        x, y, z = r // (Y * Z), (r // Z) % Y, r % Z
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            peer = ((x + dx) % X) * Y * Z + ((y + dy) % Y) * Z + (z + dz) % Z
            f.write(f"{r} {peer} external 10 40960 13:10\n")
n = 10000
with open(f"{work}/million.txt", "w") as f:
    f.write(header.format(n))
    for s in range(n):
        for k in range(100):
            f.write(f"{s} {(s * 7 + k * 13 + 1) % n} external 5 5120 11:5\n")
PY

measure() {  # label command...
  local out
  out=$({ /usr/bin/time -f "%e %M" "$@" >"$work/out.txt" 2>"$work/err.txt"; } 2>&1 | tail -1) ||
    die "$1 failed: $(tail -3 "$work/err.txt")"
  read -r seconds kib <<<"$(tail -1 "$work/err.txt")"
  printf '| %s | %s | %.0f |\n' "$label" "$seconds" "$(awk -v k="$kib" 'BEGIN{print k/1024}')"
}

echo "| command | wall time (s) | peak memory (MiB) |"
echo "|---|---:|---:|"
label="place: 1024 processes, synthetic 'pack:4 numa:4 l3:8 core:8 pu:1' (4 levels)"
measure "$mpimon" place "$work/stencil.txt" --topology "pack:4 numa:4 l3:8 core:8 pu:1"
placement_table=$(cat "$work/out.txt")
label="matrix: 1 000 000 records -> MatrixMarket"
measure "$mpimon" matrix "$work/million.txt" --format mtx --category external
echo
echo "$placement_table"
