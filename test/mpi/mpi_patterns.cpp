// Communication patterns for the integration tests (the example program covers ring,
// reduce, halo and persistent sends).
//
//   mpi_patterns comms      sends on a dup of MPI_COMM_WORLD and on a split with reversed
//                           key order: each world rank r sends 100 bytes (tag 5) on the
//                           dup to r+1, and 200 bytes (tag 6) on the split communicator to
//                           its split rank 0 (split: even/odd world ranks, key = -rank)
//   mpi_patterns threads N  MPI_THREAD_MULTIPLE, 4 threads each send N messages of 8 bytes
//                           to rank+1 (tag = thread)
//   mpi_patterns names      the communicators of Open MPI's monitoring_test: an even/odd split
//                           of MPI_COMM_WORLD (key = rank) with an MPI_Alltoall of 4 ints
//                           per peer on it, then a dup of MPI_COMM_WORLD with an
//                           MPI_Allreduce of one int (both show in the dumps' D lines)
//   mpi_patterns hosts      each rank prints "rank <r>: host <processor name>", then sends
//                           64 bytes (tag 7) to rank+1 (emulated hosts: which ran where)
//   mpi_patterns partners   the same print, then ranks r and r + size/2 exchange 64 KiB
//                           (tag 4): a pattern whose placement matters
//   mpi_patterns pingpong B N   ranks 0 and size-1 exchange B bytes back and forth, one
//                           untimed round trip then N timed ones; rank 0 prints "pingpong
//                           <B> bytes: <s> s per round trip" (emulated hosts: a network's cost)
//   mpi_patterns cart B     the same print, then a 2-D Cartesian communicator (MPI_Dims_create,
//                           not periodic) made with reorder = 1; each process prints "cart:
//                           world rank <w> is cart rank <c>" and sends B bytes (tag 9) to each
//                           of its neighbours on it (a stencil's halo exchange)
//   mpi_patterns graph B    a graph communicator (MPI_Graph_create, reorder = 1) where node i
//                           and node i + size/2 are neighbours; each process prints "graph:
//                           world rank <w> is graph rank <g>" and exchanges B bytes (tag 10)
//                           with its neighbour
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

void comms() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);

  char out[200] = {}, in[200];
  MPI_Sendrecv(out, 100, MPI_CHAR, (rank + 1) % size, 5, in, 100, MPI_CHAR, (rank + size - 1) % size, 5, dup,
               MPI_STATUS_IGNORE);

  int split_rank, split_size;
  MPI_Comm_rank(split, &split_rank);
  MPI_Comm_size(split, &split_size);
  if (split_rank == 0) {
    for (int i = 1; i < split_size; ++i) MPI_Recv(in, 200, MPI_CHAR, i, 6, split, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(out, 200, MPI_CHAR, 0, 6, split);
  }
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
}

void threads(int messages) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([=] {
      char out[8] = {}, in[8];
      for (int i = 0; i < messages; ++i) {
        MPI_Request r;
        MPI_Irecv(in, 8, MPI_CHAR, (rank + size - 1) % size, t, MPI_COMM_WORLD, &r);
        MPI_Send(out, 8, MPI_CHAR, (rank + 1) % size, t, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    });
  }
  for (auto& w : workers) w.join();
}

void names() {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm split, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  int split_size;
  MPI_Comm_size(split, &split_size);
  std::vector<int> out(4 * split_size), in(4 * split_size);
  MPI_Alltoall(out.data(), 4, MPI_INT, in.data(), 4, MPI_INT, split);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&split);
}

void print_host(int rank) {
  int length = 0;
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::printf("rank %d: host %s\n", rank, name);
  std::fflush(stdout);
}

