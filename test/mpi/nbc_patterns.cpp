// Nonblocking-collective overlap scenarios: the coll_monitoring_nbc_* performance
// variables around known patterns. Prints "rank <r>: OK <mode>" or what differed, and,
// for the overlap modes, "rank <r>: overlap <value> blocked <seconds>".
//
//   nbc_patterns kinds [none]               every nonblocking kind on MPI_COMM_WORLD, a split, a
//                                           Cartesian ring and an intercommunicator; the calls counted
//                                           (none: no call followed, the overlap reads NaN)
//   nbc_patterns two <bytes> <seconds> [none]
//                                           one MPI_Iallreduce of <bytes> on each of two communicators
//                                           during <seconds> of computation, the first alone, the second
//                                           with MPI_Test every 5 ms; prints both overlaps (none: no call
//                                           followed, both read NaN)
//   nbc_patterns many <count>               <count> MPI_Iallreduce on MPI_COMM_WORLD: prints how many
//                                           were followed
//   nbc_patterns overlap <bytes> <seconds> alone|test
//                                           MPI_Iallreduce of <bytes> (doubles), <seconds> of computation
//                                           without MPI calls (alone) or with MPI_Test every 5 ms, MPI_Wait
//   nbc_patterns exact                      2 ranks, deterministic schedules (libnbc): known overlaps
//   nbc_patterns blocked                    rank 1 joins an MPI_Ibarrier 0.3 s late: rank 0 was blocked
//   nbc_patterns tested                     an MPI_Ibarrier completed by MPI_Test before MPI_Wait
//   nbc_patterns retained                   a user operation and a derived datatype, freed while in use
//   nbc_patterns split <count> <seconds>    ibcast, ireduce, iallreduce, igather, iscatter of <count> ints
//                                           during computation (for the split-tree runs)
//   nbc_patterns --multiple <mode> ...      the same under MPI_THREAD_MULTIPLE (coll/splittree needs it)
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "scenario.h"

