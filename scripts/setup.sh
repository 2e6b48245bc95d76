#!/usr/bin/env bash
# Installs what mpimon needs from Debian 12 (Open MPI 4.1) or Debian 13 (Open MPI 5.0),
# whichever this machine runs (only what is missing: no apt at all when everything is
# there) and builds it into build/ (or $MPIMON_BUILD_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"

# shellcheck disable=SC1091
release="$(. /etc/os-release && echo "${ID:-}:${VERSION_ID:-}")"
case "$release" in
  debian:12) clang_runtime=libclang-rt-14-dev ;;
  debian:13) clang_runtime=libclang-rt-19-dev ;;  # no clang-format-14 there: the style check is Debian 12's
  *) echo "setup: this is '$release'; mpimon's set-up knows Debian 12 and 13 (docs/open-mpi-5.md), trying Debian 12's package names" >&2
     clang_runtime=libclang-rt-14-dev ;;
esac
packages=(
  g++ make cmake pkg-config            # toolchain
  gfortran                             # the Fortran binding of mpimon_reorder and its test
  openmpi-bin libopenmpi-dev           # Open MPI (4.1 on Debian 12, 5.0 on 13) with its internal headers
  libgtest-dev googletest              # unit and integration tests
  libcli11-dev                         # the mpimon command line
  libhwloc-dev hwloc                   # machine topologies for placement
  libscotch-dev                        # Scotch, the placement reference
  valgrind time python3                # benchmarks (instruction counts, peak memory)
  strace                               # bench/series_sigterm.sh: when mpirun signals each rank
  lammps lammps-examples               # a real application in the tests
  gfortran libcoarrays-openmpi-dev     # a Fortran coarray program in the event logger's tests
  chromium                             # renders the HTML report in a test (headless)
  clang "$clang_runtime"               # the readers' fuzz target (libFuzzer, sanitizers)
  iproute2 util-linux                  # emulated hosts in the cluster tests (ip netns, unshare, nsenter)
)
# Debian 12 only: the Debian 13 root in which scripts/test.sh tests Open MPI 5.0
# (scripts/debian13-root.sh); its own packages are listed there.
# Debian 12 also: clang-format 14, the style check (scripts/format.sh, ctest Style.ClangFormatClean).
[ "$release" = debian:13 ] || packages+=(debootstrap clang-format-14)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"
