// K collectives of one double (8 B; per peer for the alltoall forms) each waited for at
// once; for the nonblocking-collective cost benchmark (bench/nbc_call_overhead.sh).
//   mpimon_bench_nbc allreduce|iallreduce|ibarrier|ibcast|ialltoall|ineighbor_alltoall <K>
// The neighbourhood collective runs on a periodic ring (MPI_Cart_create, one dimension):
// two neighbours per rank.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string kind = argc > 1 ? argv[1] : "iallreduce";
  const int k = argc > 2 ? std::atoi(argv[2]) : 1000;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm ring = MPI_COMM_NULL;
  const int periodic = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
  double in = 1.0, out = 0.0;
  std::vector<double> send(size, 1.0), receive(size, 0.0);
  MPI_Request request;
  for (int i = 0; i < k; ++i) {
    if (kind == "allreduce") {
      MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      continue;
    }
    if (kind == "iallreduce") {
      MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    } else if (kind == "ibarrier") {
      MPI_Ibarrier(MPI_COMM_WORLD, &request);
    } else if (kind == "ibcast") {
      MPI_Ibcast(&in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request);
    } else if (kind == "ialltoall") {
      MPI_Ialltoall(send.data(), 1, MPI_DOUBLE, receive.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD, &request);
    } else if (kind == "ineighbor_alltoall") {
      MPI_Ineighbor_alltoall(send.data(), 1, MPI_DOUBLE, receive.data(), 1, MPI_DOUBLE, ring, &request);
    } else {
      std::fprintf(stderr, "mpimon_bench_nbc: unknown collective '%s'\n", kind.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
