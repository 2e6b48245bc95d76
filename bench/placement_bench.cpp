// The two kernels of the monitoring paper's placement experiments, run by
// bench/cluster_placement.sh over emulated hosts:
//
//   mpimon_bench_placement reduce <ints> <iterations> [reorder]
//       MPI_Reduce (MPI_MAX) of <ints> ints to rank 0 (force the binary tree with
//       --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4)
//   mpimon_bench_placement stencil2d|stencil3d <cells> <iterations> [reorder]
//       a MiniGhost-like stencil: each rank holds a block of <cells>^2 (2-D) or <cells>^3
//       (3-D) points of kVariables variables on a non-periodic Cartesian grid of ranks,
//       exchanges its faces with its 4 or 6 neighbours, then averages each point with its
//       neighbours
//
// One untimed iteration first (on MPI_COMM_WORLD: the traffic a placement learns from),
// then <iterations> timed ones. With `reorder`, the timed iterations run on the
// communicator mpimon_reorder() returns after the first iteration (needs monitoring on);
// without, on MPI_COMM_WORLD. Rank 0 prints, for the script:
//   host <world rank> <processor name>     (one line per rank)
//   reorder <logical rank> <world rank>    (with `reorder`: who runs logical rank i)
//   seconds_per_iteration <s>              (barrier to barrier, timed iterations / count)
//   crossing_per_iteration <bytes>         (point-to-point bytes, collectives decomposed, sent
//                                           during the timed iterations between processes on
//                                           different hosts, per iteration: from mpimon's
//                                           variables pml_monitoring_messages_size and
//                                           _internal_messages_size, when monitoring is on)
#include <mpi.h>

#include <mpimon_reorder.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kVariables = 8;  // MiniGhost's default is 5..40 variables per point

struct Kernel {
  virtual ~Kernel() = default;
  virtual void iterate(MPI_Comm comm) = 0;
};

class TreeReduce : public Kernel {
 public:
  explicit TreeReduce(long ints) : in_(ints), out_(ints) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < ints; ++i) in_[i] = static_cast<int>((i * 7 + rank) % 1000);
  }
  void iterate(MPI_Comm comm) override {
    MPI_Reduce(in_.data(), out_.data(), static_cast<int>(in_.size()), MPI_INT, MPI_MAX, 0, comm);
  }

 private:
  std::vector<int> in_, out_;
};

// Points of one rank's block with a halo of one cell, kVariables values per point,
// stored [variable][z][y][x] (2-D: z = 0 only).
class Stencil : public Kernel {
 public:
  Stencil(int dimensions, int cells) : dims_(dimensions), n_(cells) {
    const int halo = n_ + 2;
    nz_ = dims_ == 3 ? halo : 1;
    points_ = static_cast<size_t>(halo) * halo * nz_;
    grid_.assign(points_ * kVariables, 1.0);
    next_ = grid_;
  }

  void iterate(MPI_Comm comm) override {
    MPI_Comm cart = cartesian(comm);
    exchange_faces(cart);
    relax();
  }

 private:
  int dims_, n_, nz_;
  size_t points_;
  std::vector<double> grid_, next_;
  MPI_Comm cart_ = MPI_COMM_NULL, cart_of_ = MPI_COMM_NULL;

  // One Cartesian communicator per communicator the kernel runs on, made once (its
  // creation is untimed: the first iteration on each communicator is the warm-up).
  MPI_Comm cartesian(MPI_Comm comm) {
    if (comm == cart_of_) return cart_;
    int size;
    MPI_Comm_size(comm, &size);
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0};
    MPI_Dims_create(size, dims_, dims);
    MPI_Cart_create(comm, dims_, dims, periods, 0, &cart_);
    cart_of_ = comm;
    return cart_;
  }

  size_t at(int v, int z, int y, int x) const {
    const size_t halo = n_ + 2;
    return v * points_ + (static_cast<size_t>(z) * halo + y) * halo + x;
  }

  // The layer `layer` (1 or n: inner faces to send; 0 or n+1: halos to receive) across
  // axis `axis` (0 x, 1 y, 2 z), every variable, in one fixed order.
  template <typename F>
  void for_face(int axis, int layer, F f) const {
    const int zs = dims_ == 3 ? 1 : 0, ze = dims_ == 3 ? n_ : 0;
    for (int v = 0; v < kVariables; ++v) {
      if (axis == 2) {
        for (int y = 1; y <= n_; ++y)
          for (int x = 1; x <= n_; ++x) f(at(v, layer, y, x));
        continue;
      }
      for (int z = zs; z <= ze; ++z)
        for (int i = 1; i <= n_; ++i) f(axis == 0 ? at(v, z, i, layer) : at(v, z, layer, i));
    }
  }

  void exchange_faces(MPI_Comm cart) {
    std::vector<std::vector<double>> out(2 * dims_), in(2 * dims_);
    std::vector<MPI_Request> requests;
    for (int axis = 0; axis < dims_; ++axis) {
      int low, high;
      MPI_Cart_shift(cart, dims_ - 1 - axis, 1, &low, &high);  // Cartesian dimension 0 is the slowest
      const int peers[2] = {low, high};
      for (int side = 0; side < 2; ++side) {
        if (peers[side] == MPI_PROC_NULL) continue;
        auto& o = out[2 * axis + side];
        auto& i = in[2 * axis + side];
        for_face(axis, side ? n_ : 1, [&](size_t k) { o.push_back(grid_[k]); });
        i.resize(o.size());
        requests.emplace_back();
        MPI_Irecv(i.data(), static_cast<int>(i.size()), MPI_DOUBLE, peers[side], axis, cart, &requests.back());
        requests.emplace_back();
        MPI_Isend(o.data(), static_cast<int>(o.size()), MPI_DOUBLE, peers[side], axis, cart, &requests.back());
      }
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (int axis = 0; axis < dims_; ++axis)
      for (int side = 0; side < 2; ++side) {
        const auto& i = in[2 * axis + side];
        if (i.empty()) continue;
        size_t next = 0;
        for_face(axis, side ? n_ + 1 : 0, [&](size_t k) { grid_[k] = i[next++]; });
      }
  }

  void relax() {
    const int zs = dims_ == 3 ? 1 : 0, ze = dims_ == 3 ? n_ : 0;
    const double share = 1.0 / (dims_ == 3 ? 7 : 5);
    for (int v = 0; v < kVariables; ++v)
      for (int z = zs; z <= ze; ++z)
        for (int y = 1; y <= n_; ++y)
          for (int x = 1; x <= n_; ++x) {
            double sum = grid_[at(v, z, y, x)] + grid_[at(v, z, y, x - 1)] + grid_[at(v, z, y, x + 1)] +
                         grid_[at(v, z, y - 1, x)] + grid_[at(v, z, y + 1, x)];
            if (dims_ == 3) sum += grid_[at(v, z - 1, y, x)] + grid_[at(v, z + 1, y, x)];
            next_[at(v, z, y, x)] = sum * share;
          }
    std::swap(grid_, next_);
  }
};

