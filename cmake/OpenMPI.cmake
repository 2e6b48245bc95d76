# Locate the system Open MPI through pkg-config (not FindMPI, which follows whatever
# mpicc alternative is selected and may find MPICH). Our plugins are built against
# Open MPI's internal headers, whose struct layouts change between release lines: the
# release line (4.1, 5.0) is detected here and chooses the adapter headers (MPIMON_OMPI_MAJOR_MINOR, see
# ompi/mca/common/monitoring/runtime/ompi-<major>.<minor>/ompi_release.h, docs/open-mpi-5.md).
#
# Where the headers come from, decided here only (components never know which):
# - no variable set: Debian's packages (libopenmpi-dev's --with-devel-headers install),
#   found through pkg-config, with Debian's program names (mpirun.openmpi, ...);
# - MPIMON_OMPI_PREFIX (an installation) + MPIMON_OMPI_SOURCE (its release's pristine
#   source tree): cmake/OpenMPIFromSource.cmake reconfigures the source with the
#   installation's recorded configure line; programs by their plain names under the prefix.
set(MPIMON_OMPI_PREFIX "$ENV{MPIMON_OMPI_PREFIX}" CACHE PATH
    "An Open MPI installation to build against (empty: Debian's packages)")
set(MPIMON_OMPI_SOURCE "$ENV{MPIMON_OMPI_SOURCE}" CACHE PATH
    "The pristine source tree of MPIMON_OMPI_PREFIX's release (its tarball unpacked)")
find_package(PkgConfig REQUIRED)
if(MPIMON_OMPI_PREFIX)
  include(${CMAKE_CURRENT_LIST_DIR}/OpenMPIFromSource.cmake)
else()
  pkg_check_modules(OMPI REQUIRED IMPORTED_TARGET ompi-c)
  set(MPIMON_OMPI_DEBUG OFF)  # Debian's packages are release builds (ompi_info: option:debug:no)
endif()

string(REPLACE "." ";" _ompi_ver "${OMPI_VERSION}")
list(LENGTH _ompi_ver _ompi_parts)
if(_ompi_parts LESS 3)
  message(FATAL_ERROR "pkg-config ompi-c reports version '${OMPI_VERSION}': expected <major>.<minor>.<release>")
endif()
list(GET _ompi_ver 0 MPIMON_OMPI_MAJOR)
list(GET _ompi_ver 1 MPIMON_OMPI_MINOR)
list(GET _ompi_ver 2 MPIMON_OMPI_RELEASE)
string(REGEX REPLACE "[^0-9].*" "" MPIMON_OMPI_RELEASE "${MPIMON_OMPI_RELEASE}")  # 5.0.7rc1 -> 7
if(OMPI_VERSION MATCHES "^4\\.1\\.")
  set(MPIMON_OMPI_MAJOR_MINOR 41)
elseif(OMPI_VERSION MATCHES "^5\\.0\\.")
  set(MPIMON_OMPI_MAJOR_MINOR 50)
elseif(OMPI_VERSION MATCHES "^6\\.0\\.")
  # 6.0.0~rc2 (Debian sid) and later 6.0.x: docs/open-mpi-6.md.
  set(MPIMON_OMPI_MAJOR_MINOR 60)
elseif(MPIMON_OMPI_MAJOR GREATER_EQUAL 6 OR OMPI_VERSION MATCHES "^5\\.[1-9]")
  message(FATAL_ERROR
    "pkg-config ompi-c reports Open MPI ${OMPI_VERSION}; mpimon supports the 4.1, 5.0 and 6.0 "
    "series. A port to a later Open MPI starts from 6.0's adapter (docs/open-mpi-6.md).")
else()
  message(FATAL_ERROR
    "mpimon needs the development headers of Open MPI 4.1.x (Debian 12's libopenmpi-dev) or 5.0.x "
    "(Debian 13's); pkg-config ompi-c reports version '${OMPI_VERSION}'. The MCA structs our plugins "
    "use differ in other releases, and Open MPI's loader does not check them.")
endif()
message(STATUS "Open MPI ${OMPI_VERSION}: mpimon's adapters for the ${MPIMON_OMPI_MAJOR}.${MPIMON_OMPI_MINOR} series")

