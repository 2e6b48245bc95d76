#!/usr/bin/env bash
# The user-side tools at scale: wall time and peak memory (GNU time) per command, one table.
# Reports only.
#   - mpimon matrix / show / report on a job file of 100 000 ranks (a 3-D torus: 6 peers per
#     rank, application and internal records: 1.2 million records, one `collectives`
#     annotation per rank), and matrix on one million records of 10 000 ranks x 100 peers;
#   - mpimon place for 1024 processes over a 4-level synthetic tree (one host), and for the
#     100 000-rank job over a hostfile of 3125 hosts x 32 slots (hierarchical placement).
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

measure() {  # label command...
  local label=$1
  shift
  /usr/bin/time -f "%e %M" "$@" >"$work/out.txt" 2>"$work/err.txt" || die "$label failed: $(tail -3 "$work/err.txt")"
  read -r seconds kib <<<"$(tail -1 "$work/err.txt")"
  printf '| %s | %s | %.0f |\n' "$label" "$seconds" "$(awk -v k="$kib" 'BEGIN{print k/1024}')"
}

header='# mpimon job file (one record per non-zero source, destination, category)
format mpimon-job 1
world_size %d
enable_level 2
open_mpi 4.1.4
start 2026-01-01T00:00:00Z
end 2026-01-01T00:00:01Z
records
'

# ---------------------------------------------------------------------------------------
# matrix, show, report (readers)

n=100000
{
  printf "$header" "$n"
  awk -v n="$n" 'BEGIN {
    split("1 -1 100 -100 10000 -10000", step, " ")
    for (r = 0; r < n; ++r) {
      for (k = 1; k <= 6; ++k) {
        peer = (r + step[k] + n) % n
        printf "%d %d external 10 40960 13:10\n", r, peer
        printf "%d %d internal 2 128 7:2\n", r, peer
      }
    }
    for (r = 0; r < n; ++r) printf "collectives %d MPI_COMM_WORLD 0 0 1 8 3 %d\n", r, 24 * (n - 1)
  }'
} >"$work/torus-100k.txt"
m=10000
{
  printf "$header" "$m"
  awk -v n="$m" 'BEGIN { for (s = 0; s < n; ++s) for (k = 0; k < 100; ++k) printf "%d %d external 5 5120 11:5\n", s, (s * 7 + k * 13 + 1) % n }'
} >"$work/million.txt"
size_mb=$(awk -v b="$(stat -c %s "$work/torus-100k.txt")" 'BEGIN{printf "%.0f", b/1048576}')

echo "Readers: a job file of 100 000 ranks, 1.2 million records (${size_mb} MB); then 10 000 ranks x 100 peers"
echo
echo "| command | wall time (s) | peak memory (MiB) |"
echo "|---|---:|---:|"
cd "$work"
measure "matrix --format mtx (MatrixMarket, all)" "$mpimon" matrix torus-100k.txt --format mtx --metric bytes
measure "matrix --format sparse --category internal (CSV of non-zeros)" "$mpimon" matrix torus-100k.txt --format sparse --category internal
measure "matrix --format mtx --symmetric" "$mpimon" matrix torus-100k.txt --format mtx --symmetric
measure "matrix --format mtx --output m (every selection x 3 metrics)" "$mpimon" matrix torus-100k.txt --format mtx --output m
measure "show (binned terminal heatmap) --svg" "$mpimon" show torus-100k.txt --svg heatmap.svg
measure "show --histograms 0" "$mpimon" show torus-100k.txt --histograms 0
measure "report" "$mpimon" report torus-100k.txt -o report.html
report_kb=$(( $(stat -c %s report.html) / 1024 ))
measure "matrix --format mtx, 1 000 000 records of 10 000 ranks" "$mpimon" matrix million.txt --format mtx --category external
dense=$("$mpimon" matrix torus-100k.txt 2>&1 || true)
echo
echo "The report is ${report_kb} KiB. Dense formats refuse: ${dense}"
cd - >/dev/null

# ---------------------------------------------------------------------------------------
# place

# A 3-D periodic stencil of 1024 = 16 x 8 x 8 processes (6 peers each).
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
PY
echo
echo "| command | wall time (s) | peak memory (MiB) |"
echo "|---|---:|---:|"
measure "place: 1024 processes, synthetic 'pack:4 numa:4 l3:8 core:8 pu:1' (4 levels)" \
  "$mpimon" place "$work/stencil.txt" --topology "pack:4 numa:4 l3:8 core:8 pu:1"
one_host_table=$(cat "$work/out.txt")
for h in $(seq 0 3124); do echo "node$h slots=32"; done >"$work/hosts3125"
measure "place: the 100 000-rank job, --hostfile of 3125 hosts x 32 slots ('pack:2 core:16 pu:1')" \
  "$mpimon" place "$work/torus-100k.txt" --hostfile "$work/hosts3125" --topology "pack:2 core:16 pu:1" \
  --rankfile "$work/rankfile"
echo
echo "$one_host_table"
echo
sed -n '1,/^mpimon:/p' "$work/out.txt"
