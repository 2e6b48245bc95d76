# An Open MPI installation given by its prefix (MPIMON_OMPI_PREFIX) plus the pristine source
# tree of the same release (MPIMON_OMPI_SOURCE): how clusters install it (Spack, EasyBuild,
# vendors, `configure --prefix`), with mpi.h and no internal header. Included by
# cmake/OpenMPI.cmake, the one place that decides where Open MPI's headers come from
# (docs/install.md, "Your cluster's Open MPI").
#
# The internal headers whose struct layouts must be the installation's (opal_config.h and
# the other headers configure generates) come from running the source tree's `configure`
# ONLY (no make) in a folder of ours, with the configure line the installation recorded
# (`ompi_info --all --parsable`, config:cli), minus the options that cannot change a
# layout (mpimon_ompi_configure_arguments below says which and why). The result is kept in
# <build>/ompi-configured/<key>, key = source tree + release + arguments + compiler, so a
# reconfigure of mpimon does not run it again.
#
# Sets what cmake/OpenMPI.cmake's Debian path sets: OMPI_VERSION, OMPI_INCLUDE_DIRS,
# OMPI_LINK_LIBRARIES, OPEN_PAL_LIBRARY, MPIRUN/MPICC/MPIF90/OMPI_INFO_EXECUTABLE, plus
# MPIMON_OMPI_DEBUG and MPIMON_OMPI_CONFIGURED_DIR. Every refusal is one FATAL_ERROR line.

# The refusal in one line as it is (CMake's error block re-wraps its text), then the error.
function(mpimon_ompi_refuse text)
  message(NOTICE "mpimon: MPIMON_OMPI_PREFIX=${MPIMON_OMPI_PREFIX}: ${text}")
  message(FATAL_ERROR "Open MPI installation refused: the line above says why")
endfunction()

# The recorded configure arguments, as configure must get them again. Left out:
# - installation folders (--libdir=, --sysconfdir=, ... but not --prefix): only recorded
#   strings, and a distribution's own (Debian's --runstatedir) may be unknown to the
#   release tarball's configure;
# - options that only ask for launcher support, language bindings and BTLs to be built
#   (Java, Slurm, SGE, Torque, LSF, verbs, usnic's tests, knem, xpmem, hcoll; their
#   --without-/--disable- forms need nothing and are kept): no struct in
#   the headers our components include depends on them (test OmpiLayout), and their
#   development files are rarely on the machine building mpimon.
# Kept as recorded, with everything else (debug, threads, timers, CUDA, hwloc/libevent/PMIx):
# UCX, libfabric (OFI), PSM, PSM2, Portals4, MXM. Each of them adds an endpoint slot to every
# ompi_proc_t (OMPI_PROC_ENDPOINT_TAG_MAX, config/ompi_endpoint_tag.m4): leaving them out
# made Debian's ompi_proc_t 96 bytes instead of 120, which test OmpiLayout caught.
function(mpimon_ompi_configure_arguments cli out_kept out_dropped)
  string(REGEX MATCHALL "'[^']*'" quoted "${cli}")
  set(kept)
  set(dropped)
  foreach(token IN LISTS quoted)
    string(REGEX REPLACE "^'(.*)'$" "\\1" arg "${token}")
    if(arg MATCHES "^--[a-z-]*dir=" AND NOT arg MATCHES "^--(with|enable|without|disable)-")
      list(APPEND dropped "${arg}")
    elseif(arg MATCHES "^--(with|enable)-(verbs|mpi-java|jdk|jdk-dir|jdk-bindir|jdk-headers|opal-btl-usnic-unit-tests|slurm|sge|tm|lsf|knem|xpmem|hcoll|fca)(=.*)?$")
      list(APPEND dropped "${arg}")
    else()
      list(APPEND kept "${arg}")
    endif()
  endforeach()
  set(${out_kept} "${kept}" PARENT_SCOPE)
  set(${out_dropped} "${dropped}" PARENT_SCOPE)
endfunction()

# ompi_info of the installation: version, configure line, debug.
set(_prefix "${MPIMON_OMPI_PREFIX}")
if(NOT IS_DIRECTORY "${_prefix}")
  mpimon_ompi_refuse("no such folder (an Open MPI installation prefix: <prefix>/bin/ompi_info)")
