// io adapter: MPI-IO calls -> I/O records (ompi/mca/common/monitoring/mpi_io).
//
// Open MPI's io framework does not stack modules: one module per file, copied by value
// into the ompi_file_t when the file is opened. Our component therefore selects the real
// module itself (io_monitoring_component.cpp, file_query): it asks the other components,
// keeps the best, and returns that module's table with our wrappers in the entries we
// count, and the winner's private data, so that the real functions find theirs in
// f_io_selected_data. Everything that reads Open MPI structs beyond the io module is in
// io_monitoring_ompio.cpp (the one file a 5.0 adapter touches).
#pragma once

#include "runtime/ompi_glue.h"

#include <atomic>

#include <ompi/file/file.h>
#include <ompi/mca/io/io.h>

#include "analyses/mpi_io/file_registry.h"

namespace mpimon::io {

// The io API's version: 2.0.0 up to 5.0, 3.0.0 (size_t counts) from 6.0 on, whose
// adapter (runtime/ompi-6.0) names it.
#ifndef MPIMON_IO_BASE_VERSION
#define MPIMON_IO_COMPONENT_TYPE mca_io_base_component_2_0_0_t
#define MPIMON_IO_MODULE_TYPE mca_io_base_module_2_0_0_t
#define MPIMON_IO_BASE_VERSION MCA_IO_BASE_VERSION_2_0_0
#endif
using Module = MPIMON_IO_MODULE_TYPE;
using Component = MPIMON_IO_COMPONENT_TYPE;

// What the adapter keeps per open file (found by the file's Fortran index).
struct MonitoredFile {
  const Module* real = nullptr;  // the winner's module: its functions
  const Component* real_component = nullptr;
  mpi_io::FileRecord* record = nullptr;  // null until the open succeeded
  bool ompio = false;
  struct FileSystem;  // io_monitoring_ompio.cpp: ompio's fbtl, wrapped
  FileSystem* file_system = nullptr;
  uint64_t file_system_operations = 0;  // fbtl calls so far (aggregator detection)
  const char* fcoll = nullptr;          // ompio: the fcoll component's name, last seen
};

// io_monitoring_module.cpp
// The module our file_query returns for a file whose winner is `real` (one table per
// winning module, built once).
const Module* monitoring_module(const Module* real);
// The file's state, created by file_query (before the open) and dropped after close.
MonitoredFile* new_monitored_file(ompi_file_t* fh, const Module* real, const Component* component);
MonitoredFile* monitored_file(const ompi_file_t* fh);
void drop_monitored_file(const ompi_file_t* fh);
// Recording on or off (our own dump traffic; a mixed deployment).
void set_recording(bool on);
extern std::atomic<bool> recording_now __attribute__((visibility("hidden")));
inline bool recording() { return recording_now.load(std::memory_order_relaxed); }

// io_monitoring_ompio.cpp
namespace ompio {
// What the io base does when it selects "ompio" itself (it never sees that name when we
// win): open the fs, fcoll, fbtl and sharedfp frameworks. OMPI_SUCCESS or an error.
int open_frameworks();
// After ompio opened the file: its fbtl operations go through our copy of its module.
void wrap_file_system(ompi_file_t* fh, MonitoredFile& file);
// After ompio closed the file.
void release_file_system(MonitoredFile& file);
// The fcoll component of the file's current view ("" if none).
const char* fcoll_name(const ompi_file_t* fh);
}  // namespace ompio

// Context ids of the live communicators (Open MPI's table), one bit each.
std::vector<uint64_t> live_context_ids();

}  // namespace mpimon::io
