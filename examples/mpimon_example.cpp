// The bundled example: communication patterns whose message matrices are known, run
// under monitoring by the README's main command and by the integration tests.
//
//   mpimon_example [ring] [reduce] [halo] [persistent]     (default: ring reduce halo)
//
// ring        every rank sends 1 message of 1024 bytes (tag 1) to rank+1 (mod size)
// reduce      one MPI_Reduce of 8 doubles to rank 0 (the tree is Open MPI's choice; the
//             README forces a binary tree with coll_tuned_reduce_algorithm 4)
// halo        2-D periodic Cartesian grid (MPI_Dims_create): 512 bytes (tag 2) to each of
//             the 4 neighbours (a neighbour reached in two directions gets 2 messages)
// persistent  MPI_Send_init to rank+1 (tag 3, 16 bytes) started 3 times
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

void ring(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<char> out(1024, 'r'), in(1024);
  MPI_Sendrecv(out.data(), 1024, MPI_CHAR, (rank + 1) % size, 1, in.data(), 1024, MPI_CHAR,
               (rank + size - 1) % size, 1, comm, MPI_STATUS_IGNORE);
}

void reduce(MPI_Comm comm) {
  double mine[8], total[8];
  for (double& v : mine) v = 1.0;
  MPI_Reduce(mine, total, 8, MPI_DOUBLE, MPI_SUM, 0, comm);
}

void halo(MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
  std::vector<char> out(4 * 512, 'h'), in(4 * 512);
  std::vector<MPI_Request> requests;
  for (int dim = 0; dim < 2; ++dim) {
    int lower, upper;
    MPI_Cart_shift(grid, dim, 1, &lower, &upper);
    const int neighbours[2] = {lower, upper};
    for (int side = 0; side < 2; ++side) {
      const int slot = dim * 2 + side;
      MPI_Request r[2];
      MPI_Irecv(in.data() + slot * 512, 512, MPI_CHAR, neighbours[side], 2, grid, &r[0]);
      MPI_Isend(out.data() + slot * 512, 512, MPI_CHAR, neighbours[side], 2, grid, &r[1]);
      requests.insert(requests.end(), r, r + 2);
    }
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  MPI_Comm_free(&grid);
}

void persistent(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char out[16] = {}, in[16];
  MPI_Request send;
  MPI_Send_init(out, 16, MPI_CHAR, (rank + 1) % size, 3, comm, &send);
  for (int i = 0; i < 3; ++i) {
    MPI_Start(&send);
    MPI_Recv(in, 16, MPI_CHAR, (rank + size - 1) % size, 3, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&send);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<std::string> patterns(argv + 1, argv + argc);
  if (patterns.empty()) patterns = {"ring", "reduce", "halo"};
  for (const std::string& p : patterns) {
    if (p == "ring") ring(MPI_COMM_WORLD);
    else if (p == "reduce") reduce(MPI_COMM_WORLD);
    else if (p == "halo") halo(MPI_COMM_WORLD);
    else if (p == "persistent") persistent(MPI_COMM_WORLD);
    else {
      std::fprintf(stderr, "mpimon_example: unknown pattern '%s' (ring, reduce, halo, persistent)\n", p.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}
