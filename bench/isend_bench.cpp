// Point-to-point send loop for instruction-count benchmarks (bench/pml_overhead.sh).
//
//   mpimon_bench_isend <size bytes> <K> <world|split>      (exactly 2 ranks)
//
// MPI_COMM_WORLD rank 0 does K times MPI_Isend(<size> bytes) + MPI_Wait (one message in
// flight at a time); world rank 1 posts the K matching blocking receives and answers each
// with a 0-byte MPI_Send (other tag) that rank 0 receives before its next MPI_Isend.
// The acknowledgement keeps the sender's path deterministic: without it, whenever the
// receiver falls behind (it is descheduled on a loaded 2-core machine), vader's shared
// memory slots are full, the eager send-immediate path fails and MPI_Isend takes the slower
// request path, which adds thousands of instructions to a run at random.
//
// world  the sends go over MPI_COMM_WORLD (sender 0 -> receiver 1).
// split  the sends go over a communicator from MPI_Comm_split with the key order reversed,
//        so communicator rank != world rank: the sender (world 0) is comm rank 1 and sends
//        to comm rank 0 (world 1). A monitoring layer must translate the peer's rank.
//
// Everything except the loop (MPI_Init, the split, barriers, MPI_Finalize) happens outside
// MPI_Isend, so `valgrind --tool=callgrind --toggle-collect=PMPI_Isend` counts only the K
// sends; the difference between two values of K gives the cost of one MPI_Isend.
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

bool parse_count(const char* text, long min, long max, long* out) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

int usage(int world_rank, const char* why) {
  if (world_rank == 0)
    std::fprintf(stderr,
                 "mpimon_bench_isend: %s\nusage: mpimon_bench_isend <size bytes> <K> <world|split>  (2 ranks)\n", why);
  MPI_Finalize();
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  long size = 0, count = 0;
  if (argc != 4) return usage(world_rank, "expected 3 arguments");
  if (!parse_count(argv[1], 0, 1L << 30, &size)) return usage(world_rank, "bad size");
  if (!parse_count(argv[2], 1, 100000000L, &count)) return usage(world_rank, "bad K");
  const bool split = std::strcmp(argv[3], "split") == 0;
  if (!split && std::strcmp(argv[3], "world") != 0) return usage(world_rank, "comm kind must be world or split");
  if (world_size != 2) return usage(world_rank, "run with exactly 2 ranks");

  MPI_Comm comm = MPI_COMM_WORLD;
  if (split) {
    // Reversed key order: world rank r becomes comm rank (world_size - 1 - r).
    MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - 1 - world_rank, &comm);
    int comm_rank = -1;
    MPI_Comm_rank(comm, &comm_rank);
    if (comm_rank == world_rank) {
      std::fprintf(stderr, "mpimon_bench_isend: split communicator did not reorder ranks\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  int my_rank = 0;
  MPI_Comm_rank(comm, &my_rank);
  const int peer = 1 - my_rank;  // 2 ranks: the other one, in comm's numbering
  const int tag = 7, ack_tag = 8;

  std::vector<char> buffer(static_cast<size_t>(size > 0 ? size : 1), 'x');
  const int n = static_cast<int>(size);
  MPI_Barrier(comm);
  if (world_rank == 0) {
    for (long i = 0; i < count; ++i) {
      MPI_Request request;
      MPI_Isend(buffer.data(), n, MPI_BYTE, peer, tag, comm, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      MPI_Recv(nullptr, 0, MPI_BYTE, peer, ack_tag, comm, MPI_STATUS_IGNORE);
    }
  } else {
    for (long i = 0; i < count; ++i) {
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE);
      MPI_Send(nullptr, 0, MPI_BYTE, peer, ack_tag, comm);
    }
  }
  MPI_Barrier(comm);

  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
