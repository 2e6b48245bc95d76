// A tool written against Open MPI main's own MPI_T events (main: specs/mpi-t-events/spec.md
// section 7), run on 4.1/5.0 with mpimon: it knows only main's event names and element
// layouts, looks them up by name, reads elements by index (MPI_T_event_read) and checks
// what our layers raised for a known pattern (lifecycle_events_test.cpp runs it):
//   MPI_Comm_split into halves, a split where only rank 0 takes part, MPI_Comm_dup of a
//   half; MPI_Win_create (64 B, disp 8), MPI_Win_allocate (128 B, disp 1),
//   MPI_Win_create_dynamic; every window and communicator freed.
// Expected: one ompi.mpi.initialization in MPI_Init (world model 0, the thread level
// provided, world rank and size, an instance token) and one ompi.mpi.finalization in
// MPI_Finalize (model, rank, the same token); one ompi.mpi.communicator_created per communicator this rank is a member
// of (none for MPI_COMM_WORLD/SELF, none where the split left it out), with its size and handle, and one
// ompi.mpi.communicator_freed with the same handle; one ompi.mpi.win_created per window with size, disp_unit, flavor
// and handle, one ompi.mpi.win_freed with flavor and handle; communicators the one-sided component makes for itself
// inside MPI_Win_* appear too, created and freed in pairs (main raises those as well); nothing else during
// MPI_Finalize. Prints "rank <r>: OK lifecycle" or FAILED [...] and one "COUNTS comm_created=<n> comm_freed=<n>
// win_created=<n> win_freed=<n>" line.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "mpit_events.h"
#include "scenario.h"

using scenario::check;
using scenario::rank;
using scenario::size;

namespace {

// What a tool for Open MPI main knows: names, element datatypes and displacements.
struct Expected {
  const char* name;
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Aint> displacements;
};
const Expected kInit{
    "ompi.mpi.initialization", {MPI_INT32_T, MPI_INT32_T, MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T}, {0, 4, 8, 12, 16}};
const Expected kFinal{"ompi.mpi.finalization", {MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T}, {0, 4, 8}};
const Expected kComm{"ompi.mpi.communicator_created", {MPI_INT32_T, MPI_UINT64_T}, {0, 8}};
const Expected kCommFreed{"ompi.mpi.communicator_freed", {MPI_UINT64_T}, {0}};
const Expected kWin{"ompi.mpi.win_created", {MPI_INT64_T, MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T}, {0, 8, 12, 16}};
const Expected kWinFreed{"ompi.mpi.win_freed", {MPI_INT32_T, MPI_UINT64_T}, {0, 8}};

struct Instance {
  std::string type;
  int64_t values[5] = {};  // the elements in order, widened
  int source = -1;
};
std::mutex mutex;
std::vector<Instance> received;

void on_event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* user_data) {
  const auto* expected = static_cast<const Expected*>(user_data);
  Instance got;
  got.type = expected->name;
  MPI_T_event_get_source(instance, &got.source);
  for (size_t i = 0; i < expected->types.size(); ++i) {
    unsigned char buffer[8] = {};
    MPI_T_event_read(instance, static_cast<int>(i), buffer);
    if (expected->types[i] == MPI_INT32_T) {
      int32_t v;
      std::memcpy(&v, buffer, sizeof v);
      got.values[i] = v;
    } else {
      int64_t v;
      std::memcpy(&v, buffer, sizeof v);
      got.values[i] = v;
    }
  }
  std::lock_guard lock(mutex);
  received.push_back(got);
}