# Our events library (opal/mca/mpit_events) defines the MPI_T_event_* functions itself: an
# Open MPI whose mpi.h declares them, or whose libmpi exports them (main/6.0, or a 4.1/5.0
# with the events backported), would get a second definition of each. Refuse rather than
# build clashing symbols (docs/open-mpi-5.md, "Open MPI 6.0 / main").
include(CheckSymbolExists)
include(CheckFunctionExists)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_INCLUDES ${OMPI_INCLUDE_DIRS})
set(CMAKE_REQUIRED_LIBRARIES ${OMPI_LINK_LIBRARIES})
set(CMAKE_REQUIRED_QUIET ON)
check_symbol_exists(MPI_T_event_register_callback "mpi.h" MPIMON_OMPI_DECLARES_MPIT_EVENTS)
check_function_exists(MPI_T_event_register_callback MPIMON_OMPI_EXPORTS_MPIT_EVENTS)
cmake_pop_check_state()
# 6.0 has them (mca_base_event): our library is built there without its public API, so
# nothing clashes; our components' events are not offered to tools until they are
# registered through mca_base_event (docs/open-mpi-6.md, "Events").
set(MPIMON_EVENTS_PUBLIC_API ON)
if(MPIMON_OMPI_MAJOR_MINOR EQUAL 60 AND (MPIMON_OMPI_DECLARES_MPIT_EVENTS OR MPIMON_OMPI_EXPORTS_MPIT_EVENTS))
  set(MPIMON_EVENTS_PUBLIC_API OFF)
  message(STATUS "Open MPI ${OMPI_VERSION} has MPI_T events of its own: mpimon's events library is built without "
                 "its MPI_T_event_* functions (docs/open-mpi-6.md)")
elseif(MPIMON_OMPI_DECLARES_MPIT_EVENTS OR MPIMON_OMPI_EXPORTS_MPIT_EVENTS)
  set(MPIMON_OMPI_HAS_MPIT_EVENTS ON)
  set(_declared no)
  set(_exported no)
  if(MPIMON_OMPI_DECLARES_MPIT_EVENTS)
    set(_declared yes)
  endif()
  if(MPIMON_OMPI_EXPORTS_MPIT_EVENTS)
    set(_exported yes)
  endif()
  message(FATAL_ERROR
    "Open MPI ${OMPI_VERSION} has MPI_T events of its own (mpi.h declares MPI_T_event_register_callback: "
    "${_declared}; its libraries export it: ${_exported}). mpimon's "
    "events library defines the same MPI_T_event_* functions and would clash with libmpi's; on such an Open MPI "
    "our events must be registered through its mca_base_event framework instead, which is designed but not "
    "built yet: docs/open-mpi-5.md, section \"Open MPI 6.0 / main\".")
endif()
set(MPIMON_OMPI_HAS_MPIT_EVENTS OFF)

if(NOT MPIMON_OMPI_PREFIX)
  # ompi-c.pc only names -lmpi; the plugins also call into libopen-pal.
  find_library(OPEN_PAL_LIBRARY NAMES open-pal HINTS ${OMPI_LIBRARY_DIRS} REQUIRED)
  find_program(MPIRUN_EXECUTABLE NAMES mpirun.openmpi REQUIRED)
  find_program(MPICC_EXECUTABLE NAMES mpicc.openmpi REQUIRED)
  find_program(MPIF90_EXECUTABLE NAMES mpif90.openmpi REQUIRED)
  find_program(OMPI_INFO_EXECUTABLE NAMES ompi_info REQUIRED)
endif()
# Which Open MPI this build is for, in one line: `mpimon --version`, share/mpimon/build-info,
# the modulefile; the plugins' run-time check names it when they decline
# (runtime/build_match.h).
set(_debug_text "release build")
if(MPIMON_OMPI_DEBUG)
  set(_debug_text "debug build")
endif()
if(MPIMON_OMPI_PREFIX)
  set(MPIMON_OMPI_LOCATION "at ${MPIMON_OMPI_PREFIX}, headers from ${MPIMON_OMPI_SOURCE}")
else()
  set(MPIMON_OMPI_LOCATION "from Debian's packages")
endif()
set(MPIMON_OMPI_BUILT_FOR "Open MPI ${OMPI_VERSION} (${_debug_text}) ${MPIMON_OMPI_LOCATION}")
# 6.0 moved Open MPI's internals (mca_pml, ompi_mpi_comm_world, ...) out of libmpi into
# libopen_mpi.
set(OPEN_MPI_LIBRARY "")
if(MPIMON_OMPI_MAJOR_MINOR EQUAL 60)
  find_library(OPEN_MPI_LIBRARY NAMES open_mpi HINTS ${OMPI_LIBRARY_DIRS} REQUIRED)