namespace {

using scenario::check;
using scenario::rank;
using scenario::size;
MPI_T_pvar_session session;

// A running handle on `name` bound to `comm` (COUNTER and TIMER variables report what
// accumulated while it runs; PERCENTAGE reads the live value).
struct Handle {
  MPI_T_pvar_handle handle{};
  Handle(const char* name, int klass, MPI_Comm comm) {
    int count = 0;
    MPI_T_pvar_handle_alloc(session, scenario::pvar_index(name, klass), &comm, &handle, &count);
    check(count == 1, std::string(name) + " has " + std::to_string(count) + " values");
    MPI_T_pvar_start(session, handle);
  }
  ~Handle() {
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
  }
  double read_double() {
    double v = -1;
    MPI_T_pvar_read(session, handle, &v);
    return v;
  }
  unsigned long long read_count() {
    unsigned long long v = 0;
    MPI_T_pvar_read(session, handle, &v);
    return v;
  }
};

struct Watch {  // the five variables on one communicator
  Handle calls, overlap, blocked, duration, followed;
  explicit Watch(MPI_Comm comm)
      : calls("coll_monitoring_nbc_calls", MPI_T_PVAR_CLASS_COUNTER, comm),
        overlap("coll_monitoring_nbc_overlap", MPI_T_PVAR_CLASS_PERCENTAGE, comm),
        blocked("coll_monitoring_nbc_blocked_time", MPI_T_PVAR_CLASS_TIMER, comm),
        duration("coll_monitoring_nbc_duration", MPI_T_PVAR_CLASS_TIMER, comm),
        followed("coll_monitoring_nbc_followed", MPI_T_PVAR_CLASS_COUNTER, comm) {}
};

// Computation without any MPI call for `seconds`; with `poll`, MPI_Test on `request`
// every 5 ms.
void compute(double seconds, MPI_Request* poll = nullptr) {
  using clock = std::chrono::steady_clock;
  const auto end = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
  auto next_test = clock::now() + std::chrono::milliseconds(5);
  volatile double x = 1.0;
  while (clock::now() < end) {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
    if (poll != nullptr && clock::now() >= next_test) {
      int done = 0;
      MPI_Test(poll, &done, MPI_STATUS_IGNORE);
      next_test = clock::now() + std::chrono::milliseconds(5);
    }
  }
}

void wait(MPI_Request* r) { MPI_Wait(r, MPI_STATUS_IGNORE); }

// Every nonblocking collective an intracommunicator has (17), each waited for at once.
int every_intra_kind(MPI_Comm c, bool intercomm) {
  int n = 0, me = 0;
  if (intercomm) {
    MPI_Comm_remote_size(c, &n);
  } else {
    MPI_Comm_size(c, &n);
  }
  MPI_Comm_rank(c, &me);
  std::vector<int> in(64 * (n + 2)), out(64 * (n + 2)), counts(n, 2), displs(n);
  std::vector<MPI_Datatype> types(n, MPI_INT);
  for (int i = 0; i < n; ++i) displs[i] = 2 * i;
  MPI_Request r;
  int calls = 0;
  auto run = [&](int rc) {
    check(rc == MPI_SUCCESS, "call " + std::to_string(calls));
    wait(&r);
    ++calls;
  };
  // Rooted collectives: root 0 of the first group (intercommunicator: MPI_ROOT there,
  // 0 in the other group, MPI_PROC_NULL for the rest of the first group).
  int root = 0;
  if (intercomm) {
    int world_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    const bool first_group = world_rank < size / 2;
    root = first_group ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  }
  run(MPI_Iallgather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, c, &r));
  run(MPI_Iallgatherv(out.data(), 2, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, c, &r));
  run(MPI_Iallreduce(out.data(), in.data(), 2, MPI_INT, MPI_SUM, c, &r));
  run(MPI_Ialltoall(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, c, &r));
  run(MPI_Ialltoallv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), counts.data(), displs.data(),
                     MPI_INT, c, &r));
  std::vector<int> wdispls(n);
  for (int i = 0; i < n; ++i) wdispls[i] = displs[i] * static_cast<int>(sizeof(int));
  run(MPI_Ialltoallw(out.data(), counts.data(), wdispls.data(), types.data(), in.data(), counts.data(), wdispls.data(),
                     types.data(), c, &r));
  run(MPI_Ibarrier(c, &r));
  run(MPI_Ibcast(out.data(), 2, MPI_INT, root, c, &r));
  if (!intercomm) run(MPI_Iexscan(out.data(), in.data(), 2, MPI_INT, MPI_SUM, c, &r));
  run(MPI_Igather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, root, c, &r));
  run(MPI_Igatherv(out.data(), 2, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, root, c, &r));
  run(MPI_Ireduce(out.data(), in.data(), 2, MPI_INT, MPI_SUM, root, c, &r));
  int local_size = 0;
  MPI_Comm_size(c, &local_size);
  std::vector<int> rs_counts(intercomm ? std::max(local_size, n) : n, 2);
  run(MPI_Ireduce_scatter(out.data(), in.data(), rs_counts.data(), MPI_INT, MPI_SUM, c, &r));
  run(MPI_Ireduce_scatter_block(out.data(), in.data(), 2, MPI_INT, MPI_SUM, c, &r));
  if (!intercomm) run(MPI_Iscan(out.data(), in.data(), 2, MPI_INT, MPI_SUM, c, &r));
  run(MPI_Iscatter(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, root, c, &r));
  run(MPI_Iscatterv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), 2, MPI_INT, root, c, &r));
  return calls;
}

// The five neighbourhood collectives on a topology communicator with `degree` neighbours.
int every_neighbor_kind(MPI_Comm c, int degree) {
  std::vector<int> in(8 * degree + 8), out(8 * degree + 8), counts(degree, 2), displs(degree);
  std::vector<MPI_Aint> wdispls(degree);
  std::vector<MPI_Datatype> types(degree, MPI_INT);
  for (int i = 0; i < degree; ++i) displs[i] = 2 * i, wdispls[i] = 8 * i;
  MPI_Request r;
  MPI_Ineighbor_allgather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, c, &r);
  wait(&r);
  MPI_Ineighbor_allgatherv(out.data(), 2, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, c, &r);
  wait(&r);
  MPI_Ineighbor_alltoall(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, c, &r);
  wait(&r);
  MPI_Ineighbor_alltoallv(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), counts.data(), displs.data(),
                          MPI_INT, c, &r);
  wait(&r);
  MPI_Ineighbor_alltoallw(out.data(), counts.data(), wdispls.data(), types.data(), in.data(), counts.data(),
                          wdispls.data(), types.data(), c, &r);
  wait(&r);
  return 5;
}

