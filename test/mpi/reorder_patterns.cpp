// Patterns that reorder inside the run with mpimon_reorder() (linked to libmpimon_reorder).
//
//   reorder_patterns treereduce N K [reorder]
//       each rank prints "rank <r>: host <processor name>"; one MPI_Reduce (MPI_MAX, N ints
//       to rank 0; force the paper's binary tree with coll_tuned_reduce_algorithm 4) on
//       MPI_COMM_WORLD, then (with `reorder`) mpimon_reorder() by all the traffic so far,
//       then K more reduces on the communicator it returns (else on MPI_COMM_WORLD)
#include <mpi.h>
#include <mpimon_reorder.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void treereduce(int ints, int iterations, bool reorder) {
  int rank, length = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::printf("rank %d: host %s\n", rank, name);
  std::fflush(stdout);
  std::vector<int> in(ints, rank), out(ints);
  MPI_Reduce(in.data(), out.data(), ints, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (reorder && mpimon_reorder(MPI_COMM_WORLD, nullptr, &comm) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
  for (int i = 0; i < iterations; ++i) MPI_Reduce(in.data(), out.data(), ints, MPI_INT, MPI_MAX, 0, comm);
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "treereduce" && (argc == 4 || (argc == 5 && std::strcmp(argv[4], "reorder") == 0)) &&
      std::atoi(argv[2]) > 0 && std::atoi(argv[3]) >= 0) {
    treereduce(std::atoi(argv[2]), std::atoi(argv[3]), argc == 5);
  } else {
    std::fprintf(stderr, "reorder_patterns: expected 'treereduce N K [reorder]'\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
