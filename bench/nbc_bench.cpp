// K collectives of one double (8 B) on MPI_COMM_WORLD, each waited for at once; for the
// nonblocking-collective cost benchmark (bench/nbc_call_overhead.sh).
//   mpimon_bench_nbc allreduce|iallreduce|ibarrier|ibcast <K>
#include <mpi.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string kind = argc > 1 ? argv[1] : "iallreduce";
  const int k = argc > 2 ? std::atoi(argv[2]) : 1000;
  double in = 1.0, out = 0.0;
  MPI_Request request;
  for (int i = 0; i < k; ++i) {
    if (kind == "allreduce") {
      MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      continue;
    }
    if (kind == "iallreduce") MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    if (kind == "ibarrier") MPI_Ibarrier(MPI_COMM_WORLD, &request);
    if (kind == "ibcast") MPI_Ibcast(&in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
