#!/usr/bin/env bash
# The Debian unstable (sid) root with Open MPI 6.0.0~rc2 in which mpimon is built and
# tested against Open MPI 6 on a Debian 12 machine (docs/open-mpi-6.md): scripts/debian-root.sh
# with sid and the packages below.
#
#   sid-root.sh run [--] <command...>   run <command> (bash -c) inside the root, in the
#                                       source tree (bind-mounted at the same path)
#   sid-root.sh prepare                 make or update the root only
#   sid-root.sh check                   why the root cannot be made here (exit 1), or nothing
#   sid-root.sh remove                  delete the cached root
#
# Cached in $MPIMON_SID_ROOT (default /var/cache/mpimon/sid-root). Inside,
# MPIMON_IN_SID_ROOT=1. Exit status as debian-root.sh's (77: this machine cannot).
#
# sid's one trap: the registry's sid snapshot has a Release file past its Valid-Until,
# which apt refuses ("Release file ... is expired"); the root's apt is told not to check.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"

# What building and testing mpimon against Open MPI 6 needs: the Debian 13 root's set
# (scripts/debian13-root.sh) without the optional real applications (LAMMPS, parallel
# HDF5, PnetCDF: their tests are skipped when absent), which sid rebuilds against 6.0 on
# its own schedule. sid brings GCC 16 and CMake 4.3.
packages=(
  g++ make cmake pkgconf gfortran           # toolchain
  openmpi-bin libopenmpi-dev libpmix-dev    # Open MPI 6.0.0~rc2 with its internal headers, PMIx 7
  libgtest-dev googletest libcli11-dev      # tests, the mpimon command line
  libhwloc-dev hwloc libscotch-dev          # placement
  zlib1g-dev libsqlite3-dev sqlite3         # the site log's gzip, the site index (docs/site-deployment.md)
  valgrind time python3                     # benchmarks
  iproute2 util-linux procps                # emulated hosts, process tools the tests use
  xz-utils ca-certificates git              # compat headers (see cmake/fetch-ompi-headers.sh)
)

exec "$here/debian-root.sh" --release sid --root "${MPIMON_SID_ROOT:-/var/cache/mpimon/sid-root}" \
  --apt-conf 'Acquire::Check-Valid-Until "false";' \
  --packages "${packages[*]}" --env MPIMON_IN_SID_ROOT=1 "$@"
