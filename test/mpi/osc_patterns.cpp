// One-sided scenarios for the OSC layer's tests. Each verifies what it can itself (data
// moved, MPI_Win_shared_query, performance variables against the known pattern) and
// prints "rank <r>: OK <mode>" or "rank <r>: FAILED <mode> [what differed]...".
//
//   osc_patterns ops [threads]   every RMA operation, one after the other, in a lock_all
//                                epoch; after each, the osc pvars' deltas on
//                                MPI_COMM_WORLD must be exactly that operation's (see
//                                expected_op below; the test recomputes the totals)
//   osc_patterns flavors [no_shared]
//                                create, allocate, allocate_shared (+ shared_query),
//                                dynamic (attach/detach): 8 bytes put to the right
//                                neighbour under fences, per flavor; no_shared skips
//                                allocate_shared (for --mca osc lists that cannot)
//   osc_patterns sync            fence, PSCW, lock/unlock, lock_all, flush variants and
//                                sync on a window named "sync window", then fences on an
//                                unnamed one ("window 2"); checks the sync pvars' counts
//   osc_patterns pvars           osc SIZE pvars on MPI_COMM_WORLD and on a split
//                                communicator with reversed keys
//   osc_patterns errors          RMA calls that fail: the MPI error is returned and
//                                nothing is recorded (prints the return codes)
//   osc_patterns warm_errors     the same failures after a put and a get to the same target
//                                on the same window succeeded: they take the wrappers' fast
//                                path (warm peer cache) and are not recorded either
//   osc_patterns many_windows    250 unnamed windows created and freed, one fence each
//   osc_patterns unmonitored [no_shared]
//                                flavors + ops data movement, expecting the osc pvars to
//                                stay 0 (or be absent)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "scenario.h"

namespace {

int& world_rank = scenario::rank;
int& world_size = scenario::size;
using scenario::check;
MPI_T_pvar_session session;

// ---------------------------------------------------------------------------------------
// Performance variables

const char* const kSizeVariables[4] = {"osc_monitoring_messages_sent_count", "osc_monitoring_messages_sent_size",
                                       "osc_monitoring_messages_recv_count", "osc_monitoring_messages_recv_size"};

// values[v][i]: variable v of kSizeVariables, rank i of comm. Empty if the variables do
// not exist (component excluded).
using Totals = std::vector<std::vector<unsigned long long>>;

Totals read_totals(MPI_Comm comm) {
  Totals totals;
  for (const char* name : kSizeVariables) {
    int index = -1;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_SIZE, &index) != MPI_SUCCESS) return {};
    MPI_T_pvar_handle handle;
    int count = -1;
    check(MPI_T_pvar_handle_alloc(session, index, &comm, &handle, &count) == MPI_SUCCESS,
          std::string("handle_alloc ") + name);
    std::vector<unsigned long long> values(count + 1, 777);
    MPI_T_pvar_start(session, handle);
    check(MPI_T_pvar_read(session, handle, values.data()) == MPI_SUCCESS, std::string("read ") + name);
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
    check(values[count] == 777, std::string("wrote past count: ") + name);
    values.resize(count);
    totals.push_back(values);
  }
  return totals;
}