endif()
# Where Open MPI reads its system parameter file (openmpi-mca-params.conf: Debian's excludes
# UCX there), whose selections a monitored job merges (tools/mpimon/open_mpi_settings.h).
# `--path all`: 5.0.7's ompi_info prints nothing for `--path sysconfdir` (4.1.4 does).
execute_process(COMMAND ${OMPI_INFO_EXECUTABLE} --path all --parsable
                OUTPUT_VARIABLE _paths OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _status)
set(OMPI_SYSCONFDIR "")
if(_status EQUAL 0 AND _paths MATCHES "(^|\n)path:sysconfdir:([^\n]+)")
  set(OMPI_SYSCONFDIR "${CMAKE_MATCH_2}")
else()
  message(WARNING "${OMPI_INFO_EXECUTABLE} --path all --parsable named no sysconfdir: "
                  "monitored jobs will not merge the selections of Open MPI's system parameter file")
endif()

# The release adapter headers (ompi_release.h and what it needs) and, on 5.0, the
# external PMIx (its headers are not in ompi-c.pc's flags) and our stand-ins for the
# headers Open MPI 5.0.x's devel package lacks (docs/open-mpi-5.md, "Missing headers").
set(MPIMON_OMPI_ADAPTER_DIR
  ${CMAKE_SOURCE_DIR}/ompi/mca/common/monitoring/runtime/ompi-${MPIMON_OMPI_MAJOR}.${MPIMON_OMPI_MINOR})
