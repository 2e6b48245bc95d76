# Locate the system Open MPI through pkg-config (not FindMPI, which follows whatever
# mpicc alternative is selected and may find MPICH). Our plugins are built against
# Open MPI's internal headers, whose struct layouts change between releases: only
# 4.1.x is accepted.
find_package(PkgConfig REQUIRED)
pkg_check_modules(OMPI REQUIRED IMPORTED_TARGET ompi-c)

if(NOT OMPI_VERSION MATCHES "^4\\.1\\.")
  message(FATAL_ERROR
    "mpimon needs Open MPI 4.1.x development headers (Debian 12's libopenmpi-dev); "
    "pkg-config ompi-c reports version '${OMPI_VERSION}'. The MCA structs our plugins "
    "use differ in other releases, and Open MPI's loader does not check them.")
endif()
string(REPLACE "." ";" _ompi_ver "${OMPI_VERSION}")
list(GET _ompi_ver 0 MPIMON_OMPI_MAJOR)
list(GET _ompi_ver 1 MPIMON_OMPI_MINOR)
list(GET _ompi_ver 2 MPIMON_OMPI_RELEASE)

# ompi-c.pc only names -lmpi; the plugins also call into libopen-pal.
find_library(OPEN_PAL_LIBRARY NAMES open-pal HINTS ${OMPI_LIBRARY_DIRS} REQUIRED)

find_program(MPIRUN_EXECUTABLE NAMES mpirun.openmpi REQUIRED)
find_program(MPICC_EXECUTABLE NAMES mpicc.openmpi REQUIRED)
find_program(MPIF90_EXECUTABLE NAMES mpif90.openmpi REQUIRED)
find_program(OMPI_INFO_EXECUTABLE NAMES ompi_info REQUIRED)

# Internal Open MPI headers, as -isystem (C++20 warns a lot about volatile in them).
add_library(mpimon_ompi_internal INTERFACE)
target_include_directories(mpimon_ompi_internal SYSTEM INTERFACE ${OMPI_INCLUDE_DIRS})
target_link_libraries(mpimon_ompi_internal INTERFACE ${OMPI_LINK_LIBRARIES} ${OPEN_PAL_LIBRARY})
target_compile_definitions(mpimon_ompi_internal INTERFACE
  OMPI_SKIP_MPICXX=1
  MPIMON_BUILT_OMPI_MAJOR=${MPIMON_OMPI_MAJOR}
  MPIMON_BUILT_OMPI_MINOR=${MPIMON_OMPI_MINOR}
  MPIMON_BUILT_OMPI_RELEASE=${MPIMON_OMPI_RELEASE})

# Public MPI only (tests, examples, tools that run MPI code).
add_library(mpimon_mpi INTERFACE)
target_include_directories(mpimon_mpi SYSTEM INTERFACE ${OMPI_INCLUDE_DIRS})
target_link_libraries(mpimon_mpi INTERFACE ${OMPI_LINK_LIBRARIES})
# C++ code uses the C bindings only (the deprecated MPI C++ bindings need libmpi_cxx).
target_compile_definitions(mpimon_mpi INTERFACE OMPI_SKIP_MPICXX=1)

# An MCA plugin: mca_<framework>_<component>.so, no lib prefix, only the component
# symbol visible, every symbol resolved at link time.
#   mpimon_add_plugin(<target> <framework> [COMPONENT <name>] [OUTPUT_DIRECTORY <dir>] <sources>...)
# COMPONENT: default monitoring (linked to the engine, libmpimon_monitoring); other
# components link what they need themselves. OUTPUT_DIRECTORY: a variant built elsewhere
# for the benchmarks (never installed).
function(mpimon_add_plugin target framework)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "OUTPUT_DIRECTORY;COMPONENT" "")
  if(NOT arg_COMPONENT)
    set(arg_COMPONENT monitoring)
  endif()
  add_library(${target} MODULE ${arg_UNPARSED_ARGUMENTS})
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
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${exports})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${exports})
  # One include root per component, its folder: sub-folders are named in includes
  # ("wait_states/window_tracker.h").
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE mpimon_ompi_internal)
  if(arg_COMPONENT STREQUAL "monitoring")
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
    MPIMON_VERSION_MAJOR=${PROJECT_VERSION_MAJOR}
    MPIMON_VERSION_MINOR=${PROJECT_VERSION_MINOR}
    MPIMON_VERSION_PATCH=${PROJECT_VERSION_PATCH})
endfunction()
