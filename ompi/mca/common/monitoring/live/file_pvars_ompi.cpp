#include "live/file_pvars.h"

#include "runtime/ompi_glue.h"

#include <mpi.h>

#include "live/pvar_handle_check.h"
#include "live/pvars.h"
#include "runtime/component_version.h"  // MPIMON_VARIABLES_NAME
#include "runtime/runtime.h"

namespace mpimon::mpi_io {
namespace {

enum class FileVariable { calls, size, fs_count, fs_size, fs_failed_count, fs_failed_size, time, aggregator_count };

int values_of(FileVariable v) {
  switch (v) {
    case FileVariable::calls:
    case FileVariable::size:
      return kAccessCount;
    case FileVariable::fs_count:
    case FileVariable::fs_size:
    case FileVariable::fs_failed_count:
    case FileVariable::fs_failed_size:
      return kDirectionCount;
    case FileVariable::time:
      return kTimerCount;
    case FileVariable::aggregator_count:
      return 1;
  }
  return 0;
}

int read_file_variable(const mca_base_pvar_t* pvar, void* value, void* obj) {
  const auto which = static_cast<FileVariable>(reinterpret_cast<uintptr_t>(pvar->ctx));
  const FileRegistry& files = Runtime::instance().files;
  const bool open = files.with_record_of(obj, [&](const FileRecord& r) {
    auto* out = static_cast<unsigned long long*>(value);
    switch (which) {
      case FileVariable::calls:
        for (int a = 0; a < kAccessCount; ++a) out[a] = r.calls(static_cast<Access>(a));
        break;
      case FileVariable::size:
        for (int a = 0; a < kAccessCount; ++a) out[a] = r.bytes(static_cast<Access>(a));
        break;
      case FileVariable::fs_count:
        for (int d = 0; d < kDirectionCount; ++d) out[d] = r.fs(static_cast<Direction>(d)).operations;
        break;
      case FileVariable::fs_size:
        for (int d = 0; d < kDirectionCount; ++d) out[d] = r.fs(static_cast<Direction>(d)).entries.bytes;
        break;
      case FileVariable::fs_failed_count:
        for (int d = 0; d < kDirectionCount; ++d) out[d] = r.fs(static_cast<Direction>(d)).failed_operations;
        break;
      case FileVariable::fs_failed_size:
        for (int d = 0; d < kDirectionCount; ++d) out[d] = r.fs(static_cast<Direction>(d)).failed_bytes;
        break;
      case FileVariable::time: {
        const double seconds_per_tick = files.clock().seconds_per_tick();
        auto* seconds = static_cast<double*>(value);
        for (int t = 0; t < kTimerCount; ++t)
          seconds[t] = static_cast<double>(r.ticks(static_cast<Timer>(t))) * seconds_per_tick;
        break;
      }
      case FileVariable::aggregator_count:
        out[0] = r.aggregated_calls();
        break;
    }
  });
  return open ? OMPI_SUCCESS : OMPI_ERR_NOT_FOUND;  // a closed file (or never one)
}

// Never an error at bind: Open MPI's core crashes on one (pvar_handle_check.h, which
// refuses anything but a live file before the core gets there).
int notify_file_variable(mca_base_pvar_t* pvar, mca_base_pvar_event_t event, void*, int* count) {
  if (event == MCA_BASE_PVAR_HANDLE_BIND)
    *count = values_of(static_cast<FileVariable>(reinterpret_cast<uintptr_t>(pvar->ctx)));
  return OMPI_SUCCESS;
}

}  // namespace

void register_file_variables() {
  pvars::check_bound_objects();
  static const struct {
    const char* name;
    const char* description;
    int klass;
    FileVariable variable;
  } table[] = {
      {"calls",
       "Data-access calls on the file per family (read_at, read_at_all, read, read_all, read_shared, read_ordered, "
       "then the same writes; nonblocking and split forms in their family) (mpimon)",
       MCA_BASE_PVAR_CLASS_COUNTER, FileVariable::calls},
      {"size", "Bytes asked (count x type size) per access family, in the order of io_monitoring_calls (mpimon)",
       MCA_BASE_PVAR_CLASS_AGGREGATE, FileVariable::size},
      {"fs_count",
       "Operations ompio handed to the file's fbtl that did not fail: read, write (ompio only; 0 under ROMIO) "
       "(mpimon)",
       MCA_BASE_PVAR_CLASS_COUNTER, FileVariable::fs_count},
      {"fs_size", "Bytes of those operations: read, write (mpimon)", MCA_BASE_PVAR_CLASS_AGGREGATE,
       FileVariable::fs_size},
      {"fs_failed_count",
       "Operations the file's fbtl failed (an error, or a write that moved fewer bytes than asked: a full disk): "
       "read, write; never in io_monitoring_fs_count (mpimon)",
       MCA_BASE_PVAR_CLASS_COUNTER, FileVariable::fs_failed_count},
      {"fs_failed_size", "Bytes those failed operations did not move: read, write (mpimon)",
       MCA_BASE_PVAR_CLASS_AGGREGATE, FileVariable::fs_failed_size},
      {"time", "Seconds inside read, write and metadata calls on the file (mpimon)", MCA_BASE_PVAR_CLASS_TIMER,
       FileVariable::time},
      {"aggregator_count",
       "Collective calls in which this process accessed the file system for its group (ompio's aggregators) "
       "(mpimon)",
       MCA_BASE_PVAR_CLASS_COUNTER, FileVariable::aggregator_count},
  };
  for (const auto& row : table) {
    mca_base_pvar_register(
        "ompi", "io", MPIMON_VARIABLES_NAME, row.name, row.description, OPAL_INFO_LVL_4, row.klass,
        row.variable == FileVariable::time ? MCA_BASE_VAR_TYPE_DOUBLE : MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, nullptr,
        MPI_T_BIND_MPI_FILE, static_cast<mca_base_pvar_flag_t>(MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_IWG),
        read_file_variable, nullptr, notify_file_variable,
        reinterpret_cast<void*>(static_cast<uintptr_t>(row.variable)));
  }
  pvars::register_peer_variables("io", "messages", "collective-I/O shuffle messages sent", Category::io_shuffle);
}

}  // namespace mpimon::mpi_io
