# The installed tree (docs/install.md). The build tree has the same layout, so that what
# runs from build/ runs the same from an installed prefix P:
#   P/bin/                 mpimon (finds P/lib/mpimon from its own location), mpimon-demo
#   P/lib/mpimon/          our MCA plugins, the engine, events, reordering libraries, the
#                          event logger (a private folder: Open MPI reads it through
#                          mca_base_component_path, never the dynamic linker's path)
#   P/libexec/mpimon/      the bundled example the demo runs
#   P/include/mpimon/      public headers and the Fortran module
#   P/lib/pkgconfig/       mpimon-reorder.pc
#   P/share/mpimon/        mpimon-env.sh (for POSIX shells)
#   P/share/modulefiles/   mpimon/<version>, for environment modules and Lmod
#   P/share/doc/mpimon/    README.md and docs/
# Fixed folder names, no GNUInstallDirs: the folders are found from each other by
# relative paths ($ORIGIN, the launcher, pkg-config's ${pcfiledir}), so any prefix works.
set(MPIMON_INSTALL_PLUGIN_DIR lib/mpimon)
set(MPIMON_INSTALL_LIBEXEC_DIR libexec/mpimon)
set(MPIMON_INSTALL_INCLUDE_DIR include/mpimon)
set(MPIMON_INSTALL_PKGCONFIG_DIR lib/pkgconfig)
set(MPIMON_INSTALL_DATA_DIR share/mpimon)
set(MPIMON_INSTALL_MODULEFILE_DIR share/modulefiles)
set(MPIMON_INSTALL_DOC_DIR share/doc/mpimon)

# What an installed tree holds, as one target: scripts/demo.sh builds only this (the
# demo runs nothing else), and `cmake --install` after it has everything it copies.
add_custom_target(mpimon_installable)

# install(TARGETS <target> <install(TARGETS) arguments...>) that also adds <target> to
# mpimon_installable. Every installed target goes through here.
function(mpimon_install target)
  install(TARGETS ${target} ${ARGN})
  add_dependencies(mpimon_installable ${target})
endfunction()

# The tests, their helper programs, the benchmarks and the fuzz targets: off for a build
# that is only run or installed (scripts/demo.sh configures a new build folder so).
option(MPIMON_BUILD_TESTS "Build the tests, benchmarks and fuzz targets" ON)

# mpimon_pkg_config(<name>.pc.in): two pkg-config files from one template, one for the
# build tree (build/lib/pkgconfig/<name>.pc, prefix: the build folder) and one installed
# (prefix: ${pcfiledir}/../.., so the tree works wherever it is installed). The template
# uses @pc_prefix@, @MPIMON_INSTALL_PLUGIN_DIR@, @MPIMON_INSTALL_INCLUDE_DIR@,
# @PROJECT_VERSION@.
function(mpimon_pkg_config template)
  get_filename_component(name ${template} NAME_WLE)
  set(pc_prefix ${CMAKE_BINARY_DIR})
  configure_file(${template} ${CMAKE_BINARY_DIR}/${MPIMON_INSTALL_PKGCONFIG_DIR}/${name} @ONLY)
  set(pc_prefix "\${pcfiledir}/../..")
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/installed/${name} DESTINATION ${MPIMON_INSTALL_PKGCONFIG_DIR})
endfunction()
