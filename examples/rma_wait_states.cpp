// Validation by construction of the RMA wait states (osc_monitoring_wait_states 1): each
// scenario injects a delay of known length D at one chosen point, so that one pattern
// must show about D, with a known waiter and culprit; `balanced` injects nothing.
//
//   mpirun -np 4 --mca pml_monitoring_enable 2 --mca osc_monitoring_wait_states 1
//          rma_wait_states <scenario> [D seconds, default 0.3]
//
//   scenario          delay                                     expected (4 ranks)
//   late_post         rank 0 sleeps D before MPI_Win_post        ranks 1-3: late_post D, culprit 0
//   early_transfer    the same, origins put 64 KiB each          ranks 1-3: early_transfer D, culprit 0
//                                                                (osc rdma blocks in MPI_Win_start:
//                                                                 late_post D instead)
//   early_wait        rank 3 sleeps D before MPI_Win_start        rank 0: early_wait D, culprit 3
//   early_wait_test   the same, rank 0 ends its exposure with a   rank 0: early_wait D, culprit 3
//                     loop of MPI_Win_test
//   late_complete     rank 3 sleeps D between its put and         rank 0: early_wait D and
//                     MPI_Win_complete                            late_complete D, culprit 3
//   wait_at_fence     rank 3 sleeps D before a fence              ranks 0-2: wait_at_fence D, culprit 3
//   early_fence       rank 3 sleeps D, puts to rank 0, fences     rank 0: early_fence D (and
//                                                                 wait_at_fence D), ranks 1-2:
//                                                                 wait_at_fence D; culprit 3
//   lock_competition  rank 1 holds an exclusive lock on rank 0    rank 2: lock_competition D,
//                     for D while rank 2 asks for it              culprit 1
//   balanced          every kind of epoch, 5 rounds, no delay     nothing of note
//
// Each rank prints, right after the call that closed its last epoch, the window's
// osc_monitoring_wait_time and _wait_count performance variables (handles started when
// the window was created), %f seconds:
//   rank <r>: <scenario> wait_time <7 seconds> wait_count <7 counts>
// (the job file's wait_state lines must hold the same totals).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int rank = 0, size = 1;
double D = 0.3;

void pause_for(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

// The window's wait-state performance variables: handles started when the window is
// created (a TIMER or COUNTER handle reads what accumulated while it was started).
struct WaitVariables {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle time, count;
  int values = 0;
  bool present = false;
};

WaitVariables start_wait_variables(MPI_Win win) {
  WaitVariables v;
  MPI_T_pvar_session_create(&v.session);
  int time_index = -1, count_index = -1;
  v.present = MPI_T_pvar_get_index("osc_monitoring_wait_time", MPI_T_PVAR_CLASS_TIMER, &time_index) == MPI_SUCCESS &&
              MPI_T_pvar_get_index("osc_monitoring_wait_count", MPI_T_PVAR_CLASS_COUNTER, &count_index) == MPI_SUCCESS;
  if (!v.present) return v;
  MPI_T_pvar_handle_alloc(v.session, time_index, &win, &v.time, &v.values);
  MPI_T_pvar_handle_alloc(v.session, count_index, &win, &v.count, &v.values);
  MPI_T_pvar_start(v.session, v.time);
  MPI_T_pvar_start(v.session, v.count);
  return v;
}

void print_wait_variables(WaitVariables& v, const char* scenario) {
  std::string line = "rank " + std::to_string(rank) + ": " + scenario;
  if (v.present) {
    std::vector<double> seconds(v.values);
    std::vector<unsigned long long> counts(v.values);
    MPI_T_pvar_read(v.session, v.time, seconds.data());
    MPI_T_pvar_read(v.session, v.count, counts.data());
    line += " wait_time";
    for (double x : seconds) line += " " + std::to_string(x);
    line += " wait_count";
    for (unsigned long long x : counts) line += " " + std::to_string(x);
    MPI_T_pvar_handle_free(v.session, &v.time);
    MPI_T_pvar_handle_free(v.session, &v.count);
  } else {
    line += " wait variables absent";
  }
  MPI_T_pvar_session_free(&v.session);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

MPI_Group group_of(std::vector<int> ranks) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &g);
  MPI_Group_free(&world);
  return g;
}

std::vector<int> others(int except) {
  std::vector<int> v;
  for (int r = 0; r < size; ++r)
    if (r != except) v.push_back(r);
  return v;
}

