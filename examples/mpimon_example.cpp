// The bundled example: communication patterns whose message matrices are known, run
// under monitoring by scripts/demo.sh and by the integration tests.
//
//   mpimon_example [ring] [reduce] [halo] [persistent]     (default: ring reduce halo)
//
// ring        every rank sends 1 message of 1024 bytes (tag 1) to rank+1 (mod size)
// reduce      one MPI_Reduce of 8 doubles to rank 0 (the tree is Open MPI's choice; the
//             demo forces a binary tree with coll_tuned_reduce_algorithm 4)
// halo        2-D periodic Cartesian grid (MPI_Dims_create): 512 bytes (tag 2) to each of
//             the 4 neighbours (a neighbour reached in two directions gets 2 messages)
// persistent  MPI_Send_init to rank+1 (tag 3, 16 bytes) started 3 times
// reorder     a phase (mpimon_reorder_mark) in which ranks w and w + size/2 exchange 64
//             KiB (tag 4), then mpimon_reorder() places the logical ranks by the traffic
//             of that phase, all of it (E + I; here only the exchange) (topology: the
//             MPIMON_REORDER_TOPOLOGY environment variable, else each host's own) and the
//             same logical exchange runs on the reordered communicator (rank r with rank
//             r + size/2 of it); rank 0 prints the bytes that crossed hosts and cores
//             (by the processes' host names and the CPU each is bound to) before and after
#include <mpi.h>
#include <sched.h>

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
  MPI_Sendrecv(out.data(), 1024, MPI_CHAR, (rank + 1) % size, 1, in.data(), 1024, MPI_CHAR, (rank + size - 1) % size, 1,
               comm, MPI_STATUS_IGNORE);
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
  MPI_Sendrecv(out.data(), 65536, MPI_CHAR, partner, 4, in.data(), 65536, MPI_CHAR, partner, 4, comm,
               MPI_STATUS_IGNORE);
}

// Where a process runs: its host, and the CPU it is bound to (-1 when not bound to one).
struct Where {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int cpu = -1;
};

Where where_am_i() {
  Where w;
  int length;
  MPI_Get_processor_name(w.host, &length);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) w.cpu = c;
  return w;
}

// Bytes of one partner exchange (64 KiB sent by each process) that crossed hosts and cores,
// summed on world rank 0. `partner_world`: the world rank of this process's partner.
void count_crossing(const std::vector<Where>& where, int rank, int partner_world, unsigned long long totals[2]) {
  const Where &me = where[rank], &other = where[partner_world];
  const bool other_host = std::strcmp(me.host, other.host) != 0;
  unsigned long long mine[2] = {other_host ? 65536ULL : 0ULL, other_host || me.cpu != other.cpu ? 65536ULL : 0ULL};
  MPI_Reduce(mine, totals, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}

void reorder() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<Where> where(size);
  const Where mine = where_am_i();
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, where.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  const int partner = (rank + size / 2) % size;
  // The phase to place by starts here: the gathering above is not part of it.
  const int marked = mpimon_reorder_mark(MPI_COMM_WORLD);
  exchange_with_partner(MPI_COMM_WORLD, partner);

  MPI_Comm reordered;
  const int status = mpimon_reorder(MPI_COMM_WORLD, std::getenv("MPIMON_REORDER_TOPOLOGY"), &reordered);
  if (marked != MPI_SUCCESS || status != MPI_SUCCESS) {
    if (rank == 0) std::printf("reorder: not available\n");
    return;
  }
  unsigned long long before[2] = {0, 0}, after[2] = {0, 0};
  count_crossing(where, rank, partner, before);
  // The same logical exchange: logical rank r (rank r of `reordered`) with r + size/2.
  int new_rank;
  MPI_Comm_rank(reordered, &new_rank);
  const int new_partner = (new_rank + size / 2) % size;
  MPI_Group world_group, new_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(reordered, &new_group);
  int partner_world;
  MPI_Group_translate_ranks(new_group, 1, &new_partner, world_group, &partner_world);
  exchange_with_partner(reordered, new_partner);
  count_crossing(where, rank, partner_world, after);
  std::printf("reorder: world rank %d is rank %d of the reordered communicator\n", rank, new_rank);
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("reorder: bytes crossing hosts %llu before, %llu after; crossing cores %llu before, %llu after\n",
                before[0], after[0], before[1], after[1]);
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
    if (p == "ring")
      ring(MPI_COMM_WORLD);
    else if (p == "reduce")
      reduce(MPI_COMM_WORLD);
    else if (p == "halo")
      halo(MPI_COMM_WORLD);
    else if (p == "persistent")
      persistent(MPI_COMM_WORLD);
    else if (p == "reorder")
      reorder();
    else {
      std::fprintf(stderr, "mpimon_example: unknown pattern '%s' (ring, reduce, halo, persistent, reorder)\n",
                   p.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}
