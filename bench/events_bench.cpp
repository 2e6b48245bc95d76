// MPI_Isend + MPI_Wait loop for the MPI_T events benchmark (bench/events_overhead.sh).
//
//   mpimon_bench_events <mode> <K>      (exactly 2 ranks, 8-byte messages, MPI_COMM_WORLD)
//
// modes (what world rank 0, the measured sender, does before MPI_Init):
//   plain     nothing: no MPI_T at all
//   idle      MPI_T_init_thread, no event handle (events built in, nobody listening)
//   one       an empty callback at MPI_T_CB_REQUIRE_THREAD_SAFE on mpimon_pml_send_posted,
//             bound to MPI_COMM_WORLD (one event per iteration, delivered immediately)
//   empty     the same on the four point-to-point event types (two events per iteration:
//             send posted and send completed; the receive events fire in MPI_Recv, which
//             is not measured)
//   buffered  the same callbacks at MPI_T_CB_REQUIRE_NONE: the events, raised inside the
//             point-to-point calls, are queued; each iteration then calls
//             MPI_T_event_get_num, a safe point that delivers them
// Rank 0 does K times MPI_Isend + MPI_Wait (+ MPI_T_event_get_num when buffered) and
// receives a 0-byte acknowledgement before the next send (see isend_bench.cpp for why);
// rank 1 receives and acknowledges. Callgrind is toggled on PMPI_Isend, PMPI_Wait and
// MPI_T_event_get_num only.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "communication_events.h"
#include "mpit_events.h"

namespace {

void empty_callback(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void*) {}

std::vector<MPI_T_event_registration> subscribe(MPI_T_cb_safety level, bool all_four = true) {
  static MPI_Comm world = MPI_COMM_WORLD;
  std::vector<MPI_T_event_registration> handles;
  for (const char* name : {MPIMON_EVENT_PML_SEND_POSTED, MPIMON_EVENT_PML_RECV_POSTED, MPIMON_EVENT_PML_SEND_COMPLETED,
                           MPIMON_EVENT_PML_RECV_COMPLETED}) {
    if (!all_four && std::strcmp(name, MPIMON_EVENT_PML_SEND_POSTED) != 0) continue;
    int index = -1;
    MPI_T_event_registration handle;
    if (MPI_T_event_get_index(name, &index) != MPI_SUCCESS ||
        MPI_T_event_handle_alloc(index, &world, MPI_INFO_NULL, &handle) != MPI_SUCCESS ||
        MPI_T_event_register_callback(handle, level, MPI_INFO_NULL, nullptr, empty_callback) != MPI_SUCCESS) {
      std::fprintf(stderr, "mpimon_bench_events: cannot subscribe to %s\n", name);
      std::exit(3);
    }
    handles.push_back(handle);
  }
  return handles;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mpimon_bench_events <plain|idle|one|empty|buffered> <K>   (2 ranks)\n");
    return 2;
  }
  const char* mode = argv[1];
  const long count = std::strtol(argv[2], nullptr, 10);
  const bool uses_mpit = std::strcmp(mode, "plain") != 0;
  const bool buffered = std::strcmp(mode, "buffered") == 0;
  const bool one = std::strcmp(mode, "one") == 0;
  if ((uses_mpit && std::strcmp(mode, "idle") != 0 && std::strcmp(mode, "empty") != 0 && !one && !buffered) ||
      count < 1) {
    std::fprintf(stderr, "mpimon_bench_events: bad mode or K\n");
    return 2;
  }
  int provided = 0;
  std::vector<MPI_T_event_registration> handles;
  if (uses_mpit) MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  if (std::strcmp(mode, "empty") == 0) handles = subscribe(MPI_T_CB_REQUIRE_THREAD_SAFE);
  if (one) handles = subscribe(MPI_T_CB_REQUIRE_THREAD_SAFE, false);
  if (buffered) handles = subscribe(MPI_T_CB_REQUIRE_NONE);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "mpimon_bench_events: run with exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char buffer[8] = {};
  const int peer = 1 - rank;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < count; ++i) {
    if (rank == 0) {
      MPI_Request request;
      MPI_Isend(buffer, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      if (buffered) {
        int n = 0;
        MPI_T_event_get_num(&n);
      }
      MPI_Recv(nullptr, 0, MPI_BYTE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(nullptr, 0, MPI_BYTE, peer, 8, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (MPI_T_event_registration& h : handles) MPI_T_event_handle_free(h, nullptr, nullptr);
  if (uses_mpit) MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
