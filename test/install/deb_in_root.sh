#!/usr/bin/env bash
# Inside a fresh Debian root (deb_test.sh): apt installs the .deb with the dependencies it
# declares, then its demo runs and prints the known matrices of the bundled example.
#   deb_in_root.sh <package.deb>
deb="$1"
# shellcheck source=SCRIPTDIR/install_common.sh
. "$(dirname "$0")/install_common.sh"

note "apt-get install $(basename "$deb") in $(. /etc/os-release && echo "$PRETTY_NAME")"
apt-get update -q >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get update failed"; }
apt-get install -y -q --no-install-recommends "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install $deb failed"; }
grep -E '^(Setting up|Unpacking) ' "$work/apt.log" | cut -d' ' -f1-3 | sort -u | sed 's/^/   /'
[ "$(command -v mpimon)" = /usr/bin/mpimon ] || fail "mpimon is not /usr/bin/mpimon"
[ "$(mpimon env | head -n 1)" = "export OMPI_MCA_mca_base_component_path='/usr/lib/mpimon:SYS_DEFAULT:USER_DEFAULT'" ] ||
  fail "mpimon env: $(mpimon env)"

note "mpimon-demo"
mpimon-demo "$work/demo" | tee "$work/demo.log" || fail "mpimon-demo failed"
# The application's bytes on 8 ranks: the ring (1 KiB to rank+1) and the halo on the 4x2
# periodic grid (512 bytes to rank+-2; 2 x 512 to the other rank of the row, rank^1).
cat >"$work/expected" <<'MATRIX'
# point-to-point, application (E), bytes (row: sender, column: receiver)
            0    1    2    3    4    5    6    7   <- receiver
    0 |     . 2048  512    .    .    .  512    .
    1 |  1024    . 1024  512    .    .    .  512
    2 |   512    .    . 2048  512    .    .    .
    3 |     .  512 1024    . 1024  512    .    .
    4 |     .    .  512    .    . 2048  512    .
    5 |     .    .    .  512 1024    . 1024  512
    6 |   512    .    .    .  512    .    . 2048
    7 |  1024  512    .    .    .  512 1024    .
MATRIX
grep -A9 '^# point-to-point, application (E), bytes' "$work/demo.log" | diff "$work/expected" - >&2 ||
  fail "the demo's application bytes differ from the ring and halo pattern (diff above: expected, printed)"
expect_job_file "$work/demo/mpimon-job.txt" 8
grep -q '^statistics: sent peer=2 messages=1 bytes=1024$' "$work/demo.log" ||
  fail "the event logger's statistics of rank 1 lack its ring message to rank 2"
echo "deb in root: OK"
