#!/usr/bin/env bash
# The Debian root a source-built Open MPI is built and tested in: scripts/debian-root.sh
# with a root of its own (never the roots with Debian's Open MPI that other passes use)
# holding a toolchain, Open MPI's build dependencies as the recipes take them from the
# system (hwloc, libevent, PMIx, zlib) and what mpimon's tests need, and NO Debian Open
# MPI package: nothing of Open MPI can be picked up from /usr. The build cache
# ($MPIMON_OMPI_BUILDS, default /var/cache/mpimon/ompi-builds) is bind-mounted at the same
# path, so an installation's prefix is the same inside and outside.
#
#   root.sh <suite> [debian-root.sh options] run|prepare|check|remove ...
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
suite="${1:?usage: root.sh <bookworm|trixie> [debian-root.sh options] run|prepare|check|remove ...}"
shift
cache="${MPIMON_OMPI_BUILDS:-/var/cache/mpimon/ompi-builds}"
mkdir -p "$cache"
packages=(
  g++ make cmake pkg-config gfortran perl ccache # toolchain (Open MPI's and mpimon's)
  python3-dev pybind11-dev python3-numpy        # what scripts/setup.sh --demo installs besides
  libotf2-trace-dev                             # (here once, not in every run's scratch layer)
  libevent-dev zlib1g-dev libpmix-dev           # Open MPI's external dependencies (hwloc below)
  libgtest-dev googletest libcli11-dev          # mpimon's tests, the mpimon command line
  libhwloc-dev hwloc                            # placement (and Open MPI's hwloc)
  libsqlite3-dev sqlite3                        # the site index (mpimon index/jobs; zlib1g-dev above)
  libscotch-7.0                                 # Scotch's library; its headers: ompi-builds/test.sh
                                                # (libscotch-dev depends on mpi-default-dev, i.e. on
                                                # Debian's Open MPI, which this root must not hold)
  valgrind time python3                         # benchmarks, timings
  iproute2 util-linux procps                    # emulated hosts, process tools the tests use
  openssh-client                                # mpirun's rsh launcher needs an agent (a cluster has ssh)
  xz-utils ca-certificates                      # unpacking Open MPI's source
)
exec "$here/scripts/debian-root.sh" --release "$suite" --root "/var/cache/mpimon/$suite-srcbuild-root" \
  --packages "${packages[*]}" --bind "$cache" --env "MPIMON_IN_SRCBUILD_ROOT=$suite" "$@"
