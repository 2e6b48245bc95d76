// Passive-target epoch loop for instruction-count benchmarks (bench/io_overhead.sh's table
// of the other layers' hot paths; bench/osc_overhead.sh compiles its own program with
// every epoch kind).
//
//   mpimon_bench_put_epoch <K>      (exactly 2 ranks)
//
// MPI_COMM_WORLD rank 0 runs K epochs MPI_Win_lock(EXCLUSIVE, 1) + MPI_Put(8 bytes to
// rank 1) + MPI_Win_unlock(1) on a window over MPI_COMM_WORLD, after one warm-up epoch;
// rank 1 waits in a barrier. Everything else happens outside those three calls, so
// `valgrind --tool=callgrind --toggle-collect=PMPI_Win_lock --toggle-collect=PMPI_Put
// --toggle-collect=PMPI_Win_unlock` counts only the epochs; the difference between two
// values of K gives the cost of one epoch.
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  errno = 0;
  char* end = nullptr;
  const long k = argc == 2 ? std::strtol(argv[1], &end, 10) : 0;
  if (size != 2 || argc != 2 || errno != 0 || end == argv[1] || *end != '\0' || k < 1 || k > 100000000L) {
    if (rank == 0) std::fprintf(stderr, "usage: mpimon_bench_put_epoch <K>  (2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  double memory[4] = {0, 0, 0, 0}, value = 1;
  MPI_Win win;
  MPI_Win_create(memory, sizeof memory, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const auto epoch = [&] {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&value, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  };
  if (rank == 0) epoch();  // warm-up: first-use costs are the same for every K
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (long i = 0; i < k; ++i) epoch();
  MPI_Barrier(MPI_COMM_WORLD);
  const bool arrived = rank != 1 || memory[0] == 1;
  MPI_Win_free(&win);
  MPI_Finalize();
  if (!arrived) std::fprintf(stderr, "mpimon_bench_put_epoch: the put did not arrive\n");
  return arrived ? 0 : 3;
}
