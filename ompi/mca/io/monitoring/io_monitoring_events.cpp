// MPI-IO MPI_T events. Access events are raised when the application's MPI-IO call
// returns, in its context (callbacks may call MPI: no requirement, or thread safety under
// MPI_THREAD_MULTIPLE); file-system operations inside ompio, possibly in the progress of a
// nonblocking access (callbacks must not call MPI).
#include "io_monitoring_events.h"

#include <string_view>

#include "communication_events.h"
#include "mpit_events_producer.h"
#include "runtime/runtime.h"

namespace mpimon::io {

EventFlags io_event_flags{};

namespace {

// The event's kind numbers are the records' Access values.
constexpr std::string_view kEventKinds[] = {
#define MPIMON_IO_EVENT_KIND(name) #name,
    MPIMON_IO_ACCESS_KINDS_C(MPIMON_IO_EVENT_KIND)
#undef MPIMON_IO_EVENT_KIND
};
#define MPIMON_IO_RECORD_KIND(name) std::string_view(#name),
constexpr std::string_view kRecordKinds[] = {MPIMON_IO_ACCESS_KINDS(MPIMON_IO_RECORD_KIND)};
#undef MPIMON_IO_RECORD_KIND
constexpr bool same_kinds() {
  if (std::size(kEventKinds) != std::size(kRecordKinds)) return false;
  for (size_t i = 0; i < std::size(kEventKinds); ++i)
    if (kEventKinds[i] != kRecordKinds[i]) return false;
  return true;
}
static_assert(same_kinds(), "communication_events.h and file_record.h list the accesses in one order");

int access_index = -1, fs_index = -1;
MPI_T_cb_safety application_context = MPI_T_CB_REQUIRE_NONE;
MPI_T_cb_safety inner_context = MPI_T_CB_REQUIRE_MPI_RESTRICTED;

}  // namespace

void start_events(bool threaded) {
  application_context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE;
  inner_context = threaded ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  access_index = mpimon_events_find_type(MPIMON_EVENT_IO_ACCESS);
  fs_index = mpimon_events_find_type(MPIMON_EVENT_IO_FS_OPERATION);
  if (access_index >= 0) mpimon_events_watch(access_index, &io_event_flags.flag[access_flag]);
  if (fs_index >= 0) mpimon_events_watch(fs_index, &io_event_flags.flag[fs_operation_flag]);
}

int64_t individual_offset(MonitoredFile& file, ompi_file_t* fh) {
  mpimon_events_drain(application_context);
  OMPI_MPI_OFFSET_TYPE offset = -1;
  if (file.real->io_module_file_get_position == nullptr ||
      file.real->io_module_file_get_position(fh, &offset) != OMPI_SUCCESS)
    return -1;
  return offset;
}

void access_event(ompi_file_t* fh, mpi_io::Access access, mpi_io::Call how, int64_t offset, uint64_t bytes,
                  uint64_t ticks, int result) {
  mpimon_io_access_event e{};
  e.file_id = fh->f_f_to_c_index;
  e.kind = static_cast<int32_t>(access);
  e.call = static_cast<int32_t>(how);
  e.result = result;
  e.offset = offset;
  e.bytes = bytes;
  e.seconds = static_cast<double>(ticks) * Runtime::instance().files.clock().seconds_per_tick();
  mpimon_events_raise(access_index, fh, &e, MPIMON_EVENTS_NOW, application_context);
}

void fs_event(const ompi_file_t* fh, mpi_io::Direction direction, int64_t offset, uint64_t bytes, uint64_t entries) {
  mpimon_io_fs_event e{};
  e.file_id = fh->f_f_to_c_index;
  e.direction = static_cast<int32_t>(direction);
  e.offset = offset;
  e.bytes = bytes;
  e.entries = entries;
  mpimon_events_raise(fs_index, fh, &e, MPIMON_EVENTS_NOW, inner_context);
}

void file_closed(const ompi_file_t* fh) { mpimon_events_object_freed(MPI_T_BIND_MPI_FILE, fh); }

}  // namespace mpimon::io