// What this process has sent to each world rank so far (E + I), from mpimon's performance
// variables; empty when monitoring is off.
std::vector<double> sent_to_each_rank() {
  std::vector<double> sent;
  int provided, index, count = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_T_pvar_session session;
  MPI_T_pvar_session_create(&session);
  for (const char* name : {"pml_monitoring_messages_size", "pml_monitoring_internal_messages_size"}) {
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_SIZE, &index) != MPI_SUCCESS) return {};
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_T_pvar_handle handle;
    if (MPI_T_pvar_handle_alloc(session, index, &world, &handle, &count) != MPI_SUCCESS) return {};
    std::vector<unsigned long long> values(count);
    MPI_T_pvar_start(session, handle);
    MPI_T_pvar_read(session, handle, values.data());
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
    sent.resize(count, 0);
    for (int p = 0; p < count; ++p) sent[p] += static_cast<double>(values[p]);
  }
  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  return sent;
}

std::vector<std::string> host_names() {
  int size, length = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.emplace_back(&all[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  return hosts;
}

void print_hosts() {
  int rank, size, length = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      std::printf("host %d %s\n", r, &all[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
}

int usage() {
  std::fprintf(stderr,
               "usage: mpimon_bench_placement reduce <ints> <iterations> [reorder]\n"
               "       mpimon_bench_placement stencil2d|stencil3d <cells> <iterations> [reorder]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) return usage();
  const std::string kind = argv[1];
  const long amount = std::atol(argv[2]);
  const int iterations = std::atoi(argv[3]);
  const bool reorder = argc == 5 && std::strcmp(argv[4], "reorder") == 0;
  if (amount <= 0 || iterations <= 0 || (argc == 5 && !reorder)) return usage();
  if (kind != "reduce" && kind != "stencil2d" && kind != "stencil3d") return usage();

  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  print_hosts();
  Kernel* kernel = kind == "reduce" ? static_cast<Kernel*>(new TreeReduce(amount))
                                    : new Stencil(kind == "stencil2d" ? 2 : 3, static_cast<int>(amount));

  kernel->iterate(MPI_COMM_WORLD);  // what a placement learns from
  MPI_Comm comm = MPI_COMM_WORLD;
  if (reorder) {
    if (mpimon_reorder(MPI_COMM_WORLD, nullptr, &comm) != MPI_SUCCESS) {
      if (rank == 0) std::fprintf(stderr, "mpimon_bench_placement: mpimon_reorder failed (is monitoring on?)\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int logical, size;
    MPI_Comm_rank(comm, &logical);
    MPI_Comm_size(comm, &size);
    std::vector<int> world(size);
    MPI_Gather(&rank, 1, MPI_INT, world.data(), 1, MPI_INT, 0, comm);
    if (logical == 0)
      for (int i = 0; i < size; ++i) std::printf("reorder %d %d\n", i, world[i]);
    kernel->iterate(comm);  // the first iteration on the new communicator (its Cartesian set-up)
  }

  const std::vector<std::string> hosts = host_names();
  MPI_Barrier(comm);
  const std::vector<double> sent_before = sent_to_each_rank();
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    kernel->iterate(comm);
    MPI_Barrier(comm);
  }
  const double seconds = (MPI_Wtime() - start) / iterations;
  const std::vector<double> sent_after = sent_to_each_rank();
  double crossing = 0, total = 0;
  for (size_t p = 0; p < sent_after.size() && p < sent_before.size(); ++p)
    if (hosts[p] != hosts[rank]) crossing += sent_after[p] - sent_before[p];
  MPI_Reduce(&crossing, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("seconds_per_iteration %.6f\n", seconds);
  if (rank == 0 && !sent_after.empty()) std::printf("crossing_per_iteration %.0f\n", total / iterations);
  std::fflush(stdout);
  delete kernel;
  MPI_Finalize();
  return 0;
}
