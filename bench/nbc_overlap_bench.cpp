// IMB-NBC's overlap measurement for one nonblocking collective (bench/nbc_overlap.sh):
//
//   t_pure  MPI_I<coll> + MPI_Wait alone
//   t_CPU   computation sized to t_pure
//   t_ovrl  MPI_I<coll>, the computation, MPI_Wait
//   overlap = max(0, min(1, (t_pure + t_CPU - t_ovrl) / min(t_pure, t_CPU)))   (IMB-NBC's formula)
//
// Each time is the median over the repetitions (IMB takes the mean; the median resists the
// descheduling a shared machine adds), the maximum over the ranks. With "test",
// the computation calls MPI_Test every t_pure / 16. The overlapped runs use a communicator
// named "overlapped", so that mpimon's job file tells their own overlap apart.
//
//   mpimon_bench_nbc_overlap ibcast|iallreduce|igather <bytes> <repetitions> alone|test
//   mpimon_bench_nbc_overlap model <ranks> <communication cores>     the model's figures
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "split_tree_model.h"

namespace {

using Clock = std::chrono::steady_clock;

void compute(double seconds, MPI_Request* poll, double period) {
  const auto start = Clock::now();
  auto next = start;
  volatile double x = 1.0;
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed >= seconds) break;
    for (int i = 0; i < 200; ++i) x = x * 1.0000001 + 1e-9;
    if (poll != nullptr && Clock::now() >= next) {
      int done = 0;
      MPI_Test(poll, &done, MPI_STATUS_IGNORE);
      next = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(period));
    }
  }
}

struct Collective {
  std::string kind;
  std::vector<char> a, b;
  int count;
  void start(MPI_Request* r, int size, MPI_Comm comm) {
    if (kind == "ibcast") MPI_Ibcast(a.data(), count, MPI_BYTE, 0, comm, r);
    if (kind == "iallreduce") MPI_Iallreduce(a.data(), b.data(), count / 8, MPI_DOUBLE, MPI_SUM, comm, r);
    if (kind == "igather") MPI_Igather(a.data(), count / size, MPI_BYTE, b.data(), count / size, MPI_BYTE, 0, comm, r);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double max_over_ranks(double value) {
  double max = 0;
  MPI_Allreduce(&value, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

int model(int ranks, double cores) {
  using namespace mpimon::splittree;
  const ModelInput in{ranks, cores, BufferGrowth::constant};
  const int h = tree_height(ranks);
  std::printf("model N=%d P=%g H=%d blocking=%g C=%g best_S=%d\n", ranks, cores, h, blocking_time(ranks, in.growth),
              computation_time(in), best_levels(in));
  for (int s = 0; s <= h; ++s) {
    // IMB's formula on the model's times: pure = equation 4, CPU sized to it, overlapped =
    // the lower levels plus the longer of the computation and the upper levels.
    const double pure = nonblocking_time(in, s);
    const double overlapped = std::min(s, h) + std::max(pure, upper_levels_time(in, s));
    const double overlap = std::isinf(pure) ? 0.0 : std::max(0.0, std::min(1.0, (2 * pure - overlapped) / pure));
    std::printf("model S=%d pure=%g overlapped_eq5=%g imb_overlap=%.3f\n", s, pure, overlapped_time(in, s), overlap);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 3 && std::string(argv[1]) == "model") return model(std::atoi(argv[2]), std::atof(argv[3]));
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 5) {
    if (rank == 0)
      std::fprintf(stderr, "usage: %s ibcast|iallreduce|igather <bytes> <repetitions> alone|test\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bytes = std::atoi(argv[2]), repetitions = std::atoi(argv[3]);
  const bool poll = std::string(argv[4]) == "test";
  Collective c{argv[1], std::vector<char>(static_cast<size_t>(bytes) * size + 64),
               std::vector<char>(static_cast<size_t>(bytes) * size + 64), bytes};
  MPI_Request r;
  // Warm up, then the collective alone.
  for (int i = 0; i < 3; ++i) {
    c.start(&r, size, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = Clock::now();
    c.start(&r, size, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const double t_pure = max_over_ranks(median(times));
  // The computation alone (sized to t_pure; its real length is measured).
  times.clear();
  for (int i = 0; i < repetitions; ++i) {
    const auto t0 = Clock::now();
    compute(t_pure, nullptr, 0);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const double t_cpu = max_over_ranks(median(times));
  // Overlapped, on a communicator of its own so that the overlap variable covers only these.
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_name(comm, "overlapped");
  times.clear();
  for (int i = 0; i < repetitions; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = Clock::now();
    c.start(&r, size, comm);
    compute(t_pure, poll ? &r : nullptr, t_pure / 16);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const double t_ovrl = max_over_ranks(median(times));
  const double imb = std::max(0.0, std::min(1.0, (t_pure + t_cpu - t_ovrl) / std::min(t_pure, t_cpu)));
  if (rank == 0)
    std::printf("result pure_us=%.1f cpu_us=%.1f ovrl_us=%.1f imb_overlap=%.3f\n", t_pure * 1e6, t_cpu * 1e6,
                t_ovrl * 1e6, imb);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