// Which of the calls the variables follow: every one (the default's first 64 per
// communicator, or coll_monitoring_nbc_sampling 1), none (coll_monitoring_nbc_exact_calls
// 0 and coll_monitoring_nbc_sampling 0).
bool followed_none = false;

void expect_calls(Watch& w, unsigned long long issued, const std::string& what) {
  const unsigned long long calls = w.calls.read_count(), followed = w.followed.read_count();
  const unsigned long long expected = followed_none ? 0 : issued;
  const double overlap = w.overlap.read_double(), blocked = w.blocked.read_double(),
               duration = w.duration.read_double();
  check(calls == expected && followed == expected, what + ": " + std::to_string(calls) + " calls, " +
                                                       std::to_string(followed) + " followed, expected " +
                                                       std::to_string(expected));
  // Nothing followed: the overlap is not a number (docs/pvars.md), never a 0.
  check(followed_none ? std::isnan(overlap) : overlap >= 0 && overlap <= 1,
        what + ": overlap " + std::to_string(overlap));
  check(blocked >= 0 && duration >= blocked && duration < 600,
        what + ": blocked " + std::to_string(blocked) + " s of " + std::to_string(duration) + " s");
}

void kinds() {
  MPI_Comm reversed, ring, half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  MPI_Comm_set_name(reversed, "reversed");
  const int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_set_name(ring, "ring");
  const int first_group = rank < size / 2;
  MPI_Comm_split(MPI_COMM_WORLD, first_group, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, first_group ? size / 2 : 0, 7, &inter);
  MPI_Comm_set_name(inter, "inter");
  {
    Watch world(MPI_COMM_WORLD), rev(reversed), cart(ring), ic(inter);
    const int world_calls = every_intra_kind(MPI_COMM_WORLD, false);
    const int reversed_calls = every_intra_kind(reversed, false);
    const int ring_calls = every_neighbor_kind(ring, 2);
    const int inter_calls = every_intra_kind(inter, true);
    // Communicator creation's own iallreduce (context ids) is not the application's.
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
    expect_calls(world, world_calls, "MPI_COMM_WORLD");
    expect_calls(rev, reversed_calls, "reversed");
    expect_calls(cart, ring_calls, "ring");
    expect_calls(ic, inter_calls, "inter");
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&reversed);
}

void overlap(long long bytes, double seconds, bool poll) {
  const size_t count = static_cast<size_t>(bytes) / sizeof(double);
  std::vector<double> in(count, 1.0 + rank), out(count);
  Watch w(MPI_COMM_WORLD);
  MPI_Request r;
  MPI_Iallreduce(in.data(), out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
  compute(seconds, poll ? &r : nullptr);
  wait(&r);
  const double expected = size * (size + 1) / 2.0;
  check(out.front() == expected && out.back() == expected, "allreduce result");
  std::printf("rank %d: overlap %.6f blocked %.6f duration %.6f\n", rank, w.overlap.read_double(),
              w.blocked.read_double(), w.duration.read_double());
  check(w.calls.read_count() == 1, "one call");
}

// The program of issue 35: one MPI_Iallreduce on each of two communicators, the first
// left alone during the computation (overlap about 0), the second tested every 5 ms
// (about 1). With the default settings both are followed (the first calls of each
// communicator are); with none followed both read NaN.
void two_communicators(long long bytes, double seconds) {
  const size_t count = static_cast<size_t>(bytes) / sizeof(double);
  std::vector<double> in(count, 1.0 + rank), out(count);
  MPI_Comm first, second;
  MPI_Comm_dup(MPI_COMM_WORLD, &first);
  MPI_Comm_dup(MPI_COMM_WORLD, &second);
  MPI_Comm_set_name(first, "alone");
  MPI_Comm_set_name(second, "tested");
  {
    Watch a(first), b(second);
    MPI_Request r;
    MPI_Iallreduce(in.data(), out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, first, &r);
    compute(seconds);
    wait(&r);
    MPI_Iallreduce(in.data(), out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, second, &r);
    compute(seconds, &r);
    wait(&r);
    const double expected = size * (size + 1) / 2.0;
    check(out.front() == expected && out.back() == expected, "allreduce result");
    const unsigned long long followed_a = a.followed.read_count(), followed_b = b.followed.read_count();
    const double overlap_a = a.overlap.read_double(), overlap_b = b.overlap.read_double();
    std::printf("rank %d: two alone %.6f followed %llu tested %.6f followed %llu\n", rank, overlap_a, followed_a,
                overlap_b, followed_b);
    const unsigned long long expected_followed = followed_none ? 0 : 1;
    check(followed_a == expected_followed && followed_b == expected_followed,
          "followed " + std::to_string(followed_a) + " and " + std::to_string(followed_b));
    if (followed_none) check(std::isnan(overlap_a) && std::isnan(overlap_b), "not followed: the overlaps are NaN");
  }
  MPI_Comm_free(&first);
  MPI_Comm_free(&second);
}

// <count> small MPI_Iallreduce on MPI_COMM_WORLD, each waited for: how many were followed.
void many(int count) {
  Watch w(MPI_COMM_WORLD);
  int in = rank, out = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Request r;
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    wait(&r);
  }
  check(out == size * (size - 1) / 2, "allreduce result");
  std::printf("rank %d: followed %llu of %d completed %llu\n", rank, w.followed.read_count(), count,
              w.calls.read_count());
}

