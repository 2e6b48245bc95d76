// io adapter, MPI_T events side: data accesses and ompio's file-system operations ->
// the events of source "mpimon_io" (opal/mca/mpit_events/communication_events.h). The
// wrappers test io_event_flags (one load of this plugin's data, one branch) before
// anything else.
#pragma once

#include "io_monitoring.h"

#include <cstdint>

#include "live/listening_flag.h"

namespace mpimon::io {

// One byte per event type, kept by the events library: nonzero while a tool listens.
enum EventFlag { access_flag, fs_operation_flag };
union EventFlags {
  unsigned char flag[2];
  uint16_t any;
};
extern EventFlags io_event_flags __attribute__((visibility("hidden")));

inline bool events_listened() { return listening(io_event_flags.flag[access_flag]); }
inline bool fs_events_listened() { return listening(io_event_flags.flag[fs_operation_flag]); }

// Looks our event types up and starts mirroring their listeners.
void start_events(bool threaded);

// The offset an access event reports: the explicit one of _at calls, the individual file
// pointer before an individual call, -1 for shared-pointer calls. Also a safe point for
// queued events (an MPI-IO call's entry).
int64_t individual_offset(MonitoredFile& file, ompi_file_t* fh);
template <mpi_io::Access A>
int64_t access_offset(MonitoredFile& file, ompi_file_t* fh, int64_t explicit_offset) {
  constexpr int positioning = (static_cast<int>(A) % 6) / 2;  // 0 explicit, 1 individual, 2 shared
  if constexpr (positioning == 0) return explicit_offset;
  if constexpr (positioning == 1) return individual_offset(file, fh);
  return -1;
}

void access_event(ompi_file_t* fh, mpi_io::Access access, mpi_io::Call how, int64_t offset, uint64_t bytes,
                  uint64_t ticks, int result);
void fs_event(const ompi_file_t* fh, mpi_io::Direction direction, int64_t offset, uint64_t bytes, uint64_t entries);
// The file is closed: registrations bound to it receive nothing more.
void file_closed(const ompi_file_t* fh);

}  // namespace mpimon::io
