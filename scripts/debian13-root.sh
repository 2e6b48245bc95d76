#!/usr/bin/env bash
# The Debian 13 (trixie) root with Open MPI 5.0.x in which mpimon is built and tested
# against Open MPI 5 on a Debian 12 machine (docs/open-mpi-5.md "Testing on Open MPI 5"):
# scripts/debian-root.sh with trixie and the packages below.
#
#   debian13-root.sh run [--] <command...>   run <command> (bash -c) inside the root, in the
#                                            source tree (bind-mounted at the same path)
#   debian13-root.sh prepare                 make or update the root only
#   debian13-root.sh check                   why the root cannot be made here (exit 1), or nothing
#   debian13-root.sh remove                  delete the cached root
#
# Cached in $MPIMON_DEBIAN13_ROOT (default /var/cache/mpimon/debian13-root). Inside,
# MPIMON_IN_DEBIAN13_ROOT=1. Exit status as debian-root.sh's (77: this machine cannot).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"

# What building and testing mpimon against Open MPI 5 needs (scripts/setup.sh has the
# same set for a Debian 13 machine; keep them together).
packages=(
  g++ make cmake pkgconf gfortran ccache    # toolchain (ccache: cmake/CompilerCache.cmake)
  openmpi-bin libopenmpi-dev                # Open MPI 5.0.x with its internal headers
  libgtest-dev googletest libcli11-dev      # tests, the mpimon command line
  libhwloc-dev hwloc libscotch-dev          # placement
  zlib1g-dev libsqlite3-dev sqlite3         # the site log's gzip, the site index (docs/site-deployment.md)
  valgrind time python3                     # benchmarks
  iproute2 util-linux procps                # emulated hosts, process tools the tests use
  xz-utils ca-certificates                  # unpacking Open MPI's source (compat headers)
  libhdf5-openmpi-dev libpnetcdf-dev        # real MPI-IO libraries (the io layer's tests)
  lammps lammps-examples                    # a real application (LAMMPS melt) in the tests
  python3-dev pybind11-dev python3-numpy    # the Python package (python/, docs/python.md)
  python3-pytest python3-pandas python3-scipy  # its tests (label python): DataFrames, sparse matrices
  libotf2-trace-dev otf2-tools python3-otf2 # the event logger's OTF2 output and its round trip test
  python3-six                               # python3-otf2 imports six without depending on it (trixie)
  slurmctld slurmd slurm-client munge       # Slurm 24.11 over the emulated hosts (test/cluster/slurm.sh)
  slurm-wlm-basic-plugins libpmix-dev       # srun --mpi=pmix (its plugin opens libpmix.so)
)

exec "$here/debian-root.sh" --release trixie --root "${MPIMON_DEBIAN13_ROOT:-/var/cache/mpimon/debian13-root}" \
  --packages "${packages[*]}" --env MPIMON_IN_DEBIAN13_ROOT=1 "$@"