// General active target: rank 0 exposes its window to every other rank, which puts
// `bytes` into it. `target_delay` before the post, `late_start` and `late_complete` on
// rank 3 (the last rank); `test_loop`: rank 0 ends with MPI_Win_test calls.
void gats(MPI_Win win, std::vector<char>& buffer, size_t bytes, double target_delay, double late_start,
          double late_complete, bool test_loop = false) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Group origins = group_of(others(0));
    if (target_delay > 0) pause_for(target_delay);
    MPI_Win_post(origins, 0, win);
    if (test_loop) {
      for (int done = 0; !done;) MPI_Win_test(win, &done);
    } else {
      MPI_Win_wait(win);
    }
    MPI_Group_free(&origins);
  } else {
    MPI_Group target = group_of({0});
    const bool last = rank == size - 1;
    if (last && late_start > 0) pause_for(late_start);
    MPI_Win_start(target, 0, win);
    MPI_Put(buffer.data(), static_cast<int>(bytes), MPI_CHAR, 0, static_cast<MPI_Aint>((rank - 1) * bytes),
            static_cast<int>(bytes), MPI_CHAR, win);
    if (last && late_complete > 0) pause_for(late_complete);
    MPI_Win_complete(win);
    MPI_Group_free(&target);
  }
}

void fences(MPI_Win win, std::vector<char>& buffer, bool put_late) {
  MPI_Win_fence(0, win);
  if (rank == size - 1) {
    pause_for(D);
    if (put_late) MPI_Put(buffer.data(), 8, MPI_CHAR, 0, 0, 8, MPI_CHAR, win);
  }
  MPI_Win_fence(0, win);
}

void lock_competition(MPI_Win win, std::vector<char>& buffer) {
  constexpr double settle = 0.05;  // rank 1's request reaches rank 0 before rank 2's
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(buffer.data(), 8, MPI_CHAR, 0, 0, 8, MPI_CHAR, win);
    MPI_Barrier(MPI_COMM_WORLD);
    pause_for(settle + D);
    MPI_Win_unlock(0, win);
  } else if (rank == 2) {
    MPI_Barrier(MPI_COMM_WORLD);
    pause_for(settle);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(buffer.data(), 8, MPI_CHAR, 0, 8, 8, MPI_CHAR, win);
    MPI_Win_unlock(0, win);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// Every kind of epoch, without any injected delay.
void balanced(MPI_Win win, std::vector<char>& buffer) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Group to_right = group_of({right}), from_left = group_of({left});
  for (int round = 0; round < 5; ++round) {
    MPI_Win_fence(0, win);
    MPI_Put(buffer.data(), 8, MPI_CHAR, right, 0, 8, MPI_CHAR, win);
    MPI_Win_fence(0, win);
    MPI_Win_post(from_left, 0, win);
    MPI_Win_start(to_right, 0, win);
    MPI_Put(buffer.data(), 8, MPI_CHAR, right, 8, 8, MPI_CHAR, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(buffer.data(), 8, MPI_CHAR, right, 16, 8, MPI_CHAR, win);
    MPI_Win_unlock(right, win);
  }
  MPI_Win_fence(0, win);
  MPI_Group_free(&to_right);
  MPI_Group_free(&from_left);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string scenario = argc > 1 ? argv[1] : "balanced";
  if (argc > 2) D = std::atof(argv[2]);
  if (size < 3) {
    if (rank == 0) std::fprintf(stderr, "rma_wait_states: run on at least 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  constexpr size_t kLarge = 64 * 1024;  // beyond osc pt2pt's eager buffer: its long protocol waits for the post
  std::vector<char> buffer(kLarge, static_cast<char>('a' + rank));
  void* memory = nullptr;
  MPI_Win win;
  MPI_Win_allocate(static_cast<MPI_Aint>(kLarge * size), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win);
  MPI_Win_set_name(win, scenario.c_str());
  WaitVariables variables = start_wait_variables(win);

  if (scenario == "late_post") {
    gats(win, buffer, 8, D, 0, 0);
  } else if (scenario == "early_transfer") {
    gats(win, buffer, kLarge, D, 0, 0);
  } else if (scenario == "early_wait") {
    gats(win, buffer, 8, 0, D, 0);
  } else if (scenario == "early_wait_test") {
    gats(win, buffer, 8, 0, D, 0, true);
  } else if (scenario == "late_complete") {
    gats(win, buffer, 8, 0, 0, D);
  } else if (scenario == "wait_at_fence") {
    fences(win, buffer, false);
  } else if (scenario == "early_fence") {
    fences(win, buffer, true);
  } else if (scenario == "lock_competition") {
    lock_competition(win, buffer);
  } else if (scenario == "balanced") {
    balanced(win, buffer);
  } else {
    if (rank == 0) std::fprintf(stderr, "rma_wait_states: unknown scenario '%s'\n", scenario.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  print_wait_variables(variables, scenario.c_str());
  MPI_Barrier(MPI_COMM_WORLD);  // rank 0 makes progress until the last lock is released
  MPI_Win_free(&win);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
