// The C API of libmpimon_reorder (mpimon_reorder.h): this run's traffic, from the
// performance variables (sent_traffic.h), placed onto the running processes
// (running_placement.h).
#include "mpimon_reorder.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "running_placement.h"
#include "sent_traffic.h"

namespace {

using namespace mpimon::reorder;

constexpr const char* kWho = "mpimon_reorder";

bool verbose() {
  const char* v = std::getenv("MPIMON_REORDER_VERBOSE");
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

extern "C" int mpimon_reorder_by(MPI_Comm comm, const char* topology, int traffic, MPI_Comm* reordered) {
  *reordered = MPI_COMM_NULL;
  TrafficKind kind;
  switch (traffic) {
    case MPIMON_REORDER_ALL:
      kind = TrafficKind::all;
      break;
    case MPIMON_REORDER_EXTERNAL:
      kind = TrafficKind::external;
      break;
    case MPIMON_REORDER_INTERNAL:
      kind = TrafficKind::internal;
      break;
    default:
      return MPI_ERR_ARG;  // the same value on every process, so none communicates
  }
  SentTraffic sent = sent_traffic(comm, kind);
  const RunningPlacement placed =
      place_on_running_processes(comm, topology, kWho, {!sent.ok, sent.problem}, std::move(sent.traffic));
  if (placed.status != MPI_SUCCESS) return placed.status;
  if (!placed.summary.empty() && verbose()) std::fprintf(stderr, "%s: %s\n", kWho, placed.summary.c_str());
  return MPI_Comm_split(comm, 0, placed.key, reordered);
}

extern "C" int mpimon_reorder(MPI_Comm comm, const char* topology, MPI_Comm* reordered) {
  return mpimon_reorder_by(comm, topology, MPIMON_REORDER_ALL, reordered);
}

extern "C" int mpimon_reorder_mark(MPI_Comm comm) { return mark_sent_traffic(comm); }

extern "C" int mpimon_reorder_by_fortran(MPI_Fint comm, const char* topology, int traffic, MPI_Fint* reordered) {
  MPI_Comm result = MPI_COMM_NULL;
  const int status = mpimon_reorder_by(MPI_Comm_f2c(comm), topology, traffic, &result);
  *reordered = MPI_Comm_c2f(result);
  return status;
}

extern "C" int mpimon_reorder_fortran(MPI_Fint comm, const char* topology, MPI_Fint* reordered) {
  return mpimon_reorder_by_fortran(comm, topology, MPIMON_REORDER_ALL, reordered);
}

extern "C" int mpimon_reorder_mark_fortran(MPI_Fint comm) { return mpimon_reorder_mark(MPI_Comm_f2c(comm)); }