// Finds the type by name, checks main's layout, unbound, source "ompi"; subscribes.
void subscribe(const Expected& expected) {
  int index = -1;
  if (MPI_T_event_get_index(expected.name, &index) != MPI_SUCCESS) {
    check(false, std::string("no event type ") + expected.name);
    return;
  }
  MPI_Datatype types[8];
  MPI_Aint displacements[8];
  int n = 8, bind = -1;
  MPI_T_event_get_info(index, nullptr, nullptr, nullptr, types, displacements, &n, nullptr, nullptr, nullptr, nullptr,
                       &bind);
  check(n == static_cast<int>(expected.types.size()), std::string(expected.name) + " elements " + std::to_string(n));
  for (int i = 0; i < n && i < static_cast<int>(expected.types.size()); ++i)
    check(types[i] == expected.types[i] && displacements[i] == expected.displacements[i],
          std::string(expected.name) + " element " + std::to_string(i));
  check(bind == MPI_T_BIND_NO_OBJECT, std::string(expected.name) + " bind " + std::to_string(bind));
  MPI_T_event_registration registration;
  MPI_T_event_handle_alloc(index, nullptr, MPI_INFO_NULL, &registration);
  MPI_T_event_register_callback(registration, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                const_cast<Expected*>(&expected), on_event);
}

// The index of the source named "ompi" (main's source of these events).
int ompi_source() {
  int n = 0;
  MPI_T_source_get_num(&n);
  for (int i = 0; i < n; ++i) {
    char name[64];
    int len = sizeof name;
    MPI_T_source_order order;
    if (MPI_T_source_get_info(i, name, &len, nullptr, nullptr, &order, nullptr, nullptr, nullptr) == MPI_SUCCESS &&
        std::string(name) == "ompi")
      return order == MPI_T_SOURCE_ORDERED ? i : -2;
  }
  return -1;
}

std::vector<Instance> take(const char* type) {
  static const int source = ompi_source();
  std::lock_guard lock(mutex);
  std::vector<Instance> out, rest;
  for (const Instance& i : received) (i.type == type ? out : rest).push_back(i);
  received = rest;
  for (const Instance& i : out)
    check(i.source == source && source >= 0, i.type + " from source " + std::to_string(i.source));
  return out;
}

uint64_t handle(MPI_Comm comm) { return reinterpret_cast<uintptr_t>(comm); }
uint64_t handle(MPI_Win win) { return reinterpret_cast<uintptr_t>(win); }

}  // namespace