endif()
set(_ompi_info "${_prefix}/bin/ompi_info")
if(NOT EXISTS "${_ompi_info}")
  mpimon_ompi_refuse("no ${_ompi_info}: name the prefix of an Open MPI installation (`dirname $(dirname $(which ompi_info))` after `module load openmpi`)")
endif()
set(_libpath "${_prefix}/lib:${_prefix}/lib64")  # for an installation without run paths
if(DEFINED ENV{LD_LIBRARY_PATH})
  string(APPEND _libpath ":$ENV{LD_LIBRARY_PATH}")
endif()
execute_process(COMMAND env "LD_LIBRARY_PATH=${_libpath}" "${_ompi_info}" --all --parsable
                OUTPUT_VARIABLE _info ERROR_VARIABLE _info_errors RESULT_VARIABLE _status)
if(NOT _status EQUAL 0 OR NOT _info MATCHES "(^|\n)ompi:version:full:([^\n]+)")
  string(REGEX REPLACE "\n.*" "" _info_errors "${_info_errors}")
  mpimon_ompi_refuse("${_ompi_info} --all --parsable failed (${_status}: ${_info_errors}); load the installation's environment (module load) first")
endif()
set(OMPI_VERSION "${CMAKE_MATCH_2}")
if(NOT _info MATCHES "(^|\n)config:cli:([^\n]*)")
  mpimon_ompi_refuse("${_ompi_info} records no configure line (config:cli): cannot reproduce its headers")
endif()
set(_cli "${CMAKE_MATCH_2}")
# Its library folder as it reports it (Debian's: <prefix>/lib/<triplet>/openmpi/lib).
set(_libdirs "${_prefix}/lib" "${_prefix}/lib64")
if(_info MATCHES "(^|\n)path:libdir:([^\n]+)")
  list(PREPEND _libdirs "${CMAKE_MATCH_2}")
endif()
set(MPIMON_OMPI_DEBUG OFF)
if(_info MATCHES "(^|\n)option:debug:yes")
  set(MPIMON_OMPI_DEBUG ON)
endif()

# The source tree: the same release.
set(_source "${MPIMON_OMPI_SOURCE}")
if(NOT _source)
  mpimon_ompi_refuse("MPIMON_OMPI_SOURCE is not set: give the pristine source tree of Open MPI ${OMPI_VERSION} (its release tarball unpacked, see docs/install.md, \"Your cluster's Open MPI\")")
endif()
get_filename_component(_source "${_source}" REALPATH)
if(NOT EXISTS "${_source}/VERSION")
  mpimon_ompi_refuse("MPIMON_OMPI_SOURCE=${MPIMON_OMPI_SOURCE} has no VERSION file: not an Open MPI source tree")
endif()
file(STRINGS "${_source}/VERSION" _version_lines REGEX "^(major|minor|release|greek)=")
set(_source_version "")
foreach(_part major minor release greek)
  set(_${_part} "")
  foreach(_line IN LISTS _version_lines)
    if(_line MATCHES "^${_part}=(.*)$")
      set(_${_part} "${CMAKE_MATCH_1}")
    endif()
  endforeach()
endforeach()
set(_source_version "${_major}.${_minor}.${_release}${_greek}")
if(NOT _source_version STREQUAL OMPI_VERSION)
  mpimon_ompi_refuse("the installation is Open MPI ${OMPI_VERSION} but MPIMON_OMPI_SOURCE=${MPIMON_OMPI_SOURCE} is ${_source_version}: unpack openmpi-${OMPI_VERSION}.tar.bz2 (the installation's own release) and point MPIMON_OMPI_SOURCE at it")
endif()
if(NOT EXISTS "${_source}/configure")
  mpimon_ompi_refuse("MPIMON_OMPI_SOURCE=${MPIMON_OMPI_SOURCE} has no configure script (a git checkout): use the release tarball, or run ./autogen.pl in it first")
endif()

