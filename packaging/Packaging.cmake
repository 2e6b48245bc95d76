# The .deb (docs/install.md "Debian package"): `cpack --config build/CPackConfig.cmake`
# (or `cmake --build build --target package`) makes mpimon_<version>-1~deb<N>_<arch>.deb
# for the Debian release it is built on, installing into /usr.
#
# Dependencies: what dpkg-shlibdeps finds for our binaries (libc, libstdc++, hwloc, Scotch,
# gfortran's runtime, libmpi), plus openmpi-bin (mpimon run starts mpirun) and the Open
# MPI library package held to the major.minor we were built for: our plugins use Open
# MPI's internal structures, and refuse another major.minor at run time anyway.
find_program(MPIMON_DPKG_QUERY dpkg-query)
find_program(MPIMON_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_library(MPIMON_LIBMPI NAMES mpi HINTS ${OMPI_LIBRARY_DIRS} NO_DEFAULT_PATH)
set(ompi_package "")
if(MPIMON_DPKG_QUERY AND MPIMON_LIBMPI)
  file(REAL_PATH "${MPIMON_LIBMPI}" libmpi)
  execute_process(COMMAND ${MPIMON_DPKG_QUERY} -S "${libmpi}" OUTPUT_VARIABLE owner ERROR_QUIET RESULT_VARIABLE status)
  if(status EQUAL 0 AND owner MATCHES "^([^:,]+)")
    set(ompi_package "${CMAKE_MATCH_1}")
  endif()
endif()

set(CPACK_PACKAGE_NAME mpimon)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "communication monitoring inside Open MPI (MCA plugins, MPI_T events, tools)")
set(CPACK_PACKAGE_DESCRIPTION
  "Open MPI MCA plugins (pml, coll, osc) that record who talks to whom, with Open MPI's\n"
  "parameter names and .prof format, MPI 4.0 MPI_T events, an event logger, and the\n"
  "mpimon command (launcher, matrices, reports, placement).")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "mpimon maintainers")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${PROJECT_VERSION})  # non-Debian generators
# `package_source`: the tracked tree, not build folders or git's.
set(CPACK_SOURCE_IGNORE_FILES "/[.]git/" "/build[^/]*/" "/out/" "/[.]cache/")

if(ompi_package AND MPIMON_DPKG_SHLIBDEPS)
  set(CPACK_GENERATOR DEB)
  file(STRINGS /etc/os-release debian_version REGEX "^VERSION_ID=")
  string(REGEX REPLACE "^VERSION_ID=\"?([0-9]+).*" "\\1" debian_version "${debian_version}")
  set(CPACK_DEBIAN_PACKAGE_RELEASE "1~deb${debian_version}")
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION science)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # Our own libraries, which the plugins and the event logger find through $ORIGIN.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${MPIMON_PLUGIN_DIR})
  math(EXPR next_minor "${MPIMON_OMPI_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "openmpi-bin, ${ompi_package} (>= ${MPIMON_OMPI_MAJOR}.${MPIMON_OMPI_MINOR}), ${ompi_package} (<< ${MPIMON_OMPI_MAJOR}.${next_minor})")
else()
  set(CPACK_GENERATOR TGZ)
  message(STATUS "mpimon: no dpkg-shlibdeps or no Debian package owning libmpi: CPack makes a .tar.gz, not a .deb")
endif()
include(CPack)
