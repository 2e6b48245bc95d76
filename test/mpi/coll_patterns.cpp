// COLL layer scenarios. Every collective runs once; the program reads the COLL
// performance variables before and after (per world peer: coll_monitoring_messages_count
// and _size on MPI_COMM_WORLD; per communicator: the class COUNTER/AGGREGATE variables)
// and compares the differences with what the accounting rules say this rank must record,
// computed here from the pattern. Prints "rank <r>: OK <mode>" or what differed.
//
//   coll_patterns all | neighbors | intercomm | errors | dump | dupfree <cycles>  [multiple]
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "scenario.h"

namespace {

using scenario::check;
using scenario::rank;
using scenario::size;
MPI_T_pvar_session session;

int index_of(const char* name, int klass) { return scenario::pvar_index(name, klass); }

std::vector<unsigned long long> read_peers(const char* name) {
  return scenario::read_size_variable(session, name, MPI_COMM_WORLD);
}

const char* const kClassNames[3] = {"o2a", "a2o", "a2a"};
enum Class { O2A = 0, A2O = 1, A2A = 2 };

// Expected record of one collective at this rank: bytes to each world rank (-1: no message).
struct Expected {
  std::vector<long long> bytes_to;
  std::vector<long long> messages_to;
  Class klass = A2A;
  Expected() : bytes_to(size, -1), messages_to(size, 0) {}
  void to(int world, long long bytes) {
    if (bytes_to[world] < 0) bytes_to[world] = 0;
    bytes_to[world] += bytes;
    ++messages_to[world];
  }
  void to_every_other(long long bytes) {
    for (int i = 0; i < size; ++i)
      if (i != rank) to(i, bytes);
  }
  long long total() const {
    long long t = 0;
    for (long long b : bytes_to) t += b > 0 ? b : 0;
    return t;
  }
  bool sends() const {
    for (long long b : bytes_to)
      if (b >= 0) return true;
    return false;
  }
};

void measure(const std::string& name, MPI_Comm class_comm, const Expected& expected,
             const std::function<void()>& collective) {
  MPI_T_pvar_handle count_handle, size_handle;
  int one;
  MPI_T_pvar_handle_alloc(session,
                          index_of((std::string("coll_monitoring_") + kClassNames[expected.klass] + "_count").c_str(),
                                   MPI_T_PVAR_CLASS_COUNTER),
                          &class_comm, &count_handle, &one);
  MPI_T_pvar_handle_alloc(session,
                          index_of((std::string("coll_monitoring_") + kClassNames[expected.klass] + "_size").c_str(),
                                   MPI_T_PVAR_CLASS_AGGREGATE),
                          &class_comm, &size_handle, &one);
  const auto messages_before = read_peers("coll_monitoring_messages_count");
  const auto bytes_before = read_peers("coll_monitoring_messages_size");
  MPI_T_pvar_start(session, count_handle);
  MPI_T_pvar_start(session, size_handle);
  collective();
  unsigned long long class_count = 0, class_bytes = 0;
  MPI_T_pvar_read(session, count_handle, &class_count);
  MPI_T_pvar_read(session, size_handle, &class_bytes);
  MPI_T_pvar_stop(session, count_handle);
  MPI_T_pvar_stop(session, size_handle);
  MPI_T_pvar_handle_free(session, &count_handle);
  MPI_T_pvar_handle_free(session, &size_handle);
  const auto messages_after = read_peers("coll_monitoring_messages_count");
  const auto bytes_after = read_peers("coll_monitoring_messages_size");
  for (int i = 0; i < size; ++i) {
    const long long messages = static_cast<long long>(messages_after[i] - messages_before[i]);
    const long long bytes = static_cast<long long>(bytes_after[i] - bytes_before[i]);
    const long long want_messages = expected.messages_to[i];
    const long long want_bytes = expected.bytes_to[i] < 0 ? 0 : expected.bytes_to[i];
    check(messages == want_messages && bytes == want_bytes,
          name + " to " + std::to_string(i) + ": " + std::to_string(messages) + " msgs " + std::to_string(bytes) +
              " B, expected " + std::to_string(want_messages) + " msgs " + std::to_string(want_bytes) + " B");
  }
  const unsigned long long want_count = expected.sends() ? 1 : 0;
  check(class_count == want_count && class_bytes == static_cast<unsigned long long>(expected.total()),
        name + " " + kClassNames[expected.klass] + ": " + std::to_string(class_count) + " calls " +
            std::to_string(class_bytes) + " B, expected " + std::to_string(want_count) + " calls " +
            std::to_string(expected.total()) + " B");
}

void wait(MPI_Request* r) { MPI_Wait(r, MPI_STATUS_IGNORE); }

// Every collective of MPI_COMM_WORLD, blocking and nonblocking.
void all_collectives() {
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<char> in(1 << 16), out(1 << 16);
  std::vector<int> counts(size), displs(size), rcounts(size), rdispls(size);
  MPI_Request r;
  for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
    const std::string i = nonblocking ? "i" : "";
    auto run = [&](const std::function<void()>& blocking, const std::function<void(MPI_Request*)>& immediate) {
      return [&, blocking, immediate] {
        if (nonblocking) {
          immediate(&r);
          wait(&r);
        } else {
          blocking();
        }
      };
    };
    {  // allgather: 2 ints to every other
      Expected e;
      e.to_every_other(8);
      measure(i + "allgather", w, e,
              run([&] { MPI_Allgather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, w); },
                  [&](MPI_Request* q) { MPI_Iallgather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, w, q); }));
    }
    {  // allgather in place: the receive count (3 ints) describes the data
      Expected e;
      e.to_every_other(12);
      measure(i + "allgather_in_place", w, e,
              run([&] { MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in.data(), 3, MPI_INT, w); },
                  [&](MPI_Request* q) {
                    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in.data(), 3, MPI_INT, w, q);
                  }));
    }
    {  // allgatherv: rank+1 ints
      for (int k = 0; k < size; ++k) counts[k] = k + 1, displs[k] = k * 16;
      Expected e;
      e.to_every_other(4 * (rank + 1));
      measure(i + "allgatherv", w, e,
              run(
                  [&] {
                    MPI_Allgatherv(out.data(), rank + 1, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, w);
                  },
                  [&](MPI_Request* q) {
                    MPI_Iallgatherv(out.data(), rank + 1, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, w,
                                    q);
                  }));
    }
    {  // allreduce: 5 doubles
      Expected e;
      e.to_every_other(40);
      measure(i + "allreduce", w, e,
              run([&] { MPI_Allreduce(out.data(), in.data(), 5, MPI_DOUBLE, MPI_SUM, w); },
                  [&](MPI_Request* q) { MPI_Iallreduce(out.data(), in.data(), 5, MPI_DOUBLE, MPI_SUM, w, q); }));
    }
    {  // alltoall: 3 ints to each
      Expected e;
      e.to_every_other(12);
      measure(i + "alltoall", w, e,
              run([&] { MPI_Alltoall(out.data(), 3, MPI_INT, in.data(), 3, MPI_INT, w); },
                  [&](MPI_Request* q) { MPI_Ialltoall(out.data(), 3, MPI_INT, in.data(), 3, MPI_INT, w, q); }));
    }
    {  // alltoallv: i+1 ints to rank i, nothing to rank+1 (a zero count is no message)
      Expected e;
      for (int k = 0; k < size; ++k) {
        counts[k] = k == (rank + 1) % size ? 0 : k + 1;
        displs[k] = k * 64;
        rcounts[k] = rank == (k + 1) % size ? 0 : rank + 1;
        rdispls[k] = k * 64;
        if (k != rank && counts[k] > 0) e.to(k, 4 * counts[k]);
      }
      measure(i + "alltoallv", w, e,
              run(
                  [&] {
                    MPI_Alltoallv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), rcounts.data(),
                                  rdispls.data(), MPI_INT, w);
                  },
                  [&](MPI_Request* q) {
                    MPI_Ialltoallv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), rcounts.data(),
                                   rdispls.data(), MPI_INT, w, q);
                  }));
    }
    {  // alltoallw: one int to even ranks, one double to odd ranks
      std::vector<MPI_Datatype> stypes(size), rtypes(size, rank % 2 ? MPI_DOUBLE : MPI_INT);
      Expected e;
      for (int k = 0; k < size; ++k) {
        counts[k] = 1;
        rcounts[k] = 1;
        displs[k] = rdispls[k] = k * 64;
        stypes[k] = k % 2 ? MPI_DOUBLE : MPI_INT;
        if (k != rank) e.to(k, k % 2 ? 8 : 4);
      }
      measure(i + "alltoallw", w, e,
              run(
                  [&] {
                    MPI_Alltoallw(out.data(), counts.data(), displs.data(), stypes.data(), in.data(), rcounts.data(),
                                  rdispls.data(), rtypes.data(), w);
                  },
                  [&](MPI_Request* q) {
                    MPI_Ialltoallw(out.data(), counts.data(), displs.data(), stypes.data(), in.data(), rcounts.data(),
                                   rdispls.data(), rtypes.data(), w, q);
                  }));
    }
    {  // barrier: a 0-byte message to every other
      Expected e;
      e.to_every_other(0);
      measure(i + "barrier", w, e, run([&] { MPI_Barrier(w); }, [&](MPI_Request* q) { MPI_Ibarrier(w, q); }));
    }
    {  // bcast from rank 1: 6 ints
      Expected e;
      e.klass = O2A;
      if (rank == 1) e.to_every_other(24);
      measure(i + "bcast", w, e,
              run([&] { MPI_Bcast(out.data(), 6, MPI_INT, 1, w); },
                  [&](MPI_Request* q) { MPI_Ibcast(out.data(), 6, MPI_INT, 1, w, q); }));
    }
    {  // exscan: 2 ints to every higher rank
      Expected e;
      for (int k = rank + 1; k < size; ++k) e.to(k, 8);
      measure(i + "exscan", w, e,
              run([&] { MPI_Exscan(out.data(), in.data(), 2, MPI_INT, MPI_SUM, w); },
                  [&](MPI_Request* q) { MPI_Iexscan(out.data(), in.data(), 2, MPI_INT, MPI_SUM, w, q); }));
    }
    {  // scan: 3 doubles to every higher rank
      Expected e;
      for (int k = rank + 1; k < size; ++k) e.to(k, 24);
      measure(i + "scan", w, e,
              run([&] { MPI_Scan(out.data(), in.data(), 3, MPI_DOUBLE, MPI_SUM, w); },
                  [&](MPI_Request* q) { MPI_Iscan(out.data(), in.data(), 3, MPI_DOUBLE, MPI_SUM, w, q); }));
    }
    {  // gather to rank 2: 4 ints from each non-root
      Expected e;
      e.klass = A2O;
      if (rank != 2) e.to(2, 16);
      measure(i + "gather", w, e,
              run([&] { MPI_Gather(out.data(), 4, MPI_INT, in.data(), 4, MPI_INT, 2, w); },
                  [&](MPI_Request* q) { MPI_Igather(out.data(), 4, MPI_INT, in.data(), 4, MPI_INT, 2, w, q); }));
    }
    {  // gatherv to rank 0: rank+1 ints
      for (int k = 0; k < size; ++k) counts[k] = k + 1, displs[k] = k * 16;
      Expected e;
      e.klass = A2O;
      if (rank != 0) e.to(0, 4 * (rank + 1));
      measure(i + "gatherv", w, e,
              run(
                  [&] {
                    MPI_Gatherv(out.data(), rank + 1, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, 0, w);
                  },
                  [&](MPI_Request* q) {
                    MPI_Igatherv(out.data(), rank + 1, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, 0, w,
                                 q);
                  }));
    }
    {  // reduce to the last rank: 7 ints
      Expected e;
      e.klass = A2O;
      if (rank != size - 1) e.to(size - 1, 28);
      measure(i + "reduce", w, e,
              run([&] { MPI_Reduce(out.data(), in.data(), 7, MPI_INT, MPI_SUM, size - 1, w); },
                  [&](MPI_Request* q) { MPI_Ireduce(out.data(), in.data(), 7, MPI_INT, MPI_SUM, size - 1, w, q); }));
    }
    {  // reduce_scatter: rank i gets i+1 ints
      for (int k = 0; k < size; ++k) counts[k] = k + 1;
      Expected e;
      for (int k = 0; k < size; ++k)
        if (k != rank) e.to(k, 4 * (k + 1));
      measure(i + "reduce_scatter", w, e,
              run([&] { MPI_Reduce_scatter(out.data(), in.data(), counts.data(), MPI_INT, MPI_SUM, w); },
                  [&](MPI_Request* q) {
                    MPI_Ireduce_scatter(out.data(), in.data(), counts.data(), MPI_INT, MPI_SUM, w, q);
                  }));
    }
    {  // reduce_scatter_block: 2 doubles each
      Expected e;
      e.to_every_other(16);
      measure(
          i + "reduce_scatter_block", w, e,
          run([&] { MPI_Reduce_scatter_block(out.data(), in.data(), 2, MPI_DOUBLE, MPI_SUM, w); },
              [&](MPI_Request* q) { MPI_Ireduce_scatter_block(out.data(), in.data(), 2, MPI_DOUBLE, MPI_SUM, w, q); }));
    }
    {  // scatter from rank 0: 5 ints
      Expected e;
      e.klass = O2A;
      if (rank == 0) e.to_every_other(20);
      measure(i + "scatter", w, e,
              run([&] { MPI_Scatter(out.data(), 5, MPI_INT, in.data(), 5, MPI_INT, 0, w); },
                  [&](MPI_Request* q) { MPI_Iscatter(out.data(), 5, MPI_INT, in.data(), 5, MPI_INT, 0, w, q); }));
    }
    {  // scatterv from rank 1: i+2 ints to rank i; the root's own block is no message
      for (int k = 0; k < size; ++k) counts[k] = k + 2, displs[k] = k * 16;
      Expected e;
      e.klass = O2A;
      if (rank == 1)
        for (int k = 0; k < size; ++k)
          if (k != 1) e.to(k, 4 * (k + 2));
      measure(i + "scatterv", w, e,
              run(
                  [&] {
                    MPI_Scatterv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), rank + 2, MPI_INT, 1, w);
                  },
                  [&](MPI_Request* q) {
                    MPI_Iscatterv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), rank + 2, MPI_INT, 1, w,
                                  q);
                  }));
    }
  }
  {  // derived datatype: a vector of 2 ints with stride 3 packs to 8 bytes (extent 28)
    MPI_Datatype vector;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vector);
    MPI_Type_commit(&vector);
    Expected e;
    e.klass = O2A;
    if (rank == 0) e.to_every_other(8 * 3);
    measure("bcast_derived", w, e, [&] { MPI_Bcast(out.data(), 3, vector, 0, w); });
    MPI_Type_free(&vector);
  }
  {  // zero count: Open MPI's MPI layer completes it without calling the COLL layer
    Expected nothing;
    measure("allreduce_zero", w, nothing, [&] { MPI_Allreduce(out.data(), in.data(), 0, MPI_INT, MPI_SUM, w); });
  }
}