// libnbc on 2 ranks, binomial schedules: an MPI_Iallreduce of 4 ints sends rank 1's data
// to rank 0 in its first round (inside the call) and rank 0's result back in the second
// (in progress, here inside MPI_Wait). Waited for at once: rank 1 overlapped fully, rank 0
// not at all. The same completed by MPI_Test first: both fully. (One communicator each:
// the overlap variable covers every call since MPI_Init.)
void exact() {
  int in[4] = {1, 2, 3, 4}, out[4];
  MPI_Request r;
  MPI_Comm first, second;
  MPI_Comm_dup(MPI_COMM_WORLD, &first);
  MPI_Comm_dup(MPI_COMM_WORLD, &second);
  MPI_Comm_set_name(first, "waited");  // the job-file lines are checked by name (nbc_test.cpp)
  MPI_Comm_set_name(second, "tested");
  {
    Watch w(first);
    MPI_Iallreduce(in, out, 4, MPI_INT, MPI_SUM, first, &r);
    wait(&r);
    const double overlap = w.overlap.read_double();
    check(overlap == (rank == 1 ? 1.0 : 0.0), "waited at once: overlap " + std::to_string(overlap));
    check(out[3] == 8, "result");
  }
  {
    Watch w(second);
    MPI_Iallreduce(in, out, 4, MPI_INT, MPI_SUM, second, &r);
    for (int done = 0; !done;) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    const double overlap = w.overlap.read_double();
    check(overlap == 1.0 && w.blocked.read_double() == 0.0,
          "completed by MPI_Test: overlap " + std::to_string(overlap));
  }
  MPI_Comm_free(&first);
  MPI_Comm_free(&second);
}

void blocked() {
  Watch w(MPI_COMM_WORLD);
  MPI_Request r;
  if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  wait(&r);
  const double blocked = w.blocked.read_double(), duration = w.duration.read_double();
  // Rank 0 cannot complete before rank 1 joins (lower bounds only: load only adds time).
  if (rank == 0) check(blocked >= 0.25 && duration >= blocked, "blocked " + std::to_string(blocked) + " s");
  std::printf("rank %d: overlap %.6f blocked %.6f duration %.6f\n", rank, w.overlap.read_double(), blocked, duration);
}

void tested() {
  Watch w(MPI_COMM_WORLD);
  MPI_Request r;
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  for (int done = 0; !done;) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
  MPI_Request again = MPI_REQUEST_NULL;
  MPI_Wait(&again, MPI_STATUS_IGNORE);
  check(w.overlap.read_double() == 1.0, "overlap " + std::to_string(w.overlap.read_double()));
  check(w.blocked.read_double() == 0.0, "blocked " + std::to_string(w.blocked.read_double()));
  check(w.calls.read_count() == 1, "calls");
}

// Collectives whose MPI binding keeps a user operation or a derived datatype alive until
// completion (Open MPI wraps the request's completion callback, ours included).
void wrapping_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<const int*>(in)[i];
}

