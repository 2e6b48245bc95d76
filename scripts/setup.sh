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
#
# MPIMON_OMPI_PREFIX=<an Open MPI installation> MPIMON_OMPI_SOURCE=<its release's source
# tree>: build for that Open MPI instead of Debian's (docs/install.md, "Your cluster's Open
# MPI"). No Debian Open MPI package is installed then, nor any application built on one
# (their tests skip, saying so); set-up refuses if the compiler would find an mpi.h of
# another Open MPI first. Unset: Debian's packages, as always (an existing build folder
# keeps the installation it was configured for).
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
  zlib1g-dev libsqlite3-dev            # the site log's gzip; the site index (mpimon index/jobs only)
)
# The tests and benchmarks on top (scripts/test.sh).
test_packages=(
  libgtest-dev googletest              # unit and integration tests
  sqlite3                              # the site-log tests query the index as a site would
  hwloc                                # hwloc's tools beside its library
  valgrind time python3                # benchmarks (instruction counts, peak memory)
  ccache                               # one compiler cache for the passes' builds (cmake/CompilerCache.cmake)
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
  python3-six                          # python3-otf2 imports it without depending on it (Debian 13)
)
# Debian 12 also: clang-format 14, the style check (scripts/format.sh, ctest
# Style.ClangFormatClean); debootstrap (above) also makes the Debian 13 root in which
# scripts/test.sh tests Open MPI 5.0 (scripts/debian13-root.sh lists that root's packages).
[ "$release" = debian:13 ] || test_packages+=(clang-format-14)
packages=("${demo_packages[@]}")
[ "$mode" = demo ] || packages+=("${test_packages[@]}")
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
ompi_prefix="${MPIMON_OMPI_PREFIX:-}"
cmake_ompi=()
if [ -n "$ompi_prefix" ]; then
  # Debian's Open MPI and what is linked to it (those applications run only with Debian's
  # mpirun): left out.
  debian_ompi='^(openmpi-bin|libopenmpi-dev|lammps|lammps-examples|hpcc|netpipe-openmpi|libcoarrays-openmpi-dev|libhdf5-openmpi-dev|libpnetcdf-dev)$'
  kept=()
  for p in "${packages[@]}"; do
    [[ $p =~ $debian_ompi ]] && continue
    # libscotch-dev depends on mpi-default-dev (Debian's Open MPI): the library alone,
    # its headers and links taken from the -dev package without installing it (below).
    [ "$p" = libscotch-dev ] && ! installed libscotch-dev && p=libscotch-7.0
    kept+=("$p")
  done
  packages=("${kept[@]}")
  [ -x "$ompi_prefix/bin/ompi_info" ] || { echo "setup: MPIMON_OMPI_PREFIX=$ompi_prefix has no bin/ompi_info (an Open MPI installation's prefix)" >&2; exit 1; }
  [ -n "${MPIMON_OMPI_SOURCE:-}" ] || { echo "setup: MPIMON_OMPI_PREFIX is set but MPIMON_OMPI_SOURCE is not (the pristine source tree of that release; docs/install.md)" >&2; exit 1; }
  cmake_ompi=(-DMPIMON_OMPI_PREFIX="$ompi_prefix" -DMPIMON_OMPI_SOURCE="$MPIMON_OMPI_SOURCE")
fi

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  if [ -n "$ompi_prefix" ]; then
    pulled="$(apt-get -s install --no-install-recommends "${missing[@]}" | sed -n 's/^Inst \([^ ]*openmpi[^ ]*\) .*/\1/p' | tr '\n' ' ')"
    [ -z "$pulled" ] || { echo "setup: with MPIMON_OMPI_PREFIX set, installing ${missing[*]} would bring Debian's Open MPI ($pulled): refused" >&2; exit 1; }
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ -n "$ompi_prefix" ] && ! installed libscotch-dev; then
  # Scotch's headers and link names from its -dev package, unpacked, not installed.
  scotch="$build/scotch-dev"
  if [ ! -f "$scotch/usr/include/scotch/scotch.h" ]; then
    rm -rf "$scotch" && mkdir -p "$scotch"
    as_root=()
    [ "$(id -u)" -ne 0 ] || as_root=(-o APT::Sandbox::User=root)  # _apt cannot write here
    (cd "$scotch" && apt-get download -q "${as_root[@]}" libscotch-dev >/dev/null && dpkg-deb -x libscotch-dev_*.deb .)
  fi
  libdir="/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)"
  real() { echo "$libdir/$(readlink "$scotch/$libdir/$1")"; }
  cmake_ompi+=(-DSCOTCH_INCLUDE_DIR="$scotch/usr/include/scotch" -DSCOTCH_LIBRARY="$(real libscotch.so)"
               -DSCOTCH_ERROR_LIBRARY="$(real libscotcherr.so)")
fi
if [ -n "$ompi_prefix" ]; then
  # Our include paths come first, but a header they lack would silently be taken from a
  # folder the compiler searches by default (CPATH, ...): none may hold another mpi.h.
  found="$(echo '#include <mpi.h>' | cc -E -x c - 2>/dev/null | sed -n 's/^# [0-9]* "\(.*\/mpi\.h\)".*/\1/p' | head -n 1 || true)"
  if [ -n "$found" ] && [[ $found != "$ompi_prefix"/* ]]; then
    echo "setup: the compiler finds $found by default (CPATH? C_INCLUDE_PATH?), not $ompi_prefix's mpi.h: unset that first" >&2
    exit 1
  fi
fi

if [ "$mode" = demo ]; then
  configure=()
  [ -f "$build/CMakeCache.txt" ] || configure=(-DMPIMON_BUILD_TESTS=OFF)
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${configure[@]}" "${cmake_ompi[@]}" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target mpimon_installable
else
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPIMON_BUILD_TESTS=ON "${cmake_ompi[@]}" >/dev/null
  cmake --build "$build" -j "$(nproc)"
fi
