// K MPI_Allreduce calls of one double (8 B) on MPI_COMM_WORLD; for the COLL benchmark.
//   mpimon_bench_allreduce <K>
#include <mpi.h>

#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int k = argc > 1 ? std::atoi(argv[1]) : 1000;
  double in = 1.0, out = 0.0;
  for (int i = 0; i < k; ++i) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
