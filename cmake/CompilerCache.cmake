# One compiler cache for every build of this source tree (docs/development.md, "Build
# time"). The passes of scripts/test.sh build much of the same code with the same compiler:
# the host's build and the build in the Debian 12 root of a source-built Open MPI (gcc 12),
# the Debian 13 root's two builds (gcc 14): the tools, the readers, the Python extension,
# the placement core do not depend on which Open MPI. ccache, with the source tree as its
# base folder (paths relative, so builds in sibling folders share entries) and the
# compiler identified by content (the same compiler binary in a root and on the host), lets
# a later pass reuse what an earlier one compiled. The cache is <source>/build-ccache/,
# which every Debian root sees (the source tree is bind-mounted at the same path) and git
# ignores. Off when ccache is not installed, or with -DMPIMON_CCACHE=OFF; a launcher the
# user set (CMAKE_CXX_COMPILER_LAUNCHER) is kept.
option(MPIMON_CCACHE "Compile through ccache, when it is installed, with a cache shared by this tree's builds" ON)
find_program(MPIMON_CCACHE_PROGRAM ccache)
if(MPIMON_CCACHE AND MPIMON_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(_ccache_launcher
      ${CMAKE_COMMAND} -E env CCACHE_DIR=${CMAKE_SOURCE_DIR}/build-ccache CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}
      CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content CCACHE_MAXSIZE=4G ${MPIMON_CCACHE_PROGRAM})
  set(CMAKE_C_COMPILER_LAUNCHER ${_ccache_launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_ccache_launcher})
  message(STATUS "compiler cache: ${MPIMON_CCACHE_PROGRAM}, in ${CMAKE_SOURCE_DIR}/build-ccache")
endif()
