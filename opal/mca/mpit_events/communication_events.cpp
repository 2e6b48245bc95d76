// Registers the communication event catalogue (communication_events.h) with the
// events library: four ORDERED sources, twelve event types.
#include "communication_events.h"

#include <cstddef>
#include <mutex>
#include <string>

#include "catalogue_registration.h"
#include "mpit_events_producer.h"

namespace {

using mpimon::events::register_event_type;
using mpimon::events::register_ordered_source;

#define MPIMON_NAME_ITEM(name) #name ","
// "a,b,c," -> "a,b,c" (the X-lists expand to a trailing comma).
std::string names(const char* with_trailing_comma) {
  std::string s = with_trailing_comma;
  if (!s.empty()) s.pop_back();
  return s;
}

// One function per layer; the order of registration is the order of the indices tools see
// (sources pml, coll, osc, then their types, then io's source and types): kept as it was.
void register_pml_types(int pml) {
  static const mpimon_event_element pml_elements[] = {
      {"comm_id", MPI_INT, offsetof(mpimon_pml_event, comm_id)},
      {"peer", MPI_INT, offsetof(mpimon_pml_event, peer)},
      {"peer_comm_rank", MPI_INT, offsetof(mpimon_pml_event, peer_comm_rank)},
      {"tag", MPI_INT, offsetof(mpimon_pml_event, tag)},
      {"bytes", MPI_UINT64_T, offsetof(mpimon_pml_event, bytes)},
      {"request", MPI_UINT64_T, offsetof(mpimon_pml_event, request)},
  };
  const int n_pml = sizeof pml_elements / sizeof pml_elements[0];
  register_event_type(
      MPIMON_EVENT_PML_SEND_POSTED,
      "a send was posted (MPI_Send, MPI_Isend, a persistent send started, or a send inside a collective)",
      MPI_T_BIND_MPI_COMM, pml, pml_elements, n_pml, sizeof(mpimon_pml_event), nullptr);
  register_event_type(MPIMON_EVENT_PML_RECV_POSTED,
                      "a receive was posted (peer -1 and peer_comm_rank MPI_ANY_SOURCE for wildcard receives)",
                      MPI_T_BIND_MPI_COMM, pml, pml_elements, n_pml, sizeof(mpimon_pml_event), nullptr);
  register_event_type(MPIMON_EVENT_PML_SEND_COMPLETED, "a send completed (its buffer may be reused)",
                      MPI_T_BIND_MPI_COMM, pml, pml_elements, n_pml, sizeof(mpimon_pml_event), nullptr);
  register_event_type(MPIMON_EVENT_PML_RECV_COMPLETED, "a receive completed: actual source, tag and received bytes",
                      MPI_T_BIND_MPI_COMM, pml, pml_elements, n_pml, sizeof(mpimon_pml_event), nullptr);
}

void register_coll_types(int coll) {
  static const std::string coll_kinds = names(MPIMON_COLL_KINDS(MPIMON_NAME_ITEM));
  static const char* const coll_info[] = {"mpimon_enum_kind", coll_kinds.c_str(), nullptr};
  static const mpimon_event_element coll_elements[] = {
      {"comm_id", MPI_INT, offsetof(mpimon_coll_event, comm_id)},
      {"kind", MPI_INT, offsetof(mpimon_coll_event, kind)},
      {"root", MPI_INT, offsetof(mpimon_coll_event, root)},
      {"bytes", MPI_UINT64_T, offsetof(mpimon_coll_event, bytes)},
      {"request", MPI_UINT64_T, offsetof(mpimon_coll_event, request)},
  };
  const int n_coll = sizeof coll_elements / sizeof coll_elements[0];
  register_event_type(MPIMON_EVENT_COLL_BEGIN, "a collective was called", MPI_T_BIND_MPI_COMM, coll, coll_elements,
                      n_coll, sizeof(mpimon_coll_event), coll_info);
  register_event_type(MPIMON_EVENT_COLL_END,
                      "a collective completed (blocking: returned; nonblocking: its request completed)",
                      MPI_T_BIND_MPI_COMM, coll, coll_elements, n_coll, sizeof(mpimon_coll_event), coll_info);
}

void register_osc_types(int osc) {
  static const std::string op_kinds = names(MPIMON_OSC_OP_KINDS(MPIMON_NAME_ITEM));
  static const char* const op_info[] = {"mpimon_enum_kind", op_kinds.c_str(), nullptr};
  static const mpimon_event_element op_elements[] = {
      {"win_id", MPI_INT, offsetof(mpimon_osc_op_event, win_id)},
      {"kind", MPI_INT, offsetof(mpimon_osc_op_event, kind)},
      {"target", MPI_INT, offsetof(mpimon_osc_op_event, target)},
      {"target_rank", MPI_INT, offsetof(mpimon_osc_op_event, target_rank)},
      {"bytes_sent", MPI_UINT64_T, offsetof(mpimon_osc_op_event, bytes_sent)},
      {"bytes_recv", MPI_UINT64_T, offsetof(mpimon_osc_op_event, bytes_recv)},
  };
  register_event_type(MPIMON_EVENT_OSC_OP_ISSUED, "a one-sided operation was issued at the origin", MPI_T_BIND_MPI_WIN,
                      osc, op_elements, sizeof op_elements / sizeof op_elements[0], sizeof(mpimon_osc_op_event),
                      op_info);

  static const std::string sync_kinds = names(MPIMON_OSC_SYNC_KINDS(MPIMON_NAME_ITEM));
  static const char* const sync_info[] = {"mpimon_enum_kind", sync_kinds.c_str(), nullptr};
  static const mpimon_event_element sync_elements[] = {
      {"win_id", MPI_INT, offsetof(mpimon_osc_sync_event, win_id)},
      {"kind", MPI_INT, offsetof(mpimon_osc_sync_event, kind)},
      {"target", MPI_INT, offsetof(mpimon_osc_sync_event, target)},
      {"result", MPI_INT, offsetof(mpimon_osc_sync_event, result)},
  };
  const int n_sync = sizeof sync_elements / sizeof sync_elements[0];
  register_event_type(MPIMON_EVENT_OSC_SYNC_BEGIN, "a window synchronisation call began", MPI_T_BIND_MPI_WIN, osc,
                      sync_elements, n_sync, sizeof(mpimon_osc_sync_event), sync_info);
  register_event_type(MPIMON_EVENT_OSC_SYNC_END, "a window synchronisation call returned", MPI_T_BIND_MPI_WIN, osc,
                      sync_elements, n_sync, sizeof(mpimon_osc_sync_event), sync_info);

  static const std::string wait_patterns = names(MPIMON_OSC_WAIT_PATTERNS(MPIMON_NAME_ITEM));
  static const char* const wait_info[] = {"mpimon_enum_pattern", wait_patterns.c_str(), nullptr};
  static const mpimon_event_element wait_elements[] = {
      {"win_id", MPI_INT, offsetof(mpimon_osc_wait_event, win_id)},
      {"pattern", MPI_INT, offsetof(mpimon_osc_wait_event, pattern)},
      {"waiter", MPI_INT, offsetof(mpimon_osc_wait_event, waiter)},
      {"culprit", MPI_INT, offsetof(mpimon_osc_wait_event, culprit)},
      {"seconds", MPI_DOUBLE, offsetof(mpimon_osc_wait_event, seconds)},
  };
  register_event_type(
      MPIMON_EVENT_OSC_WAIT_STATE,
      "a one-sided wait state was detected (osc_monitoring_wait_states 1): this process waited `seconds` for "
      "`culprit` in the pattern `pattern`",
      MPI_T_BIND_MPI_WIN, osc, wait_elements, sizeof wait_elements / sizeof wait_elements[0],
      sizeof(mpimon_osc_wait_event), wait_info);
}

void register_io_source_and_types() {
  const int io = register_ordered_source("mpimon_io", "mpimon MPI-IO layer");
  static const std::string io_kinds = names(MPIMON_IO_ACCESS_KINDS_C(MPIMON_NAME_ITEM));
  static const std::string io_calls = names(MPIMON_IO_CALLS(MPIMON_NAME_ITEM));
  static const char* const io_info[] = {"mpimon_enum_kind", io_kinds.c_str(), "mpimon_enum_call", io_calls.c_str(),
                                        nullptr};
  static const mpimon_event_element io_elements[] = {
      {"file_id", MPI_INT, offsetof(mpimon_io_access_event, file_id)},
      {"kind", MPI_INT, offsetof(mpimon_io_access_event, kind)},
      {"call", MPI_INT, offsetof(mpimon_io_access_event, call)},
      {"result", MPI_INT, offsetof(mpimon_io_access_event, result)},
      {"offset", MPI_INT64_T, offsetof(mpimon_io_access_event, offset)},
      {"bytes", MPI_UINT64_T, offsetof(mpimon_io_access_event, bytes)},
      {"seconds", MPI_DOUBLE, offsetof(mpimon_io_access_event, seconds)},
  };
  register_event_type(MPIMON_EVENT_IO_ACCESS,
                      "an MPI-IO data access returned (read or write, any positioning and coordination)",
                      MPI_T_BIND_MPI_FILE, io, io_elements, sizeof io_elements / sizeof io_elements[0],
                      sizeof(mpimon_io_access_event), io_info);
  static const mpimon_event_element fs_elements[] = {
      {"file_id", MPI_INT, offsetof(mpimon_io_fs_event, file_id)},
      {"direction", MPI_INT, offsetof(mpimon_io_fs_event, direction)},
      {"offset", MPI_INT64_T, offsetof(mpimon_io_fs_event, offset)},
      {"bytes", MPI_UINT64_T, offsetof(mpimon_io_fs_event, bytes)},
      {"entries", MPI_UINT64_T, offsetof(mpimon_io_fs_event, entries)},
  };
  register_event_type(MPIMON_EVENT_IO_FS_OPERATION,
                      "ompio handed an operation to the file's fbtl (what reached the file-system layer; ompio only)",
                      MPI_T_BIND_MPI_FILE, io, fs_elements, sizeof fs_elements / sizeof fs_elements[0],
                      sizeof(mpimon_io_fs_event), nullptr);
}

void register_all() {
  const int pml =
      register_ordered_source("mpimon_pml", "mpimon point-to-point layer (after collectives are decomposed)");
  const int coll = register_ordered_source("mpimon_coll", "mpimon collective layer");
  const int osc = register_ordered_source("mpimon_osc", "mpimon one-sided layer");
  register_pml_types(pml);
  register_coll_types(coll);
  register_osc_types(osc);
  register_io_source_and_types();
}

}  // namespace

extern "C" void mpimon_register_communication_events(void) {
  static std::once_flag once;
  std::call_once(once, register_all);
}