void hosts() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  print_host(rank);
  char out[64] = {}, in[64];
  MPI_Sendrecv(out, 64, MPI_CHAR, (rank + 1) % size, 7, in, 64, MPI_CHAR, (rank + size - 1) % size, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

void partners() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  print_host(rank);
  const int partner = (rank + size / 2) % size;
  std::vector<char> out(65536), in(65536);
  MPI_Sendrecv(out.data(), 65536, MPI_CHAR, partner, 4, in.data(), 65536, MPI_CHAR, partner, 4, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

void pingpong(long bytes, int round_trips) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int last = size - 1;
  std::vector<char> buffer(bytes);
  auto round_trip = [&] {
    if (rank == 0) {
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_CHAR, last, 8, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_CHAR, last, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == last) {
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_CHAR, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_CHAR, 0, 8, MPI_COMM_WORLD);
    }
  };
  round_trip();  // connection set-up
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < round_trips; ++i) round_trip();
  const double seconds = (MPI_Wtime() - start) / round_trips;
  if (rank == 0) std::printf("pingpong %ld bytes: %.6f s per round trip\n", bytes, seconds);
}

void cart(int bytes) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  print_host(rank);
  int dims[2] = {0, 0}, periods[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  int cart_rank;
  MPI_Comm_rank(grid, &cart_rank);
  std::printf("cart: world rank %d is cart rank %d\n", rank, cart_rank);
  std::fflush(stdout);
  std::vector<char> out(bytes), in(4 * static_cast<size_t>(bytes));
  std::vector<MPI_Request> requests;
  for (int dimension = 0; dimension < 2; ++dimension) {
    int low, high;
    MPI_Cart_shift(grid, dimension, 1, &low, &high);
    for (int peer : {low, high}) {
      if (peer == MPI_PROC_NULL) continue;
      requests.emplace_back();
      MPI_Irecv(in.data() + (requests.size() / 2) * bytes, bytes, MPI_CHAR, peer, 9, grid, &requests.back());
      requests.emplace_back();
      MPI_Isend(out.data(), bytes, MPI_CHAR, peer, 9, grid, &requests.back());
    }
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  MPI_Comm_free(&grid);
}

void graph(int bytes) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> index, edges;
  for (int node = 0; node < size; ++node) {
    edges.push_back((node + size / 2) % size);
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_Comm partners;
  MPI_Graph_create(MPI_COMM_WORLD, size, index.data(), edges.data(), 1, &partners);
  int graph_rank, neighbour;
  MPI_Comm_rank(partners, &graph_rank);
  MPI_Graph_neighbors(partners, graph_rank, 1, &neighbour);
  std::printf("graph: world rank %d is graph rank %d\n", rank, graph_rank);
  std::fflush(stdout);
  std::vector<char> out(bytes), in(bytes);
  MPI_Sendrecv(out.data(), bytes, MPI_CHAR, neighbour, 10, in.data(), bytes, MPI_CHAR, neighbour, 10, partners,
               MPI_STATUS_IGNORE);
  MPI_Comm_free(&partners);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "threads") {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr, "mpi_patterns: MPI_THREAD_MULTIPLE not provided\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    threads(argc > 2 ? std::atoi(argv[2]) : 1000);
  } else {
    MPI_Init(&argc, &argv);
    if (mode == "comms") {
      comms();
    } else if (mode == "names") {
      names();
    } else if (mode == "hosts") {
      hosts();
    } else if (mode == "partners") {
      partners();
    } else if (mode == "cart" && argc == 3 && std::atoi(argv[2]) > 0) {
      cart(std::atoi(argv[2]));
    } else if (mode == "graph" && argc == 3 && std::atoi(argv[2]) > 0) {
      graph(std::atoi(argv[2]));
    } else if (mode == "pingpong" && argc == 4 && std::atol(argv[2]) > 0 && std::atoi(argv[3]) > 0) {
      pingpong(std::atol(argv[2]), std::atoi(argv[3]));
    } else {
      std::fprintf(stderr,
                   "mpi_patterns: unknown mode '%s' (comms, threads N, names, hosts, partners, pingpong B N, cart B, "
                   "graph B)\n",
                   mode.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}