std::string join(const std::vector<unsigned long long>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// now - before must equal expected (4 variables x size values).
void check_delta(const Totals& before, const Totals& now, const Totals& expected, const std::string& label) {
  if (before.empty() || now.empty()) {
    check(false, label + ": osc pvars missing");
    return;
  }
  for (int v = 0; v < 4; ++v) {
    std::vector<unsigned long long> delta(now[v].size());
    for (size_t i = 0; i < delta.size(); ++i) delta[i] = now[v][i] - before[v][i];
    check(delta == expected[v],
          label + " " + kSizeVariables[v] + " delta " + join(delta) + " expected " + join(expected[v]));
  }
}

// ---------------------------------------------------------------------------------------
// ops: every RMA operation, with exact expected accounting

enum Op {
  op_put,
  op_rput,
  op_get,
  op_rget,
  op_accumulate,
  op_raccumulate,
  op_get_accumulate,
  op_rget_accumulate,
  op_fetch_and_op,
  op_compare_and_swap,
  op_get_accumulate_no_op,
  op_fetch_and_op_no_op,
  op_put_vector,
  op_count
};
const char* const kOpNames[op_count] = {"put",
                                        "rput",
                                        "get",
                                        "rget",
                                        "accumulate",
                                        "raccumulate",
                                        "get_accumulate",
                                        "rget_accumulate",
                                        "fetch_and_op",
                                        "compare_and_swap",
                                        "get_accumulate(MPI_NO_OP)",
                                        "fetch_and_op(MPI_NO_OP)",
                                        "put(vector type)"};

// Elements of MPI_INT that rank r moves to target t with operation k (data operations),
// or the number of calls (atomic operations, one element each).
int elements(int k, int r, int t) { return (r + 2 * t + k) % 5 + 1; }
int calls(int t) { return t + 1; }

// The accounting rule under test (docs/formats.md): {sent msgs, sent bytes, recv
// msgs, recv bytes} that rank r records against target t for operation k.
std::vector<unsigned long long> expected_op(int k, int r, int t) {
  const unsigned long long c = elements(k, r, t), a = calls(t);
  switch (k) {
    case op_put:
    case op_rput:
    case op_accumulate:
    case op_raccumulate:
      return {1, 4 * c, 0, 0};
    case op_get:
    case op_rget:
      return {0, 0, 1, 4 * c};
    case op_get_accumulate:
    case op_rget_accumulate:
      return {1, 4 * c, 1, 4 * c};
    case op_fetch_and_op:
    case op_compare_and_swap:
      return {a, 4 * a, a, 4 * a};
    case op_get_accumulate_no_op:
      return {0, 0, 1, 4 * c};
    case op_fetch_and_op_no_op:
      return {0, 0, a, 4 * a};
    case op_put_vector:
      return {1, 4 * 2 * c, 0, 0};  // c vectors of 2 ints (stride 2): 8 bytes each
  }
  return {};
}

void ops(bool threads, bool check_pvars = true) {
  int provided_ok = 1;
  if (threads) {
    int provided;
    MPI_Query_thread(&provided);
    provided_ok = provided == MPI_THREAD_MULTIPLE;
    check(provided_ok, "MPI_THREAD_MULTIPLE not provided");
  }
  std::vector<int> memory(128, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Datatype vector;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vector);
  MPI_Type_commit(&vector);
  std::vector<int> origin(32, world_rank + 1), result(32, 0);
  int one = 1, compare = 0, fetched = 0;
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < op_count; ++k) {
    const Totals before = read_totals(MPI_COMM_WORLD);
    for (int t = 0; t < world_size; ++t) {
      const int c = elements(k, world_rank, t);
      const MPI_Aint slot = world_rank * 16;  // this origin's own region for put/get
      MPI_Request request = MPI_REQUEST_NULL;
      switch (k) {
        case op_put:
          MPI_Put(origin.data(), c, MPI_INT, t, slot, c, MPI_INT, win);
          break;
        case op_rput:
          MPI_Rput(origin.data(), c, MPI_INT, t, slot, c, MPI_INT, win, &request);
          break;
        case op_get:
          MPI_Get(result.data(), c, MPI_INT, t, slot, c, MPI_INT, win);
          break;
        case op_rget:
          MPI_Rget(result.data(), c, MPI_INT, t, slot, c, MPI_INT, win, &request);
          break;
        case op_accumulate:
          MPI_Accumulate(origin.data(), c, MPI_INT, t, 64, c, MPI_INT, MPI_SUM, win);
          break;
        case op_raccumulate:
          MPI_Raccumulate(origin.data(), c, MPI_INT, t, 64, c, MPI_INT, MPI_SUM, win, &request);
          break;
        case op_get_accumulate:
          MPI_Get_accumulate(origin.data(), c, MPI_INT, result.data(), c, MPI_INT, t, 64, c, MPI_INT, MPI_SUM, win);
          break;
        case op_rget_accumulate:
          MPI_Rget_accumulate(origin.data(), c, MPI_INT, result.data(), c, MPI_INT, t, 64, c, MPI_INT, MPI_SUM, win,
                              &request);
          break;
        case op_get_accumulate_no_op:
          MPI_Get_accumulate(nullptr, 0, MPI_INT, result.data(), c, MPI_INT, t, 64, c, MPI_INT, MPI_NO_OP, win);
          break;
        case op_put_vector:
          MPI_Put(origin.data(), c, vector, t, slot, 2 * c, MPI_INT, win);
          break;
        case op_fetch_and_op:
        case op_compare_and_swap:
        case op_fetch_and_op_no_op:
          for (int i = 0; i < calls(t); ++i) {
            if (k == op_fetch_and_op) MPI_Fetch_and_op(&one, &fetched, MPI_INT, t, 80, MPI_SUM, win);
            if (k == op_fetch_and_op_no_op) MPI_Fetch_and_op(nullptr, &fetched, MPI_INT, t, 80, MPI_NO_OP, win);
            if (k == op_compare_and_swap) MPI_Compare_and_swap(&one, &compare, &fetched, MPI_INT, t, 81, win);
            MPI_Win_flush(t, win);
          }
          break;
      }
      if (request != MPI_REQUEST_NULL) MPI_Wait(&request, MPI_STATUS_IGNORE);
      MPI_Win_flush(t, win);
    }
    Totals expected(4, std::vector<unsigned long long>(world_size));
    for (int t = 0; t < world_size; ++t) {
      const auto e = expected_op(k, world_rank, t);
      for (int v = 0; v < 4; ++v) expected[v][t] = e[v];
    }
    if (check_pvars) check_delta(before, read_totals(MPI_COMM_WORLD), expected, kOpNames[k]);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  // The gets read back what this origin put last into its region at each target:
  // put(vector) wrote origin[0], origin[2], ... (all world_rank + 1).
  MPI_Win_lock(MPI_LOCK_SHARED, (world_rank + 1) % world_size, 0, win);
  std::vector<int> back(4, -1);
  MPI_Get(back.data(), 4, MPI_INT, (world_rank + 1) % world_size, world_rank * 16, 4, MPI_INT, win);
  MPI_Win_unlock((world_rank + 1) % world_size, win);
  check(back[0] == world_rank + 1, "data read back " + std::to_string(back[0]));
  MPI_Type_free(&vector);
  MPI_Win_free(&win);
}

// ---------------------------------------------------------------------------------------
// flavors: create, allocate, allocate_shared, dynamic

int right() { return (world_rank + 1) % world_size; }
int left() { return (world_rank + world_size - 1) % world_size; }

// Puts two ints {rank, 1000 + rank} to the right neighbour at `disp` under fences and
// checks what the left neighbour put into `memory`.
void fence_put(MPI_Win win, MPI_Aint disp, const int* memory, const std::string& label) {
  int data[2] = {world_rank, 1000 + world_rank};
  MPI_Win_fence(0, win);
  check(MPI_Put(data, 2, MPI_INT, right(), disp, 2, MPI_INT, win) == MPI_SUCCESS, label + " put");
  MPI_Win_fence(0, win);
  check(memory[0] == left() && memory[1] == 1000 + left(),
        label + " received " + std::to_string(memory[0]) + "," + std::to_string(memory[1]));
}

bool skip_shared = false;  // "no_shared": for --mca osc lists without a component for shared windows

void flavors() {
  {
    std::vector<int> memory(4, -1);
    MPI_Win win;
    MPI_Win_create(memory.data(), 16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    fence_put(win, 0, memory.data(), "create");
    MPI_Win_free(&win);
  }
  {
    int* memory = nullptr;
    MPI_Win win;
    MPI_Win_allocate(16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win);
    memory[0] = memory[1] = -1;
    fence_put(win, 0, memory, "allocate");
    MPI_Win_free(&win);
  }
  if (!skip_shared) {
    int* memory = nullptr;
    MPI_Win win;
    MPI_Win_allocate_shared(16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win);
    memory[0] = memory[1] = -1;
    fence_put(win, 0, memory, "allocate_shared");
    // The right neighbour's segment, read directly: what we put there.
    MPI_Aint size = 0;
    int disp_unit = 0;
    int* theirs = nullptr;
    const int rc = MPI_Win_shared_query(win, right(), &size, &disp_unit, &theirs);
    check(rc == MPI_SUCCESS, "MPI_Win_shared_query returned " + std::to_string(rc));
    if (rc == MPI_SUCCESS) {
      check(size == 16 && disp_unit == static_cast<int>(sizeof(int)),
            "shared_query size " + std::to_string(size) + " disp_unit " + std::to_string(disp_unit));
      check(theirs != nullptr && theirs[0] == world_rank && theirs[1] == 1000 + world_rank, "shared memory content");
    }
    MPI_Win_free(&win);
  }
  {
    std::vector<int> memory(4, -1);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    check(MPI_Win_attach(win, memory.data(), 16) == MPI_SUCCESS, "attach");
    MPI_Aint mine, addresses[64];
    MPI_Get_address(memory.data(), &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD);
    fence_put(win, addresses[right()], memory.data(), "dynamic");
    check(MPI_Win_detach(win, memory.data()) == MPI_SUCCESS, "detach");
    MPI_Win_free(&win);
  }
}

// ---------------------------------------------------------------------------------------
// sync: every synchronisation call, known counts

void sync_calls() {
  std::vector<int> memory(8, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_name(win, "sync window");
  int value = world_rank;
  // 2 fences
  MPI_Win_fence(0, win);
  MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  // PSCW: everyone exposes to its left neighbour and accesses its right one.
  MPI_Group world_group, left_group, right_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int l = left(), r = right();
  MPI_Group_incl(world_group, 1, &l, &left_group);
  MPI_Group_incl(world_group, 1, &r, &right_group);
  MPI_Win_post(left_group, 0, win);
  MPI_Win_start(right_group, 0, win);
  MPI_Put(&value, 1, MPI_INT, right(), 1, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  // PSCW again, finished with MPI_Win_test (at least one call).
  MPI_Win_post(left_group, 0, win);
  MPI_Win_start(right_group, 0, win);
  MPI_Put(&value, 1, MPI_INT, right(), 2, 1, MPI_INT, win);
  MPI_Win_complete(win);
  int flag = 0;
  while (!flag) MPI_Win_test(win, &flag);
  MPI_Group_free(&left_group);
  MPI_Group_free(&right_group);
  MPI_Group_free(&world_group);
  // 3 lock/unlock epochs with a flush and a flush_local in the first
  for (int i = 0; i < 3; ++i) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right(), 0, win);
    MPI_Put(&value, 1, MPI_INT, right(), 3, 1, MPI_INT, win);
    if (i == 0) {
      MPI_Win_flush(right(), win);
      MPI_Win_flush_local(right(), win);
    }
    MPI_Win_unlock(right(), win);
  }
  // lock_all with flush_all, flush_local_all, sync and another flush
  MPI_Win_lock_all(0, win);
  MPI_Put(&value, 1, MPI_INT, right(), 4, 1, MPI_INT, win);
  MPI_Win_flush_all(win);
  MPI_Win_flush_local_all(win);
  MPI_Win_sync(win);
  MPI_Win_flush(right(), win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);

  // The window's sync pvars: exact counts, times >= 0 and > 0 for fence.
  int index = -1;
  if (MPI_T_pvar_get_index("osc_monitoring_sync_count", MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS) {
    check(false, "osc_monitoring_sync_count missing");
  } else {
    MPI_T_pvar_handle handle;
    int count = -1;
    // Started now: counts from here. Two more fences must read 2 for fence.
    check(MPI_T_pvar_handle_alloc(session, index, &win, &handle, &count) == MPI_SUCCESS, "sync_count alloc");
    check(count == 15, "sync_count count " + std::to_string(count));
    MPI_T_pvar_start(session, handle);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    std::vector<unsigned long long> values(16, 777);
    check(MPI_T_pvar_read(session, handle, values.data()) == MPI_SUCCESS, "sync_count read");
    check(values[0] == 2 && values[1] == 0 && values[15] == 777, "sync_count since start " + join(values));
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
  }
  if (MPI_T_pvar_get_index("osc_monitoring_sync_time", MPI_T_PVAR_CLASS_TIMER, &index) != MPI_SUCCESS) {
    check(false, "osc_monitoring_sync_time missing");
  } else {
    MPI_T_pvar_handle handle;
    int count = -1;
    check(MPI_T_pvar_handle_alloc(session, index, &win, &handle, &count) == MPI_SUCCESS, "sync_time alloc");
    check(count == 15, "sync_time count " + std::to_string(count));
    MPI_T_pvar_start(session, handle);
    MPI_Win_fence(0, win);
    std::vector<double> seconds(15, -1);
    check(MPI_T_pvar_read(session, handle, seconds.data()) == MPI_SUCCESS, "sync_time read");
    check(seconds[0] > 0 && seconds[0] < 10, "fence seconds " + std::to_string(seconds[0]));
    for (int k = 1; k < 15; ++k) check(seconds[k] == 0, "no other sync kind since start: " + std::to_string(k));
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
  }
  MPI_Win_free(&win);

  // An unnamed window created after: "window 1" is free again, so it is "window 1".
  MPI_Win second;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &second);
  char name[MPI_MAX_OBJECT_NAME];
  int length = 0;
  MPI_Win_get_name(second, name, &length);
  std::printf("rank %d: unnamed window's MPI name '%s'\n", world_rank, name);
  // A third window while the second lives: "window 2"; 3 fences on it.
  MPI_Win third;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &third);
  for (int i = 0; i < 3; ++i) MPI_Win_fence(0, third);
  MPI_Win_fence(0, second);
  MPI_Win_free(&third);
  MPI_Win_free(&second);
}

// ---------------------------------------------------------------------------------------
// pvars on MPI_COMM_WORLD and a split communicator

// On a window over `comm`: (w + 1) puts of 8 bytes and one get of 4 bytes to every
// member whose world rank is w (self included).
void put_get_pattern(MPI_Comm comm) {
  std::vector<int> memory(16, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &win);
  const std::vector<int> world_of = scenario::world_ranks_of(comm);
  int data[2] = {1, 2}, got = 0;
  MPI_Win_lock_all(0, win);
  for (size_t i = 0; i < world_of.size(); ++i) {
    for (int k = 0; k < world_of[i] + 1; ++k) MPI_Put(data, 2, MPI_INT, static_cast<int>(i), 2, 2, MPI_INT, win);
    MPI_Get(&got, 1, MPI_INT, static_cast<int>(i), 0, 1, MPI_INT, win);
    MPI_Win_flush(static_cast<int>(i), win);
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
}

void check_comm(MPI_Comm comm, const Totals& before, int times, const std::string& label) {
  const std::vector<int> world_of = scenario::world_ranks_of(comm);
  Totals expected(4, std::vector<unsigned long long>(world_of.size()));
  for (size_t i = 0; i < world_of.size(); ++i) {
    const unsigned long long w = world_of[i];
    expected[0][i] = times * (w + 1);
    expected[1][i] = times * 8 * (w + 1);
    expected[2][i] = times;
    expected[3][i] = times * 4;
  }
  check_delta(before, read_totals(comm), expected, label);
}

void pvars() {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &half);  // reversed order
  const std::vector<int> order = scenario::world_ranks_of(half);
  check(order.size() < 2 || order[0] > order[1], "split order not reversed");
  const Totals world_before = read_totals(MPI_COMM_WORLD), half_before = read_totals(half);
  put_get_pattern(MPI_COMM_WORLD);
  check_comm(MPI_COMM_WORLD, world_before, 1, "world after world pattern");
  const Totals world_middle = read_totals(MPI_COMM_WORLD);
  // One half after the other: Open MPI 4.1's osc/rdma names its shared-memory segment
  // after the communicator id, which both halves share, and windows created at the same
  // time by the two halves then fail now and then ("A system call failed during shared
  // memory initialization", with or without monitoring).
  for (int h = 0; h < 2; ++h) {
    if (world_rank % 2 == h) put_get_pattern(half);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // The split pattern's traffic shows on both communicators (values are per peer, all
  // windows together); on MPI_COMM_WORLD only for the members of this half.
  check_comm(half, half_before, 2, "split after both patterns");
  Totals expected(4, std::vector<unsigned long long>(world_size, 0));
  for (int w : order) {
    expected[0][w] = w + 1;
    expected[1][w] = 8 * (w + 1);
    expected[2][w] = 1;
    expected[3][w] = 4;
  }
  check_delta(world_middle, read_totals(MPI_COMM_WORLD), expected, "world after split pattern");
  MPI_Comm_free(&half);
}

// ---------------------------------------------------------------------------------------
// errors

void errors() {
  std::vector<int> memory(4, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), 16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int value = 1;
  const Totals before = read_totals(MPI_COMM_WORLD);
  // An invalid target rank (caught by MPI's argument checks).
  const int bad_rank = MPI_Put(&value, 1, MPI_INT, world_size + 3, 0, 1, MPI_INT, win);
  // Outside any access epoch (the component itself reports it).
  const int no_epoch = MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, win);
  const int no_epoch_get = MPI_Get(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, win);
  // Unlocking a window that was never locked.
  const int bad_unlock = MPI_Win_unlock(right(), win);
  std::printf(
      "rank %d: put to invalid rank returned %d, put outside an epoch %d, get outside an epoch %d, "
      "unlock without lock %d\n",
      world_rank, bad_rank, no_epoch, no_epoch_get, bad_unlock);
  check(bad_rank != MPI_SUCCESS, "put to an invalid rank succeeded");
  check(no_epoch != MPI_SUCCESS, "put outside an epoch succeeded");
  const Totals after = read_totals(MPI_COMM_WORLD);
  if (!before.empty()) check_delta(before, after, Totals(4, std::vector<unsigned long long>(world_size, 0)), "errors");
  MPI_Win_free(&win);
}

void warm_errors() {
  std::vector<int> memory(4, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), 16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int value = 1, fetched = 0;
  const Totals before = read_totals(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, right(), 0, win);
  check(MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, win) == MPI_SUCCESS, "put in an epoch failed");
  check(MPI_Get(&fetched, 1, MPI_INT, right(), 1, 1, MPI_INT, win) == MPI_SUCCESS, "get in an epoch failed");
  MPI_Win_unlock(right(), win);
  const int no_epoch = MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, win);
  const int no_epoch_get = MPI_Get(&fetched, 1, MPI_INT, right(), 1, 1, MPI_INT, win);
  check(no_epoch != MPI_SUCCESS, "put outside an epoch succeeded");
  // Whatever the component says about the get, exactly the successful operations count.
  Totals expected(4, std::vector<unsigned long long>(world_size, 0));
  expected[0][right()] = 1;
  expected[1][right()] = sizeof(int);
  expected[2][right()] = no_epoch_get == MPI_SUCCESS ? 2 : 1;
  expected[3][right()] = expected[2][right()] * sizeof(int);
  check_delta(before, read_totals(MPI_COMM_WORLD), expected, "warm_errors");
  MPI_Win_free(&win);
}