// Neighbourhood collectives on Cartesian (periodic and not), graph and dist-graph
// communicators (created before measuring: their creation has collectives of its own).
void neighbors() {
  std::vector<char> in(4096), out(4096);
  // 2-D periodic grid {size/2, 2}: in the dimension of size 2 both neighbours are the
  // same rank, which gets two messages.
  int dims[2] = {size / 2, 2}, periods[2] = {1, 1};
  MPI_Comm torus;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &torus);
  {
    const int row = rank / 2, column = rank % 2;
    Expected e;
    e.to(((row + dims[0] - 1) % dims[0]) * 2 + column, 4);
    e.to(((row + 1) % dims[0]) * 2 + column, 4);
    const int across = row * 2 + (1 - column);
    e.to(across, 4);  // both directions of the size-2 dimension reach the same rank
    e.to(across, 4);
    measure("neighbor_allgather_torus", torus, e,
            [&] { MPI_Neighbor_allgather(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, torus); });
    MPI_Request r;
    measure("ineighbor_allgather_torus", torus, e, [&] {
      MPI_Ineighbor_allgather(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, torus, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    });
  }
  MPI_Comm_free(&torus);

  // 1-D non-periodic line: border ranks have MPI_PROC_NULL neighbours; counts are indexed
  // by neighbour position (lower: 1 int, upper: 2 ints), whatever is at the border.
  int line_dims[1] = {size}, line_periods[1] = {0};
  MPI_Comm line;
  MPI_Cart_create(MPI_COMM_WORLD, 1, line_dims, line_periods, 0, &line);
  {
    int scounts[2] = {1, 2}, sdispls[2] = {0, 64}, rcounts[2] = {2, 1}, rdispls[2] = {0, 64};
    Expected e;
    if (rank > 0) e.to(rank - 1, 4);
    if (rank < size - 1) e.to(rank + 1, 8);
    measure("neighbor_alltoallv_line", line, e, [&] {
      MPI_Neighbor_alltoallv(out.data(), scounts, sdispls, MPI_INT, in.data(), rcounts, rdispls, MPI_INT, line);
    });
  }
  MPI_Comm_free(&line);

  // Graph: a ring, neighbours rank-1 and rank+1.
  std::vector<int> index(size), edges(2 * size);
  for (int k = 0; k < size; ++k) {
    index[k] = 2 * (k + 1);
    edges[2 * k] = (k + size - 1) % size;
    edges[2 * k + 1] = (k + 1) % size;
  }
  MPI_Comm ring;
  MPI_Graph_create(MPI_COMM_WORLD, size, index.data(), edges.data(), 0, &ring);
  {
    Expected e;
    e.to((rank + size - 1) % size, 8);
    e.to((rank + 1) % size, 8);
    measure("neighbor_alltoall_graph", ring, e,
            [&] { MPI_Neighbor_alltoall(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, ring); });
  }
  MPI_Comm_free(&ring);

  // Distributed graph: to rank+1 one int, to rank+2 two doubles (w variant).
  int destinations[2] = {(rank + 1) % size, (rank + 2) % size};
  int sources[2] = {(rank + size - 1) % size, (rank + size - 2) % size};
  MPI_Comm dist;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, destinations, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &dist);
  {
    int scounts[2] = {1, 2}, rcounts[2] = {1, 2};
    MPI_Aint sdispls[2] = {0, 64}, rdispls[2] = {0, 64};
    MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE}, rtypes[2] = {MPI_INT, MPI_DOUBLE};
    Expected e;
    e.to(destinations[0], 4);
    e.to(destinations[1], 16);
    MPI_Request r;
    measure("ineighbor_alltoallw_dist_graph", dist, e, [&] {
      MPI_Ineighbor_alltoallw(out.data(), scounts, sdispls, stypes, in.data(), rcounts, rdispls, rtypes, dist, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    });
  }
  MPI_Comm_free(&dist);
}

