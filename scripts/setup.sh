#!/usr/bin/env bash
# Installs what mpimon needs from Debian 12 (Open MPI 4.1) or Debian 13 (Open MPI 5.0),
# whichever this machine runs (only what is missing: no apt at all when everything is
# there) and builds it into build/ (or $MPIMON_BUILD_DIR).
#
#   setup.sh          everything: the demo's packages and the tests', every target
#                     (scripts/test.sh)
#   setup.sh --demo   only what the demo needs, and only what an installed tree holds
#                     (target mpimon_installable: plugins, libraries, mpimon, the event
#                     logger, the example); a new build folder is configured without
#                     tests (MPIMON_BUILD_TESTS=OFF), an existing one keeps its choice
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MPIMON_BUILD_DIR:-$here/build}"
mode=all
case "${1:-}" in
  "") ;;
  --demo) mode=demo ;;
  *) echo "usage: setup.sh [--demo]" >&2; exit 2 ;;
esac

# shellcheck disable=SC1091
release="$(. /etc/os-release && echo "${ID:-}:${VERSION_ID:-}")"
case "$release" in
  debian:12) clang_runtime=libclang-rt-14-dev ;;
  debian:13) clang_runtime=libclang-rt-19-dev ;;  # no clang-format-14 there: the style check is Debian 12's
  *) echo "setup: this is '$release'; mpimon's set-up knows Debian 12 and 13 (docs/open-mpi-5.md), trying Debian 12's package names" >&2
     clang_runtime=libclang-rt-14-dev ;;
esac
# Building and running mpimon (scripts/demo.sh).
demo_packages=(
  g++ make cmake pkg-config            # toolchain
  gfortran                             # the Fortran binding of mpimon_reorder
  openmpi-bin libopenmpi-dev           # Open MPI (4.1 on Debian 12, 5.0 on 13) with its internal headers
  libcli11-dev                         # the mpimon command line
  libhwloc-dev                         # machine topologies for placement
  libscotch-dev                        # Scotch, the placement reference
  python3-dev pybind11-dev python3-numpy   # the Python package (python/, docs/python.md)
  libotf2-trace-dev                    # the event logger's OTF2 output (built when found)
)
# The tests and benchmarks on top (scripts/test.sh).
test_packages=(
  libgtest-dev googletest              # unit and integration tests
  hwloc                                # hwloc's tools beside its library
  valgrind time python3                # benchmarks (instruction counts, peak memory)
  strace                               # bench/series_sigterm.sh: when mpirun signals each rank
  lammps lammps-examples               # a real application in the tests (and in bench/app_overhead.sh)
  hpcc netpipe-openmpi                 # real applications in bench/app_overhead.sh (HPCC, NetPIPE)
  libcoarrays-openmpi-dev              # a Fortran coarray program in the event logger's tests
  chromium                             # renders the HTML report in a test (headless)
  clang "$clang_runtime"               # the readers' fuzz target (libFuzzer, sanitizers)
  iproute2 util-linux                  # emulated hosts in the cluster tests (ip netns, unshare, nsenter; tc)
  slurmctld slurmd slurm-client munge  # a real Slurm over the emulated hosts (test/cluster/slurm.sh)
  slurm-wlm-basic-plugins libpmix-dev  # srun --mpi=pmix: Slurm's PMIx plugin opens libpmix-dev's libpmix.so
  kmod                                 # modprobe sch_netem / sch_tbf where the kernel builds them as modules
  libhdf5-openmpi-dev libpnetcdf-dev   # real MPI-IO libraries in the io layer's tests (parallel HDF5, PnetCDF)
  lmod                                 # `module load mpimon` on an installed tree (test/install)
  dpkg-dev debootstrap                 # the .deb (dpkg-shlibdeps for CPack) and a fresh Debian root to install it in
  python3-pytest python3-pandas python3-scipy   # the Python package's tests (DataFrames, sparse matrices)
  otf2-tools python3-otf2              # the OTF2 round trip: otf2-print and OTF2's Python reader
)
# Debian 12 also: clang-format 14, the style check (scripts/format.sh, ctest
# Style.ClangFormatClean); debootstrap (above) also makes the Debian 13 root in which
# scripts/test.sh tests Open MPI 5.0 (scripts/debian13-root.sh lists that root's packages).
[ "$release" = debian:13 ] || test_packages+=(clang-format-14)
packages=("${demo_packages[@]}")
[ "$mode" = demo ] || packages+=("${test_packages[@]}")

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

if [ "$mode" = demo ]; then
  configure=()
  [ -f "$build/CMakeCache.txt" ] || configure=(-DMPIMON_BUILD_TESTS=OFF)
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${configure[@]}" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target mpimon_installable
else
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPIMON_BUILD_TESTS=ON >/dev/null
  cmake --build "$build" -j "$(nproc)"
fi
