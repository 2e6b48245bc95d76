# Run by `cmake --install` (and CPack), after the files are copied: writes the environment
# script, the modulefile and the MCA parameter file for the prefix being installed to, into <binary dir>/installed/,
# from which the next install rules copy them. The modulefile's Open MPI settings are what
# the built `mpimon env` prints for that prefix's plugin folder: the launcher's own list,
# the one place they are defined (docs/install.md "Modulefile").
# Input: MPIMON_PACKAGING_SOURCE_DIR, MPIMON_PACKAGING_BINARY_DIR, MPIMON_EXECUTABLE,
# PROJECT_VERSION and the MPIMON_INSTALL_* folders; CMAKE_INSTALL_PREFIX as installed to.
set(prefix "${CMAKE_INSTALL_PREFIX}")
set(out "${MPIMON_PACKAGING_BINARY_DIR}/installed")

set(MPIMON_ENV_BINDIR "${prefix}/bin")
set(MPIMON_ENV_SCRIPT "${prefix}/${MPIMON_INSTALL_DATA_DIR}/mpimon-env.sh")
# The Python package's folder (python/CMakeLists.txt), on PYTHONPATH when it was built.
set(MPIMON_ENV_PYTHON "")
set(MPIMON_MODULE_PYTHON "")
if(NOT MPIMON_INSTALL_PYTHON_DIR STREQUAL "")
  set(MPIMON_ENV_PYTHON "PYTHONPATH=\"${prefix}/${MPIMON_INSTALL_PYTHON_DIR}\${PYTHONPATH:+:\$PYTHONPATH}\"\nexport PYTHONPATH")
  set(MPIMON_MODULE_PYTHON "prepend-path PYTHONPATH $prefix/${MPIMON_INSTALL_PYTHON_DIR}")
endif()
# An Open MPI installation given by its prefix (cmake/OpenMPI.cmake): its programs first
# on PATH in the script; the modulefile requires the site's Open MPI module when named
# (MPIMON_OMPI_MODULE), else puts the prefix's bin first itself.
set(MPIMON_ENV_OMPI_PATH "")
set(MPIMON_MODULE_OPEN_MPI "")
if(MPIMON_OMPI_PREFIX)
  set(MPIMON_ENV_OMPI_PATH "PATH=\"${MPIMON_OMPI_PREFIX}/bin:$PATH\"\n")
  if(MPIMON_OMPI_MODULE)
    set(MPIMON_MODULE_OPEN_MPI "prereq ${MPIMON_OMPI_MODULE}")
  else()
    set(MPIMON_MODULE_OPEN_MPI "prepend-path PATH {${MPIMON_OMPI_PREFIX}/bin}")
  endif()
endif()
configure_file("${MPIMON_PACKAGING_SOURCE_DIR}/mpimon-env.sh.in" "${out}/mpimon-env.sh" @ONLY)

# A clean environment: nothing of the installing shell's own Open MPI settings.
execute_process(
  COMMAND env -i "MPIMON_PLUGIN_DIR=${prefix}/${MPIMON_INSTALL_PLUGIN_DIR}" "${MPIMON_EXECUTABLE}" env
  OUTPUT_VARIABLE exports ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "modulefile: `${MPIMON_EXECUTABLE} env` failed (${status}): ${errors}")
endif()
set(MPIMON_MODULE_ENVIRONMENT "")
string(REGEX MATCHALL "[^\n]+" lines "${exports}")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
    message(FATAL_ERROR "modulefile: unexpected line from `mpimon env`: ${line}")
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(value "${CMAKE_MATCH_2}")
  if(value MATCHES "^'(.*)'$")
    set(value "${CMAKE_MATCH_1}")
  endif()
  if(value MATCHES "[{}\\\\]")
    message(FATAL_ERROR "modulefile: cannot quote ${name}=${value} for Tcl")
  endif()
  string(APPEND MPIMON_MODULE_ENVIRONMENT "setenv ${name} {${value}}\n")
endforeach()
if(MPIMON_MODULE_ENVIRONMENT STREQUAL "")
  message(FATAL_ERROR "modulefile: `mpimon env` printed nothing")
endif()
set(MPIMON_MODULE_PREFIX "${prefix}")

# The MCA parameter file for that prefix (OMPI_MCA_mca_base_param_files=<it>): what
# `mpimon env --mca-params` prints for its plugin folder.
execute_process(
  COMMAND env -i "MPIMON_PLUGIN_DIR=${prefix}/${MPIMON_INSTALL_PLUGIN_DIR}" "${MPIMON_EXECUTABLE}" env --mca-params
  OUTPUT_FILE "${out}/mpimon-mca-params.conf" ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "mpimon-mca-params.conf: `${MPIMON_EXECUTABLE} env --mca-params` failed (${status}): ${errors}")
endif()
configure_file("${MPIMON_PACKAGING_SOURCE_DIR}/mpimon.modulefile.in" "${out}/${PROJECT_VERSION}" @ONLY)
