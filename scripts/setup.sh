#!/usr/bin/env bash
# Installs what mpimon needs from Debian 12 (only what is missing: no apt at all when
# everything is there) and builds it into build/ (or $MPIMON_BUILD_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"

packages=(
  g++ make cmake pkg-config            # toolchain
  gfortran                             # the Fortran binding of mpimon_reorder and its test
  openmpi-bin libopenmpi-dev           # Open MPI 4.1.4 with its internal headers
  libgtest-dev googletest              # unit and integration tests
  libcli11-dev                         # the mpimon command line
  libhwloc-dev hwloc                   # machine topologies for placement
  libscotch-dev                        # Scotch, the placement reference
  valgrind time python3                # benchmarks (instruction counts, peak memory)
  strace                               # bench/series_sigterm.sh: when mpirun signals each rank
  lammps lammps-examples               # a real application in the tests
  gfortran libcoarrays-openmpi-dev     # a Fortran coarray program in the event logger's tests
  chromium                             # renders the HTML report in a test (headless)
  clang libclang-rt-14-dev             # the readers' fuzz target (libFuzzer, sanitizers)
  clang-format-14                      # the style check (scripts/format.sh, ctest Style.ClangFormatClean)
  iproute2 util-linux                  # emulated hosts in the cluster tests (ip netns, unshare, nsenter)
  libhdf5-openmpi-dev libpnetcdf-dev   # real MPI-IO libraries in the io layer's tests (parallel HDF5, PnetCDF)
)
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