# Configure only, once per key.
mpimon_ompi_configure_arguments("${_cli}" _args _dropped)
string(SHA256 _key "${_source}\n${OMPI_VERSION}\n${_args}\n${CMAKE_C_COMPILER}\n${CMAKE_CXX_COMPILER}")
string(SUBSTRING "${_key}" 0 16 _key)
set(MPIMON_OMPI_CONFIGURED_DIR "${CMAKE_BINARY_DIR}/ompi-configured/${_key}")
set(_stamp "${MPIMON_OMPI_CONFIGURED_DIR}/.mpimon-configured")
if(NOT EXISTS "${_stamp}")
  file(REMOVE_RECURSE "${MPIMON_OMPI_CONFIGURED_DIR}")
  file(MAKE_DIRECTORY "${MPIMON_OMPI_CONFIGURED_DIR}")
  string(JOIN " " _shown ${_args})
  message(STATUS "Open MPI ${OMPI_VERSION}: running its configure (only configure, a few minutes, once) in ${MPIMON_OMPI_CONFIGURED_DIR} with: ${_shown}")
  if(_dropped)
    string(JOIN " " _shown ${_dropped})
    message(STATUS "  left out (no struct layout depends on them): ${_shown}")
  endif()
  set(_log "${MPIMON_OMPI_CONFIGURED_DIR}/mpimon-configure.log")
  execute_process(
    COMMAND env "CC=${CMAKE_C_COMPILER}" "CXX=${CMAKE_CXX_COMPILER}" "${_source}/configure" ${_args}
    WORKING_DIRECTORY "${MPIMON_OMPI_CONFIGURED_DIR}" OUTPUT_FILE "${_log}" ERROR_FILE "${_log}.stderr"
    RESULT_VARIABLE _status)
  if(NOT _status EQUAL 0)
    # Configure's error line, and its last check (which often names the option:
    # "checking if --with-cuda is set... not found").
    file(STRINGS "${_log}.stderr" _errors REGEX "error:")
    file(STRINGS "${_log}" _out)
    list(FILTER _out INCLUDE REGEX "^checking |error:")
    list(LENGTH _out _count)
    math(EXPR _from "${_count} - 1")
    if(_from LESS 0)
      set(_from 0)
    endif()
    list(SUBLIST _out ${_from} 1 _last)
    list(APPEND _errors ${_last})
    list(REMOVE_DUPLICATES _errors)
    string(JOIN " / " _error ${_errors})
    set(_culprit "")
    foreach(_arg IN LISTS _args)
      string(REGEX REPLACE "=.*$" "" _option "${_arg}")
      string(FIND "${_error}" "${_option}" _at)
      if(_option MATCHES "^--(with|enable|without|disable)-" AND _at GREATER_EQUAL 0)
        set(_culprit "${_arg}")
      endif()
    endforeach()
    if(_culprit)
      set(_culprit "the option ${_culprit} cannot be reproduced here (install what it needs, e.g. its -dev package, or create the path it names, then run cmake again): ")
    endif()
    mpimon_ompi_refuse("Open MPI ${OMPI_VERSION}'s configure failed with the installation's configure line: ${_culprit}${_error} (log: ${_log})")
  endif()
  # mpi.h includes mpi_portable_platform.h, which Open MPI's Makefile links from the source
  # tree at make time (not configure): its own rule for that one header, nothing built.
  execute_process(COMMAND make -C ompi/include mpi_portable_platform.h
                  WORKING_DIRECTORY "${MPIMON_OMPI_CONFIGURED_DIR}" OUTPUT_QUIET ERROR_VARIABLE _make_errors
                  RESULT_VARIABLE _status)
  if(NOT _status EQUAL 0)
    mpimon_ompi_refuse("cannot make ompi/include/mpi_portable_platform.h in ${MPIMON_OMPI_CONFIGURED_DIR}: ${_make_errors}")
  endif()
  file(TOUCH "${_stamp}")
endif()
set(_cfg "${MPIMON_OMPI_CONFIGURED_DIR}")
if(NOT EXISTS "${_cfg}/opal/include/opal_config.h")
  mpimon_ompi_refuse("configure made no opal/include/opal_config.h in ${_cfg}: remove that folder and reconfigure")
endif()
file(STRINGS "${_cfg}/opal/include/opal_config.h" _debug_define REGEX "^#define OPAL_ENABLE_DEBUG ")
set(_configured_debug OFF)
if(_debug_define MATCHES "OPAL_ENABLE_DEBUG 1")
  set(_configured_debug ON)
endif()
if(NOT _configured_debug STREQUAL MPIMON_OMPI_DEBUG)
  mpimon_ompi_refuse("ompi_info says debug ${MPIMON_OMPI_DEBUG} but the reconfigured headers say OPAL_ENABLE_DEBUG ${_configured_debug} (${_cfg})")