// Collectives on an intercommunicator between even and odd world ranks.
void intercomm() {
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  std::vector<char> in(4096), out(4096);
  auto remote_world = [&](int remote_rank) { return remote_rank * 2 + (rank % 2 == 0 ? 1 : 0); };
  int remote_size;
  MPI_Comm_remote_size(inter, &remote_size);
  {  // allreduce: 2 ints to every member of the remote group
    Expected e;
    for (int k = 0; k < remote_size; ++k) e.to(remote_world(k), 8);
    measure("inter_allreduce", inter, e, [&] { MPI_Allreduce(out.data(), in.data(), 2, MPI_INT, MPI_SUM, inter); });
  }
  {  // bcast from world rank 0 (rank 0 of the even group) to the odd group
    Expected e;
    e.klass = O2A;
    if (rank == 0)
      for (int k = 0; k < remote_size; ++k) e.to(remote_world(k), 12);
    const int root = rank % 2 == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    measure("inter_bcast", inter, e, [&] { MPI_Bcast(out.data(), 3, MPI_INT, root, inter); });
  }
  {  // gather to world rank 1 (rank 0 of the odd group) from the even group
    Expected e;
    e.klass = A2O;
    if (rank % 2 == 0) e.to(1, 8);
    const int root = rank % 2 == 1 ? (rank == 1 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    measure("inter_gather", inter, e, [&] { MPI_Gather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, root, inter); });
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

// A collective that fails returns its error unchanged and records nothing.
void errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::vector<char> buffer(64);
  Expected nothing;
  nothing.klass = O2A;
  int rc = MPI_SUCCESS;
  measure("bcast_invalid_root", MPI_COMM_WORLD, nothing,
          [&] { rc = MPI_Bcast(buffer.data(), 1, MPI_INT, size, MPI_COMM_WORLD); });
  int error_class = MPI_SUCCESS;
  MPI_Error_class(rc, &error_class);
  check(error_class == MPI_ERR_ROOT, "invalid root returned class " + std::to_string(error_class));
}

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string word;
  while (status >> word)
    if (word == "VmRSS:") {
      long kib;
      status >> kib;
      return kib;
    }
  return -1;
}