set(MPIMON_OMPI_INCLUDE_DIRS ${OMPI_INCLUDE_DIRS})
set(MPIMON_PMIX_COMPONENT_DIR "")
if(MPIMON_OMPI_MAJOR_MINOR EQUAL 50 OR MPIMON_OMPI_MAJOR_MINOR EQUAL 60)
  if(MPIMON_OMPI_PREFIX)
    # The libpmix this installation's libopen-pal really loads (the loader's answer covers
    # bundled, --with-pmix=<dir>, --with-pmix=external and a runpath alike); failing that,
    # the prefix, then where configure was told (--with-pmix=<dir>). Its headers are on
    # OMPI_INCLUDE_DIRS (configure's CPPFLAGS).
    set(_pmix_hints ${_libdirs})
    if(_cli MATCHES "'--with-pmix=(/[^']+)'")
      list(APPEND _pmix_hints "${CMAKE_MATCH_1}/lib" "${CMAKE_MATCH_1}/lib64")
    endif()
    execute_process(COMMAND ldd "${OPEN_PAL_LIBRARY}" OUTPUT_VARIABLE _ldd ERROR_QUIET)
    if(_ldd MATCHES "libpmix\\.so[^ ]* => (/[^ ]+)/libpmix")
      list(PREPEND _pmix_hints "${CMAKE_MATCH_1}")
    endif()
    unset(MPIMON_PMIX_LIBRARY CACHE)
    find_library(MPIMON_PMIX_LIBRARY NAMES pmix PATHS ${_pmix_hints} NO_DEFAULT_PATH)
    if(NOT MPIMON_PMIX_LIBRARY)
      message(FATAL_ERROR "MPIMON_OMPI_PREFIX=${MPIMON_OMPI_PREFIX}: no libpmix in ${_pmix_hints}")
    endif()
    set(PMIX_LINK_LIBRARIES "${MPIMON_PMIX_LIBRARY}")
    set(PMIX_INCLUDE_DIRS "")
    get_filename_component(_pmix_libdir "${MPIMON_PMIX_LIBRARY}" DIRECTORY)
  else()
    pkg_check_modules(PMIX REQUIRED pmix)
    pkg_get_variable(_pmix_libdir pmix libdir)
  endif()
  # PMIx's own plugin folder: a job with our component path names it to PMIx, which
  # otherwise reads Open MPI's path too and complains in every rank (docs/open-mpi-5.md).
  set(MPIMON_PMIX_COMPONENT_DIR "${_pmix_libdir}/pmix")
  # Only the stand-ins for headers this installation really lacks (a later package may
  # ship them), first on the path; event.h's wrapper always (it fixes the installed one).
  set(MPIMON_OMPI_COMPAT_DIR ${CMAKE_BINARY_DIR}/ompi-compat)
  file(REMOVE_RECURSE ${MPIMON_OMPI_COMPAT_DIR})
  # 6.0 lacks the same three headers, of unchanged layouts: 5.0's stand-ins serve
  # (docs/open-mpi-6.md, "Missing headers"); its event.h needs no wrapper.
  set(_standin_dir ${CMAKE_SOURCE_DIR}/ompi/mca/common/monitoring/runtime/ompi-5.0/include)
  file(GLOB_RECURSE _standins RELATIVE ${_standin_dir} ${_standin_dir}/*.h)
  foreach(_header IN LISTS _standins)
    set(_installed FALSE)
    foreach(_dir IN LISTS OMPI_INCLUDE_DIRS)
      if(EXISTS ${_dir}/${_header})
        set(_installed TRUE)
      endif()
    endforeach()
    if(_header STREQUAL "opal/util/event.h" AND MPIMON_OMPI_MAJOR_MINOR EQUAL 60)
      continue()
    endif()
    if(NOT _installed OR _header STREQUAL "opal/util/event.h")
      configure_file(${_standin_dir}/${_header} ${MPIMON_OMPI_COMPAT_DIR}/${_header} COPYONLY)
    endif()
  endforeach()
  # 6.0's own wrappers, always (they replace installed headers C++ cannot compile).
  if(MPIMON_OMPI_MAJOR_MINOR EQUAL 60)
    file(GLOB_RECURSE _wrappers RELATIVE ${MPIMON_OMPI_ADAPTER_DIR}/include ${MPIMON_OMPI_ADAPTER_DIR}/include/*.h)
    foreach(_header IN LISTS _wrappers)
      configure_file(${MPIMON_OMPI_ADAPTER_DIR}/include/${_header} ${MPIMON_OMPI_COMPAT_DIR}/${_header} COPYONLY)
    endforeach()
  endif()
  # First: Open MPI's own headers include these by name.
  set(MPIMON_OMPI_INCLUDE_DIRS ${MPIMON_OMPI_COMPAT_DIR} ${OMPI_INCLUDE_DIRS} ${PMIX_INCLUDE_DIRS})
endif()

# Internal Open MPI headers, as -isystem (C++20 warns a lot about volatile in them).
add_library(mpimon_ompi_internal INTERFACE)
target_include_directories(mpimon_ompi_internal SYSTEM INTERFACE ${MPIMON_OMPI_INCLUDE_DIRS})
target_include_directories(mpimon_ompi_internal INTERFACE ${MPIMON_OMPI_ADAPTER_DIR})
target_link_libraries(mpimon_ompi_internal INTERFACE ${OMPI_LINK_LIBRARIES} ${OPEN_MPI_LIBRARY} ${OPEN_PAL_LIBRARY} ${PMIX_LINK_LIBRARIES})
if(MPIMON_OMPI_MAJOR_MINOR EQUAL 60)
  # 6.0's internal headers use C11's _Static_assert, which C++ spells static_assert.
  target_compile_definitions(mpimon_ompi_internal INTERFACE $<$<COMPILE_LANGUAGE:CXX>:_Static_assert=static_assert>)
endif()
target_compile_definitions(mpimon_ompi_internal INTERFACE
  OMPI_SKIP_MPICXX=1
  MPIMON_OMPI_MAJOR_MINOR=${MPIMON_OMPI_MAJOR_MINOR}
  MPIMON_BUILT_OMPI_MAJOR=${MPIMON_OMPI_MAJOR}
  MPIMON_BUILT_OMPI_MINOR=${MPIMON_OMPI_MINOR}
  MPIMON_BUILT_OMPI_RELEASE=${MPIMON_OMPI_RELEASE}
  MPIMON_OMPI_LOCATION="${MPIMON_OMPI_LOCATION}")

# Public MPI only (tests, examples, tools that run MPI code).
add_library(mpimon_mpi INTERFACE)
target_include_directories(mpimon_mpi SYSTEM INTERFACE ${MPIMON_OMPI_INCLUDE_DIRS})
target_link_libraries(mpimon_mpi INTERFACE ${OMPI_LINK_LIBRARIES})
# C++ code uses the C bindings only (the deprecated MPI C++ bindings need libmpi_cxx).
target_compile_definitions(mpimon_mpi INTERFACE OMPI_SKIP_MPICXX=1)

# An MCA plugin: mca_<framework>_<component>.so, no lib prefix, only the component
# symbol visible, every symbol resolved at link time.
#   mpimon_add_plugin(<target> <framework> [COMPONENT <name>] [WITHOUT_ENGINE] [OUTPUT_DIRECTORY <dir>] <sources>...)
# COMPONENT: default mpimon, our components' name (docs/open-mpi-5.md, "Loading"; linked to
# the engine, libmpimon_monitoring, unless WITHOUT_ENGINE); other components link what they
# need themselves. OUTPUT_DIRECTORY: a variant built elsewhere for the benchmarks (never
# installed). The sources get the name as MPIMON_COMPONENT_NAME ("mpimon") and the symbol
# Open MPI looks for as MPIMON_COMPONENT_SYMBOL (mca_<framework>_<component>_component).
function(mpimon_add_plugin target framework)
  cmake_parse_arguments(PARSE_ARGV 2 arg "WITHOUT_ENGINE" "OUTPUT_DIRECTORY;COMPONENT" "")
  if(NOT arg_COMPONENT)
    set(arg_COMPONENT mpimon)
  endif()
  # Every plugin checks, before anything else, that the loaded Open MPI is the build it
  # was made for (runtime/build_match_ompi.h); its own copy: it must not need the engine.
  set(check ${MPIMON_MONITORING_DIR}/runtime)
  add_library(${target} MODULE ${arg_UNPARSED_ARGUMENTS}
    ${check}/build_match_ompi.cpp ${check}/build_match.cpp ${check}/mca_values.cpp)
  target_include_directories(${target} PRIVATE ${MPIMON_MONITORING_DIR})
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME "mca_${framework}_${arg_COMPONENT}"
    LIBRARY_OUTPUT_DIRECTORY ${MPIMON_PLUGIN_DIR}
    CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN" BUILD_RPATH "$ORIGIN")
  if(arg_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY} BUILD_RPATH "${MPIMON_PLUGIN_DIR}")
  else()
    mpimon_install(${target} LIBRARY DESTINATION ${MPIMON_INSTALL_PLUGIN_DIR})
  endif()
  # Hidden visibility does not cover the standard library's template instantiations
  # (namespace std has default visibility): a version script keeps the component symbol
  # the only export.
  set(exports ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
  file(WRITE ${exports} "{ global: mca_${framework}_${arg_COMPONENT}_component; local: *; };\n")
  # -z nodelete: Open MPI may dlclose a plugin (ompi_info closes every component it
  # opened) while variables we registered by name (runtime/mca_values_ompi.h) still point at its
  # storage, which Open MPI frees at its own finalize: our code and data stay mapped.
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${exports} -Wl,-z,nodelete)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${exports})
  # One include root per component, its folder: sub-folders are named in includes
  # ("wait_states/window_tracker.h").
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE mpimon_ompi_internal)
  if(arg_COMPONENT STREQUAL "mpimon" AND NOT arg_WITHOUT_ENGINE)
    target_link_libraries(${target} PRIVATE mpimon_monitoring)
  endif()
  # Calls into other libraries (the events library's raise, Open MPI's functions) go
  # through the GOT directly, one instruction less than through a PLT stub; every symbol
  # is resolved when Open MPI loads the plugin (it must be anyway: --no-undefined).
  target_compile_options(${target} PRIVATE -fno-plt)
  # The PML's send wrappers forward their six register arguments as they came
  # (pml_monitoring_module.cpp), which leaves three scratch registers for the recording:
  # GCC's default register allocator moves an argument aside and back per message there
  # (2 to 4 instructions per send), its priority algorithm does not.
  if(framework STREQUAL "pml" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -fira-algorithm=priority)
  endif()
  target_compile_definitions(${target} PRIVATE
    MPIMON_COMPONENT_NAME="${arg_COMPONENT}"
    MPIMON_COMPONENT_SYMBOL=mca_${framework}_${arg_COMPONENT}_component
    MPIMON_VERSION_MAJOR=${PROJECT_VERSION_MAJOR}
    MPIMON_VERSION_MINOR=${PROJECT_VERSION_MINOR}
    MPIMON_VERSION_PATCH=${PROJECT_VERSION_PATCH})
endfunction()