endif()

# Include paths as Open MPI's own Makefiles have them: build and source tree roots, their
# */include folders, and the preprocessor flags configure chose for bundled or external
# hwloc, libevent and PMIx (the top-level Makefile's CPPFLAGS).
set(OMPI_INCLUDE_DIRS "${_cfg}/ompi/include" "${_source}/ompi/include" "${_cfg}/opal/include"
                      "${_source}/opal/include" "${_cfg}" "${_source}")
foreach(_sub orte oshmem)
  if(IS_DIRECTORY "${_source}/${_sub}/include")
    list(APPEND OMPI_INCLUDE_DIRS "${_cfg}/${_sub}/include" "${_source}/${_sub}/include")
  endif()
endforeach()
file(STRINGS "${_cfg}/Makefile" _cppflags REGEX "^CPPFLAGS = ")
string(REGEX MATCHALL "-I[^ ]+" _flags "${_cppflags}")
foreach(_flag IN LISTS _flags)
  string(SUBSTRING "${_flag}" 2 -1 _dir)
  string(REPLACE "$(top_srcdir)" "${_source}" _dir "${_dir}")
  string(REPLACE "$(top_builddir)" "${_cfg}" _dir "${_dir}")
  if(NOT _dir MATCHES "^/")
    set(_dir "${_cfg}/${_dir}")
  endif()
  # The compiler's own folders (configure adds /usr/local/include for external hwloc)
  # would come before its defaults for nothing, and let a stray mpi.h in.
  if(IS_DIRECTORY "${_dir}" AND NOT _dir MATCHES "^/usr(/local)?/include/?$")
    list(APPEND OMPI_INCLUDE_DIRS "${_dir}")
  endif()
endforeach()
list(REMOVE_DUPLICATES OMPI_INCLUDE_DIRS)

# The installation's own libraries and programs, by their plain names under the prefix.
foreach(_lib mpi open-pal)
  string(MAKE_C_IDENTIFIER "${_lib}" _id)
  unset(MPIMON_OMPI_LIB_${_id} CACHE)  # again for each configure: the prefix may have changed
  find_library(MPIMON_OMPI_LIB_${_id} NAMES ${_lib} PATHS ${_libdirs} NO_DEFAULT_PATH)
  if(NOT MPIMON_OMPI_LIB_${_id})
    mpimon_ompi_refuse("no lib${_lib}.so in ${_libdirs} (a static-only build? mpimon's plugins need a shared Open MPI)")
  endif()
endforeach()
set(OMPI_LINK_LIBRARIES "${MPIMON_OMPI_LIB_mpi}")
set(OPEN_PAL_LIBRARY "${MPIMON_OMPI_LIB_open_pal}")
get_filename_component(_libdir "${MPIMON_OMPI_LIB_mpi}" DIRECTORY)
set(OMPI_LIBRARY_DIRS "${_libdir}")
foreach(_program MPIRUN:mpirun MPICC:mpicc OMPI_INFO:ompi_info)
  string(REPLACE ":" ";" _pair "${_program}")
  list(GET _pair 0 _var)
  list(GET _pair 1 _name)
  unset(${_var}_EXECUTABLE CACHE)
  find_program(${_var}_EXECUTABLE NAMES ${_name} PATHS "${_prefix}/bin" NO_DEFAULT_PATH)
  if(NOT ${_var}_EXECUTABLE)
    mpimon_ompi_refuse("no ${_name} in ${_prefix}/bin (Spack removes mpirun from 4.x builds with ~legacylaunchers: build openmpi+legacylaunchers)")
  endif()
endforeach()
# Fortran is optional in a cluster build (CI's builds leave it out): the Fortran tests skip.
unset(MPIF90_EXECUTABLE CACHE)
find_program(MPIF90_EXECUTABLE NAMES mpifort mpif90 PATHS "${_prefix}/bin" NO_DEFAULT_PATH)
if(NOT MPIF90_EXECUTABLE)
  set(MPIF90_EXECUTABLE "")
endif()
message(STATUS "Open MPI ${OMPI_VERSION} at ${_prefix} (debug build: ${MPIMON_OMPI_DEBUG}), headers from ${_source} configured in ${_cfg}")
