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
// reorder     ranks w and w + size/2 exchange 64 KiB (tag 4), then mpimon_reorder()
//             computes a placement from the monitored traffic (topology: the
//             MPIMON_REORDER_TOPOLOGY environment variable, else this machine) and the
//             exchange is repeated on the reordered communicator; rank 0 prints the bytes
//             that crossed between the two halves of the rank space (two packages when
//             rank i runs on core i) before and after
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpimon_reorder.h"

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

// 64 KiB with the partner that is half the job away (in `comm`'s ranks of world partners).
void exchange_with_partner(MPI_Comm comm, int partner) {
  std::vector<char> out(65536, 'p'), in(65536);
  MPI_Sendrecv(out.data(), 65536, MPI_CHAR, partner, 4, in.data(), 65536, MPI_CHAR, partner, 4, comm, MPI_STATUS_IGNORE);
}

// Bytes this process sent across the middle of `comm`'s rank space, from the monitoring
// variable (totals since MPI_Init, so measured as a difference).
unsigned long long bytes_across_halves(MPI_Comm comm) {
  int provided, index, count, rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  if (MPI_T_pvar_get_index("pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &index) != MPI_SUCCESS) {
    MPI_T_finalize();  // monitoring is off: nothing to measure
    return 0;
  }
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  MPI_T_pvar_session_create(&session);
  MPI_T_pvar_handle_alloc(session, index, &comm, &handle, &count);
  std::vector<unsigned long long> bytes(count, 0);
  MPI_T_pvar_start(session, handle);
  MPI_T_pvar_read(session, handle, bytes.data());
  MPI_T_pvar_stop(session, handle);
  MPI_T_pvar_handle_free(session, &handle);
  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  unsigned long long across = 0;
  for (int p = 0; p < count; ++p)
    if ((p < size / 2) != (rank < size / 2)) across += bytes[p];
  return across;
}

void reorder() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int partner = (rank + size / 2) % size;
  unsigned long long start = bytes_across_halves(MPI_COMM_WORLD);
  exchange_with_partner(MPI_COMM_WORLD, partner);
  unsigned long long before = bytes_across_halves(MPI_COMM_WORLD) - start, total_before = 0;
  MPI_Reduce(&before, &total_before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  MPI_Comm reordered;
  if (mpimon_reorder(MPI_COMM_WORLD, std::getenv("MPIMON_REORDER_TOPOLOGY"), &reordered) != MPI_SUCCESS) {
    if (rank == 0) std::printf("reorder: not available\n");
    return;
  }
  // The same logical exchange (same partner process) on the reordered communicator.
  MPI_Group world_group, new_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(reordered, &new_group);
  int partner_now;
  MPI_Group_translate_ranks(world_group, 1, &partner, new_group, &partner_now);
  start = bytes_across_halves(reordered);
  exchange_with_partner(reordered, partner_now);
  unsigned long long after = bytes_across_halves(reordered) - start, total_after = 0;
  MPI_Reduce(&after, &total_after, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int new_rank;
  MPI_Comm_rank(reordered, &new_rank);
  std::printf("reorder: world rank %d is rank %d of the reordered communicator\n", rank, new_rank);
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::printf("reorder: bytes across the halves %llu before, %llu after\n", total_before, total_after);
  MPI_Group_free(&world_group);
  MPI_Group_free(&new_group);
  MPI_Comm_free(&reordered);
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
    else if (p == "reorder") reorder();
    else {
      std::fprintf(stderr, "mpimon_example: unknown pattern '%s' (ring, reduce, halo, persistent, reorder)\n", p.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}
