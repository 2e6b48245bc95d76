# A sanitizer build of the whole project (docs/development.md, "Sanitizer build"):
#   cmake -S . -B build-asan -DMPIMON_SANITIZE=address   AddressSanitizer + UndefinedBehaviorSanitizer
#   cmake -S . -B build-tsan -DMPIMON_SANITIZE=thread    ThreadSanitizer
# Everything we build is instrumented: the components, the engine and events libraries,
# the tools, the event logger, the tests and examples. Open MPI itself is not. Our plugins
# are loaded by uninstrumented code (Open MPI's loader, in processes mpirun starts), so the
# sanitizer runtime must be in the process before them: programs we build link it;
# uninstrumented ones (an application like LAMMPS, ompi_info, processes preloading the
# event logger) get it preloaded: MPIMON_SANITIZER_PRELOAD lists the runtime libraries for
# LD_PRELOAD (the test harness adds it to every mpirun it starts).
set(MPIMON_SANITIZE "" CACHE STRING "Instrument everything: address (ASan + UBSan) or thread (TSan); empty: none")
set_property(CACHE MPIMON_SANITIZE PROPERTY STRINGS "" address thread)

set(MPIMON_SANITIZER_PRELOAD "")
if(MPIMON_SANITIZE STREQUAL "address")
  # Every UBSan finding is fatal: a test cannot pass over one.
  set(_flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  set(_runtimes libasan.so libubsan.so)
elseif(MPIMON_SANITIZE STREQUAL "thread")
  set(_flags -fsanitize=thread -fno-omit-frame-pointer)
  set(_runtimes libtsan.so)
elseif(NOT MPIMON_SANITIZE STREQUAL "")
  message(FATAL_ERROR "MPIMON_SANITIZE='${MPIMON_SANITIZE}': expected address, thread or nothing")
endif()

# The runtime options of processes that run MPI (the test harness passes them to every
# rank; test/events to its suite): LeakSanitizer off, because Open MPI's own allocations
# outlive MPI_Finalize and MPI_T_finalize; a stack trace for every UBSan finding; TSan
# stops at its first report. UCX's memory hooks (loaded by Open MPI) break TSan's thread
# creation. Open MPI's own TSan reports (lock orders inside btl/tcp, ...) are
# suppressed by library (cmake/tsan-open-mpi.supp); none involving our code is.
set(MPIMON_SANITIZER_ENV "")
if(MPIMON_SANITIZE STREQUAL "address")
  set(MPIMON_SANITIZER_ENV "ASAN_OPTIONS=detect_leaks=0" "UBSAN_OPTIONS=print_stacktrace=1")
elseif(MPIMON_SANITIZE STREQUAL "thread")
  set(MPIMON_SANITIZER_ENV "TSAN_OPTIONS=halt_on_error=1:suppressions=${PROJECT_SOURCE_DIR}/cmake/tsan-open-mpi.supp"
      "UCX_MEM_EVENTS=no")
endif()

if(MPIMON_SANITIZE)
  add_compile_options(${_flags})
  add_link_options(${_flags})
  # GCC 12 warns wrongly about std::regex and std::function internals once instrumented.
  add_compile_options(-Wno-maybe-uninitialized)
  set(_preload "")
  foreach(_runtime ${_runtimes})
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_runtime}
                    OUTPUT_VARIABLE _path OUTPUT_STRIP_TRAILING_WHITESPACE)
    file(REAL_PATH "${_path}" _path)
    if(NOT EXISTS "${_path}")
      message(FATAL_ERROR "MPIMON_SANITIZE=${MPIMON_SANITIZE}: ${CMAKE_CXX_COMPILER} has no ${_runtime}")
    endif()
    list(APPEND _preload "${_path}")
  endforeach()
  string(JOIN ":" MPIMON_SANITIZER_PRELOAD ${_preload})
  message(STATUS "mpimon: ${MPIMON_SANITIZE} sanitizer build; runtime for uninstrumented programs: ${MPIMON_SANITIZER_PRELOAD}")
endif()