int main(int argc, char** argv) {
  int provided;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  for (const Expected* e : {&kInit, &kFinal, &kComm, &kCommFreed, &kWin, &kWinFreed}) subscribe(*e);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int thread_level = -1;
  MPI_Query_thread(&thread_level);
  const auto init = take(kInit.name);
  check(init.size() == 1, "initialization events " + std::to_string(init.size()));
  if (init.size() == 1)
    check(init[0].values[0] == 0 && init[0].values[1] == thread_level && init[0].values[2] == rank &&
              init[0].values[3] == size && init[0].values[4] != 0,
          "initialization model " + std::to_string(init[0].values[0]) + " thread level " +
              std::to_string(init[0].values[1]) + " rank " + std::to_string(init[0].values[2]) + " size " +
              std::to_string(init[0].values[3]));
  check(take(kComm.name).empty(), "communicators created in MPI_Init (MPI_COMM_WORLD/SELF)");

  // Communicators.
  MPI_Comm half, only_zero, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &only_zero);
  MPI_Comm_dup(half, &dup);
  std::vector<std::pair<uint64_t, int64_t>> expected_comms = {{handle(half), size / 2}};
  if (rank == 0) expected_comms.push_back({handle(only_zero), 1});
  expected_comms.push_back({handle(dup), size / 2});
  auto created = take(kComm.name);
  check(created.size() == expected_comms.size(), "communicators created " + std::to_string(created.size()));
  for (size_t i = 0; i < created.size() && i < expected_comms.size(); ++i)
    check(static_cast<uint64_t>(created[i].values[1]) == expected_comms[i].first &&
              created[i].values[0] == expected_comms[i].second,
          "communicator " + std::to_string(i) + " size " + std::to_string(created[i].values[0]));
  int comm_created = static_cast<int>(created.size()), comm_freed = 0;

  // Windows: created and freed with main's elements; the component's own communicators
  // (made and freed inside MPI_Win_*) come in pairs.
  std::vector<char> memory(64);
  MPI_Win created_win, allocated, dynamic;
  void* base = nullptr;
  MPI_Win_create(memory.data(), 64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &created_win);
  MPI_Win_allocate(128, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &allocated);
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
  const auto wins = take(kWin.name);
  check(wins.size() == 3, "windows created " + std::to_string(wins.size()));
  const int64_t expected_wins[3][4] = {{64, 8, MPI_WIN_FLAVOR_CREATE, static_cast<int64_t>(handle(created_win))},
                                       {128, 1, MPI_WIN_FLAVOR_ALLOCATE, static_cast<int64_t>(handle(allocated))},
                                       {0, 1, MPI_WIN_FLAVOR_DYNAMIC, static_cast<int64_t>(handle(dynamic))}};
  for (size_t w = 0; w < wins.size() && w < 3; ++w)
    for (int e = 0; e < 4; ++e)
      check(wins[w].values[e] == expected_wins[w][e], "window " + std::to_string(w) + " element " + std::to_string(e) +
                                                          " = " + std::to_string(wins[w].values[e]));
  const auto internal = take(kComm.name);
  comm_created += static_cast<int>(internal.size());
  // (4.1's osc/rdma: a duplicate and a shared-memory split of the window's communicator on
  // every rank, and a node leaders' communicator of size 1 on rank 0.)
  for (const Instance& i : internal)
    check(i.values[0] >= 1 && i.values[0] <= size, "a window's communicator of size " + std::to_string(i.values[0]));
  MPI_Win_free(&created_win);
  MPI_Win_free(&allocated);
  MPI_Win_free(&dynamic);
  const auto wins_freed = take(kWinFreed.name);
  check(wins_freed.size() == 3, "windows freed " + std::to_string(wins_freed.size()));
  for (size_t w = 0; w < wins_freed.size() && w < 3; ++w)
    check(wins_freed[w].values[0] == expected_wins[w][2] && wins_freed[w].values[1] == expected_wins[w][3],
          "window freed " + std::to_string(w));
  auto internal_freed = take(kCommFreed.name);
  comm_freed += static_cast<int>(internal_freed.size());
  check(internal_freed.size() == internal.size(), "window communicators created " + std::to_string(internal.size()) +
                                                      ", freed " + std::to_string(internal_freed.size()));
  for (size_t i = 0; i < internal.size() && i < internal_freed.size(); ++i) {
    bool paired = false;
    for (const Instance& f : internal_freed) paired = paired || f.values[0] == internal[i].values[1];
    check(paired, "a window's communicator freed without its creation");
  }

  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  if (rank == 0) MPI_Comm_free(&only_zero);
  auto freed = take(kCommFreed.name);
  comm_freed += static_cast<int>(freed.size());
  const std::vector<uint64_t> freed_order =
      rank == 0 ? std::vector<uint64_t>{expected_comms[2].first, expected_comms[0].first, expected_comms[1].first}
                : std::vector<uint64_t>{expected_comms[1].first, expected_comms[0].first};
  check(freed.size() == freed_order.size(), "communicators freed " + std::to_string(freed.size()));
  for (size_t i = 0; i < freed.size() && i < freed_order.size(); ++i)
    check(static_cast<uint64_t>(freed[i].values[0]) == freed_order[i], "communicator freed " + std::to_string(i));

  const int my_rank = rank;
  MPI_Finalize();
  const auto final = take(kFinal.name);
  check(final.size() == 1, "finalization events " + std::to_string(final.size()));
  if (final.size() == 1 && init.size() == 1)
    check(final[0].values[0] == 0 && final[0].values[1] == my_rank && final[0].values[2] == init[0].values[4],
          "finalization elements");
  {
    std::lock_guard lock(mutex);
    check(received.empty(), std::to_string(received.size()) + " other events during MPI_Finalize");
  }
  // No MPI_T_finalize: after MPI_Finalize it crashes Open MPI 4.1 (in btl/tcp's close), and
  // before it our callbacks could not watch MPI_Finalize.
  std::printf("COUNTS rank %d init=%zu final=%zu comm_created=%d comm_freed=%d win_created=%zu win_freed=%zu\n",
              my_rank, init.size(), final.size(), comm_created, comm_freed, wins.size(), wins_freed.size());
  std::printf("rank %d: %s lifecycle%s\n", my_rank, scenario::failures.empty() ? "OK" : "FAILED",
              scenario::failures.c_str());
  return 0;
}
