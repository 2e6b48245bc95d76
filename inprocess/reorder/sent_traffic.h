// What this process sent to each rank of a communicator, as mpimon's performance variables
// give it (MPI_T, all communicators together, since MPI_Init):
//   external: pml_monitoring_messages_size, the application's point-to-point messages (E);
//   internal: pml_monitoring_internal_messages_size, the messages collectives were
//             decomposed into (I; zeros at pml_monitoring_enable 1, where everything is E).
// A mark (mpimon_reorder_mark) keeps this process's totals at that moment, sparse, on the
// communicator (an MPI attribute, freed with it); reading after a mark returns what was
// sent since.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "affinity.h"

namespace mpimon::reorder {

enum class TrafficKind { all, external, internal };  // all = external + internal

struct SentTraffic {
  bool ok = false;
  std::string problem;                      // when not ok: which variable could not be read, and why
  std::vector<placement::Traffic> traffic;  // from this process's rank in `comm` to others, non-zero
};

// Totals since MPI_Init, less the mark on `comm` when there is one.
SentTraffic sent_traffic(MPI_Comm comm, TrafficKind kind);

// Keeps the current totals (external and internal) on `comm`, replacing an earlier mark.
int mark_sent_traffic(MPI_Comm comm);

}  // namespace mpimon::reorder