// Communicators created and freed many times: no leak, no stale entry.
void dup_free(int cycles) {
  auto cycle = [] {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
  };
  for (int k = 0; k < cycles / 10; ++k) cycle();
  const long after_warmup = resident_kib();
  for (int k = cycles / 10; k < cycles; ++k) cycle();
  const long after_all = resident_kib();
  std::printf("rank %d: resident memory %ld KiB after %d cycles, %ld KiB after %d\n", rank, after_warmup, cycles / 10,
              after_all, cycles);
#if !defined(__SANITIZE_ADDRESS__)  // ASan's quarantine holds freed memory on purpose
  check(after_all - after_warmup < 2048, "memory grew by " + std::to_string(after_all - after_warmup) + " KiB");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  // A last argument "multiple": MPI_THREAD_MULTIPLE (for coll/splittree underneath).
  const bool multiple = argc > 2 && std::string(argv[argc - 1]) == "multiple";
  scenario::init(argc, argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
  MPI_T_pvar_session_create(&session);
  if (mode == "all")
    all_collectives();
  else if (mode == "neighbors")
    neighbors();
  else if (mode == "intercomm")
    intercomm();
  else if (mode == "errors")
    errors();
  else if (mode == "dump") {  // a bcast of 6 ints from rank 0, then an allreduce of 5 doubles
    std::vector<char> in(64), out(64);
    MPI_Bcast(out.data(), 6, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(out.data(), in.data(), 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (mode == "dupfree")
    dup_free(argc > 2 ? std::atoi(argv[2]) : 10000);
  else if (mode == "reused_cid") {
    // Two splits one after the other, the first freed before the second: Open MPI gives
    // the second the first's context id (and default name) with other members, as in HPCC.
    for (const int color : {scenario::rank % 2, scenario::rank < scenario::size / 2 ? 0 : 1}) {
      MPI_Comm split;
      MPI_Comm_split(MPI_COMM_WORLD, color, scenario::rank, &split);
      int value = scenario::rank;
      MPI_Bcast(&value, 1, MPI_INT, 0, split);
      MPI_Comm_free(&split);
    }
  } else {
    std::fprintf(stderr, "coll_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_T_pvar_session_free(&session);
  return scenario::report_and_finalize(mode);
}