void retained() {
  Watch w(MPI_COMM_WORLD);
  MPI_Op sum;
  MPI_Op_create(wrapping_sum, 1, &sum);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int in[4] = {rank, 1, 2, 3}, out[4] = {};
  MPI_Request r;
  MPI_Iallreduce(in, out, 4, MPI_INT, sum, MPI_COMM_WORLD, &r);
  MPI_Op_free(&sum);  // freed while the collective runs: the binding keeps it
  wait(&r);
  check(out[0] == size * (size - 1) / 2 && out[3] == 3 * size, "user operation result");
  int data[4] = {rank == 0 ? 5 : 0, 6, 7, rank == 0 ? 8 : 0};
  MPI_Ibcast(data, 2, pair, 0, MPI_COMM_WORLD, &r);
  MPI_Type_free(&pair);
  wait(&r);
  check(data[0] == 5 && data[3] == 8, "derived datatype result");
  check(w.calls.read_count() == 2, "calls " + std::to_string(w.calls.read_count()));
}

// The five tree collectives the split tree implements, each during `seconds` of
// computation, with their results checked.
void split(int count, double seconds) {
  std::vector<int> data(static_cast<size_t>(count) * size), result(static_cast<size_t>(count) * size);
  Watch w(MPI_COMM_WORLD);
  MPI_Request r;
  for (int i = 0; i < count; ++i) data[i] = rank * 1000 + i;
  // ibcast from the last rank
  std::vector<int> bcast(count, rank == size - 1 ? 7 : 0);
  MPI_Ibcast(bcast.data(), count, MPI_INT, size - 1, MPI_COMM_WORLD, &r);
  compute(seconds);
  wait(&r);
  check(bcast.front() == 7 && bcast.back() == 7, "ibcast");
  MPI_Ireduce(data.data(), result.data(), count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r);
  compute(seconds);
  wait(&r);
  if (rank == 0) check(result[count - 1] == 1000 * size * (size - 1) / 2 + size * (count - 1), "ireduce");
  MPI_Iallreduce(data.data(), result.data(), count, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
  compute(seconds);
  wait(&r);
  check(result[0] == 1000 * (size - 1), "iallreduce");
  MPI_Igather(data.data(), count, MPI_INT, result.data(), count, MPI_INT, 1 % size, MPI_COMM_WORLD, &r);
  compute(seconds);
  wait(&r);
  if (rank == 1 % size) check(result[static_cast<size_t>(count) * (size - 1)] == 1000 * (size - 1), "igather");
  for (int i = 0; i < count * size; ++i) data[i] = i;
  MPI_Iscatter(data.data(), count, MPI_INT, result.data(), count, MPI_INT, 0, MPI_COMM_WORLD, &r);
  compute(seconds);
  wait(&r);
  check(result[0] == rank * count, "iscatter");
  std::printf("rank %d: overlap %.6f blocked %.6f duration %.6f\n", rank, w.overlap.read_double(),
              w.blocked.read_double(), w.duration.read_double());
}

}  // namespace

int main(int argc, char** argv) {
  // --multiple: MPI_THREAD_MULTIPLE (what coll/splittree needs); else MPI_THREAD_SINGLE.
  const bool multiple = argc > 1 && std::string(argv[1]) == "--multiple";
  if (multiple) --argc, ++argv;
  const std::string mode = argc > 1 ? argv[1] : "";
  scenario::init(argc, argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
  MPI_T_pvar_session_create(&session);
  if (mode == "kinds") {
    followed_none = argc > 2 && std::string(argv[2]) == "none";
    kinds();
  } else if (mode == "two" && argc > 3) {
    followed_none = argc > 4 && std::string(argv[4]) == "none";
    two_communicators(std::atoll(argv[2]), std::atof(argv[3]));
  } else if (mode == "many" && argc > 2) {
    many(std::atoi(argv[2]));
  } else if (mode == "overlap" && argc > 4) {
    overlap(std::atoll(argv[2]), std::atof(argv[3]), std::string(argv[4]) == "test");
  } else if (mode == "exact") {
    exact();
  } else if (mode == "blocked") {
    blocked();
  } else if (mode == "tested") {
    tested();
  } else if (mode == "retained") {
    retained();
  } else if (mode == "split" && argc > 3) {
    split(std::atoi(argv[2]), std::atof(argv[3]));
  } else {
    std::fprintf(stderr, "nbc_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_T_pvar_session_free(&session);
  return scenario::report_and_finalize(mode);
}