// ---------------------------------------------------------------------------------------

// 250: enough to show the records do not grow with windows; Open MPI 5.0.7 takes about
// 0.1 s per window creation on 4 oversubscribed ranks of a loaded 2-core machine.
void many_windows() {
  std::vector<int> memory(4, 0);
  for (int i = 0; i < 250; ++i) {
    MPI_Win win;
    MPI_Win_create(memory.data(), 16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
  }
}

void unmonitored() {
  const Totals before = read_totals(MPI_COMM_WORLD);
  flavors();
  ops(false, false);
  const Totals after = read_totals(MPI_COMM_WORLD);
  check(before == after, "osc pvars changed without monitoring");
  std::printf("rank %d: osc pvars %s\n", world_rank, before.empty() ? "absent" : "present");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool threads = argc > 2 && std::strcmp(argv[2], "threads") == 0;
  skip_shared = argc > 2 && std::strcmp(argv[2], "no_shared") == 0;
  int provided;
  MPI_T_init_thread(threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  if (threads) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_T_pvar_session_create(&session);
  if (mode == "ops")
    ops(threads);
  else if (mode == "flavors")
    flavors();
  else if (mode == "sync")
    sync_calls();
  else if (mode == "pvars")
    pvars();
  else if (mode == "errors")
    errors();
  else if (mode == "warm_errors")
    warm_errors();
  else if (mode == "many_windows")
    many_windows();
  else if (mode == "unmonitored")
    unmonitored();
  else {
    std::fprintf(stderr, "osc_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_T_pvar_session_free(&session);
  return scenario::report_and_finalize(mode);
}
