// MPI scenarios for the MPI_T events our layers raise (events_test.cpp runs them).
//
// Every mode first initialises MPI_T and registers callbacks BEFORE MPI_Init, then runs
// a known communication pattern and checks what the callbacks received. Modes:
//   traffic <pattern>  pattern = ring (Isend/Irecv + Send/Recv) or reduce (MPI_Reduce):
//                      every point-to-point event on MPI_COMM_WORLD; prints the sends
//                      seen as "EDGE <E|I> <me> <peer> <bytes> <messages>" lines (E: tag
//                      >= 0, I: negative tags), which the test compares with the .prof
//                      dump; checks posted/completed pairs and receive sources.
//   queued             the same ring with callbacks registered at MPI_T_CB_REQUIRE_NONE
//                      only: point-to-point events (raised in a restricted context) are
//                      queued and arrive at the next safe point (a collective, an
//                      MPI_T_event_* call).
//   receives           persistent (MPI_Recv_init + MPI_Start) and matched (MPI_Mrecv,
//                      MPI_Imrecv) receives raise posted/completed events
//   bound              a handle bound to a duplicate of MPI_COMM_WORLD sees only that
//                      communicator's sends, and nothing after it is freed (not even from
//                      a new communicator at the same address).
//   before_init        a registration made before MPI_Init receives the sends of the
//                      internal allreduce of an MPI_Comm_dup right after MPI_Init.
//   coll               begin/end of blocking and nonblocking collectives: kinds, roots,
//                      bytes, nonblocking ends at completion.
//   osc                operations issued and synchronisation begin/end on a window.
//   osc_midrun         a tool that starts listening to operation events after puts and
//                      gets have warmed the window's peer caches (whose fast path does
//                      not test for listeners) gets every later operation, none once it
//                      stops, and every operation again when a second tool starts; the
//                      test checks that the dump counts all 10 puts and 7 gets.
//   send_midrun        tools that start and stop listening to send posted / send
//                      completed between rounds of MPI_Isend (the isend event path is
//                      chosen when listeners change): each round's events are exactly
//                      those of the types listened to then; the test checks that the
//                      dump counts all 12 sends. "send_midrun threads": the same under
//                      MPI_THREAD_MULTIPLE (the THREAD_SAFE instantiations).
//   objects            every event type of the catalogue bound to a communicator or a
//                      window (wait states included) refuses MPI_COMM_NULL, MPI_WIN_NULL,
//                      freed objects and objects of the other kind with
//                      MPI_T_ERR_INVALID_HANDLE, and accepts a live one of its kind.
// Each rank prints "rank <r>: OK <mode>" or "rank <r>: FAILED <mode> [...]".
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "communication_events.h"
#include "mpit_events.h"
#include "scenario.h"

using scenario::check;
using scenario::rank;
using scenario::size;

namespace {

// One received instance, decoded.
struct Received {
  std::string type;
  MPI_Count timestamp = 0;
  mpimon_pml_event pml{};
  mpimon_coll_event coll{};
  mpimon_osc_op_event op{};
  mpimon_osc_sync_event sync{};
};

std::mutex received_mutex;
std::vector<Received> received;

struct Handle {
  std::string type;
  MPI_T_event_registration registration = nullptr;
};
std::vector<Handle*> handles;

void on_event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* user_data) {
  const auto* handle = static_cast<const Handle*>(user_data);
  Received r;
  r.type = handle->type;
  MPI_T_event_get_timestamp(instance, &r.timestamp);
  void* target = nullptr;
  if (r.type.rfind("mpimon_pml_", 0) == 0)
    target = &r.pml;
  else if (r.type.rfind("mpimon_coll_", 0) == 0)
    target = &r.coll;
  else if (r.type == MPIMON_EVENT_OSC_OP_ISSUED)
    target = &r.op;
  else
    target = &r.sync;
  MPI_T_event_copy(instance, target);
  std::lock_guard lock(received_mutex);
  received.push_back(r);
}

int event_index(const char* name) {
  int index = -1;
  const int rc = MPI_T_event_get_index(name, &index);
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "rank ?: MPI_T_event_get_index(%s) = %d\n", name, rc);
    std::exit(3);
  }
  return index;
}

// A handle for `name` bound to *object (NULL: unbound), its callback at `level`.
Handle* subscribe(const char* name, void* object, MPI_T_cb_safety level = MPI_T_CB_REQUIRE_THREAD_SAFE) {
  auto* h = new Handle{name};
  int rc = MPI_T_event_handle_alloc(event_index(name), object, MPI_INFO_NULL, &h->registration);
  if (rc == MPI_SUCCESS) rc = MPI_T_event_register_callback(h->registration, level, MPI_INFO_NULL, h, on_event);
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "subscribing to %s failed: %d\n", name, rc);
    std::exit(3);
  }
  handles.push_back(h);
  return h;
}

void unsubscribe(Handle* h) {
  MPI_T_event_handle_free(h->registration, nullptr, nullptr);
  handles.erase(std::find(handles.begin(), handles.end(), h));
  delete h;
}

std::vector<Received> take(const std::string& type) {
  std::lock_guard lock(received_mutex);
  std::vector<Received> out;
  for (const Received& r : received)
    if (r.type == type) out.push_back(r);
  return out;
}

void clear_received() {
  std::lock_guard lock(received_mutex);
  received.clear();
}

MPI_Comm world = MPI_COMM_WORLD;

// The received instances of a point-to-point event type with application tags (>= 0, or
// MPI_ANY_TAG as posted): collectives' internal messages use negative tags.
std::vector<Received> application(const std::string& type) {
  std::vector<Received> v = take(type);
  v.erase(
      std::remove_if(v.begin(), v.end(), [](const Received& r) { return r.pml.tag < 0 && r.pml.tag != MPI_ANY_TAG; }),
      v.end());
  return v;
}

void subscribe_pml(MPI_T_cb_safety level = MPI_T_CB_REQUIRE_THREAD_SAFE) {
  for (const char* name : {MPIMON_EVENT_PML_SEND_POSTED, MPIMON_EVENT_PML_RECV_POSTED, MPIMON_EVENT_PML_SEND_COMPLETED,
                           MPIMON_EVENT_PML_RECV_COMPLETED})
    subscribe(name, &world, level);
}

// Ring: 3 rounds of Isend/Irecv to the right / from the left, then one Send/Recv round
// (even ranks send first), with sizes 8, 800, 8000 and 16 bytes.
void ring() {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  std::vector<char> out(8000, 1), in(8000);
  for (int bytes : {8, 800, 8000}) {
    MPI_Request requests[2];
    MPI_Irecv(in.data(), bytes, MPI_CHAR, left, 5, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out.data(), bytes, MPI_CHAR, right, 5, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  }
  if (rank % 2 == 0) {
    MPI_Send(out.data(), 16, MPI_CHAR, right, 6, MPI_COMM_WORLD);
    MPI_Recv(in.data(), 16, MPI_CHAR, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in.data(), 16, MPI_CHAR, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(out.data(), 16, MPI_CHAR, right, 6, MPI_COMM_WORLD);
  }
}

// The ring's point-to-point events, checked in detail (tags >= 0 only).
void check_ring_events() {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const auto sends = application(MPIMON_EVENT_PML_SEND_POSTED);
  const auto sends_done = application(MPIMON_EVENT_PML_SEND_COMPLETED);
  const auto recvs = application(MPIMON_EVENT_PML_RECV_POSTED);
  const auto recvs_done = application(MPIMON_EVENT_PML_RECV_COMPLETED);
  check(sends.size() == 4, "send posted " + std::to_string(sends.size()));
  check(sends_done.size() == 4, "send completed " + std::to_string(sends_done.size()));
  check(recvs.size() == 4, "recv posted " + std::to_string(recvs.size()));
  check(recvs_done.size() == 4, "recv completed " + std::to_string(recvs_done.size()));
  const uint64_t sizes[4] = {8, 800, 8000, 16};
  for (size_t i = 0; i < sends.size() && i < 4; ++i) {
    check(sends[i].pml.peer == right && sends[i].pml.peer_comm_rank == right, "send peer");
    check(sends[i].pml.bytes == sizes[i], "send bytes " + std::to_string(sends[i].pml.bytes));
    check(sends[i].pml.tag == (i < 3 ? 5 : 6), "send tag");
    check((sends[i].pml.request != 0) == (i < 3), "send request id only for nonblocking sends");
  }
  for (size_t i = 0; i < recvs_done.size() && i < 4; ++i) {
    check(recvs_done[i].pml.peer == left, "recv source " + std::to_string(recvs_done[i].pml.peer));
    check(recvs_done[i].pml.bytes == sizes[i], "recv bytes " + std::to_string(recvs_done[i].pml.bytes));
  }
  // Posted and completed pair up by request id (nonblocking ones), completion not before posting.
  for (size_t i = 0; i < 3 && i < recvs.size() && i < recvs_done.size(); ++i) {
    check(recvs[i].pml.request == recvs_done[i].pml.request, "recv request pairing");
    check(recvs[i].timestamp <= recvs_done[i].timestamp, "recv completed before posted");
  }
  std::set<uint64_t> posted, completed;
  for (size_t i = 0; i < 3 && i < sends.size() && i < sends_done.size(); ++i) {
    posted.insert(sends[i].pml.request);
    completed.insert(sends_done[i].pml.request);
  }
  check(posted == completed, "send request pairing");
  // MPI_COMM_WORLD has one id in every event: the isend path's constant (the Open MPI
  // series' kWorldLocalContextId) agrees with the communicator's own field, read by the
  // receive paths.
  for (const auto* events : {&sends, &sends_done, &recvs, &recvs_done})
    for (const Received& r : *events)
      check(!recvs.empty() && r.pml.comm_id == recvs[0].pml.comm_id, "comm_id " + std::to_string(r.pml.comm_id));
  // The wildcard receive: posted with MPI_ANY_SOURCE, completed with the actual source.
  if (rank % 2 == 1 && recvs.size() == 4)
    check(recvs[3].pml.peer_comm_rank == MPI_ANY_SOURCE && recvs[3].pml.peer == -1, "wildcard posted");
  // One source: timestamps never decrease in delivery order.
  std::lock_guard lock(received_mutex);
  MPI_Count last = 0;
  for (const Received& r : received) {
    if (r.type.rfind("mpimon_pml_", 0) != 0) continue;
    check(r.timestamp >= last, "pml timestamps decrease");
    last = r.timestamp;
  }
}

// The sends this rank saw, as the dump's edges.
void print_edges() {
  std::map<std::pair<char, int>, std::pair<uint64_t, uint64_t>> edges;
  for (const Received& r : take(MPIMON_EVENT_PML_SEND_POSTED)) {
    auto& e = edges[{r.pml.tag < 0 ? 'I' : 'E', r.pml.peer}];
    e.first += r.pml.bytes;
    e.second += 1;
  }
  for (const auto& [key, value] : edges)
    std::printf("EDGE %c %d %d %llu %llu\n", key.first, rank, key.second, static_cast<unsigned long long>(value.first),
                static_cast<unsigned long long>(value.second));
  std::fflush(stdout);
}

void traffic(const std::string& pattern) {
  if (pattern == "ring") {
    ring();
    check_ring_events();
  } else {
    std::vector<double> in(1024, 1.0), out(1024);
    MPI_Reduce(in.data(), out.data(), 1024, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    const auto sends = take(MPIMON_EVENT_PML_SEND_POSTED), done = take(MPIMON_EVENT_PML_SEND_COMPLETED);
    check(sends.size() == done.size(), "reduce: every send posted completed");
    for (const Received& r : sends) check(r.pml.tag < 0, "reduce sends carry internal tags");
  }
  print_edges();
}

void queued() {
  ring();
  // Still queued: raised inside point-to-point calls (restricted context).
  const size_t before = take(MPIMON_EVENT_PML_SEND_POSTED).size();
  check(before == 0, "delivered before a safe point: " + std::to_string(before));
  int count = 0;
  MPI_T_event_get_num(&count);  // a safe point
  check_ring_events();
}

// Persistent and matched receives: 2 rounds of Recv_init/Send_init + Start, then one
// MPI_Mprobe + MPI_Mrecv and one MPI_Improbe + MPI_Imrecv, from the left neighbour.
void receives() {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  std::vector<char> out(4000, 1), in(4000);
  MPI_Request persistent[2];
  MPI_Recv_init(in.data(), 100, MPI_CHAR, left, 7, MPI_COMM_WORLD, &persistent[0]);
  MPI_Send_init(out.data(), 100, MPI_CHAR, right, 7, MPI_COMM_WORLD, &persistent[1]);
  for (int round = 0; round < 2; ++round) {
    MPI_Startall(2, persistent);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
  }
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);
  MPI_Request send;
  MPI_Isend(out.data(), 3000, MPI_CHAR, right, 8, MPI_COMM_WORLD, &send);
  MPI_Message message;
  MPI_Mprobe(left, 8, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
  MPI_Mrecv(in.data(), 3000, MPI_CHAR, &message, MPI_STATUS_IGNORE);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  MPI_Isend(out.data(), 4000, MPI_CHAR, right, 9, MPI_COMM_WORLD, &send);
  int found = 0;
  while (!found) MPI_Improbe(left, 9, MPI_COMM_WORLD, &found, &message, MPI_STATUS_IGNORE);
  MPI_Request recv;
  MPI_Imrecv(in.data(), 4000, MPI_CHAR, &message, &recv);
  MPI_Wait(&recv, MPI_STATUS_IGNORE);
  MPI_Wait(&send, MPI_STATUS_IGNORE);

  const auto posted = application(MPIMON_EVENT_PML_RECV_POSTED);
  const auto completed = application(MPIMON_EVENT_PML_RECV_COMPLETED);
  check(posted.size() == 4, "receives posted " + std::to_string(posted.size()));
  check(completed.size() == 4, "receives completed " + std::to_string(completed.size()));
  const uint64_t bytes[4] = {100, 100, 3000, 4000};
  for (size_t i = 0; i < 4 && i < posted.size() && i < completed.size(); ++i) {
    check(posted[i].pml.peer == left, "posted source " + std::to_string(i));
    check(completed[i].pml.peer == left, "completed source " + std::to_string(i));
    check(completed[i].pml.bytes == bytes[i], "completed bytes " + std::to_string(completed[i].pml.bytes));
    check(completed[i].pml.tag == (i < 2 ? 7 : static_cast<int>(i) + 6), "completed tag");
  }
  for (size_t i = 0; i < 2 && i < posted.size() && i < completed.size(); ++i)
    check(posted[i].pml.request == completed[i].pml.request && posted[i].pml.request != 0, "persistent pairing");
  if (posted.size() == 4 && completed.size() == 4)
    check(posted[3].pml.request == completed[3].pml.request && posted[3].pml.request != 0, "imrecv pairing");
}

void bound() {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  Handle* h = subscribe(MPIMON_EVENT_PML_SEND_POSTED, &dup);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  char buf[4] = {};
  for (int i = 0; i < 2; ++i)
    MPI_Sendrecv_replace(buf, 4, MPI_CHAR, right, 11, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 3; ++i) MPI_Sendrecv_replace(buf, 4, MPI_CHAR, right, 22, left, 22, dup, MPI_STATUS_IGNORE);
  auto seen = take(MPIMON_EVENT_PML_SEND_POSTED);
  check(seen.size() == 3, "bound handle saw " + std::to_string(seen.size()));
  for (const Received& r : seen) check(r.pml.tag == 22, "bound handle saw another communicator's send");
  MPI_Comm_free(&dup);
  clear_received();
  // New communicators, probably at the freed one's address: the handle stays silent.
  for (int i = 0; i < 3; ++i) {
    MPI_Comm again;
    MPI_Comm_dup(MPI_COMM_WORLD, &again);
    MPI_Sendrecv_replace(buf, 4, MPI_CHAR, right, 33, left, 33, again, MPI_STATUS_IGNORE);
    MPI_Comm_free(&again);
  }
  check(take(MPIMON_EVENT_PML_SEND_POSTED).empty(), "freed communicator's handle still receives");
  unsubscribe(h);
}

void before_init_dup() {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const auto sends = take(MPIMON_EVENT_PML_SEND_POSTED);
  check(!sends.empty(), "no send events from MPI_Comm_dup's allreduce");
  for (const Received& r : sends) check(r.pml.tag < 0 && r.pml.peer >= 0 && r.pml.peer < size, "dup send fields");
  MPI_Comm_free(&dup);
}

// The names of the collective kinds, from the event type's info after MPI_Init (longer
// than MPI_MAX_INFO_VAL: MPI_Info_get_valuelen gives the length).
void check_kind_names() {
  MPI_Info info = MPI_INFO_NULL;
  const int rc = MPI_T_event_get_info(event_index(MPIMON_EVENT_COLL_BEGIN), nullptr, nullptr, nullptr, nullptr, nullptr,
                                      nullptr, nullptr, &info, nullptr, nullptr, nullptr);
  check(rc == MPI_SUCCESS && info != MPI_INFO_NULL, "get_info with info after MPI_Init: " + std::to_string(rc));
  if (info == MPI_INFO_NULL) return;
  int length = 0, flag = 0;
  MPI_Info_get_valuelen(info, "mpimon_enum_kind", &length, &flag);
  std::string names(static_cast<size_t>(length) + 1, '\0');
  MPI_Info_get(info, "mpimon_enum_kind", length + 1, names.data(), &flag);
  names.resize(static_cast<size_t>(length));
  check(flag && names.rfind("allgather,allgatherv,allreduce,", 0) == 0 && names.size() >= 19 &&
            names.compare(names.size() - 19, 19, "ineighbor_alltoallw") == 0,
        "kind names: " + names);
  MPI_Info_free(&info);
}

void coll() {
  check_kind_names();
  subscribe(MPIMON_EVENT_COLL_BEGIN, &world);
  subscribe(MPIMON_EVENT_COLL_END, &world);
  double x = 1, y = 0;
  std::vector<double> v(4);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(v.data(), 4, MPI_DOUBLE, 2, MPI_COMM_WORLD);
  MPI_Request request;
  MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD);
  std::vector<std::pair<std::string, mpimon_coll_event>> seq;
  {
    std::lock_guard lock(received_mutex);
    for (const Received& r : received)
      if (r.type.rfind("mpimon_coll_", 0) == 0) seq.push_back({r.type, r.coll});
  }
  const uint64_t n1 = static_cast<uint64_t>(size - 1);
  // (kind, root, bytes this rank sends by the accounting rules)
  const std::vector<std::tuple<int, int, uint64_t>> expected = {
      {MPIMON_COLL_KIND_allreduce, -1, 8 * n1},        {MPIMON_COLL_KIND_bcast, 2, rank == 2 ? 32 * n1 : 0},
      {MPIMON_COLL_KIND_iallreduce, -1, 8 * n1},       {MPIMON_COLL_KIND_ibarrier, -1, 0},
      {MPIMON_COLL_KIND_reduce, 1, rank == 1 ? 0 : 8},
  };
  check(seq.size() == 2 * expected.size(), "coll events " + std::to_string(seq.size()));
  for (size_t i = 0; i < expected.size() && 2 * i + 1 < seq.size(); ++i) {
    const auto& [kind, root, bytes] = expected[i];
    for (int half = 0; half < 2; ++half) {
      const auto& [type, e] = seq[2 * i + half];
      const std::string where = "collective " + std::to_string(i) + (half ? " end" : " begin");
      check(type == (half ? MPIMON_EVENT_COLL_END : MPIMON_EVENT_COLL_BEGIN), where + " order: " + type);
      check(e.kind == kind, where + " kind " + std::to_string(e.kind));
      check(e.root == root, where + " root " + std::to_string(e.root));
      check(e.bytes == bytes, where + " bytes " + std::to_string(e.bytes));
    }
    const bool nonblocking = kind == MPIMON_COLL_KIND_iallreduce || kind == MPIMON_COLL_KIND_ibarrier;
    check((seq[2 * i + 1].second.request != 0) == nonblocking, "request id only for nonblocking collectives");
  }
}

void osc() {
  std::vector<int64_t> memory(16, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  for (const char* name : {MPIMON_EVENT_OSC_OP_ISSUED, MPIMON_EVENT_OSC_SYNC_BEGIN, MPIMON_EVENT_OSC_SYNC_END})
    subscribe(name, &win);
  const int right = (rank + 1) % size;
  int64_t value[2] = {1, 2}, result[2] = {};
  MPI_Win_fence(0, win);
  MPI_Put(value, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, win);
  MPI_Get(result, 2, MPI_INT64_T, right, 4, 2, MPI_INT64_T, win);
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Fetch_and_op(value, result, MPI_INT64_T, right, 8, MPI_SUM, win);
  MPI_Win_unlock(right, win);
  const auto ops = take(MPIMON_EVENT_OSC_OP_ISSUED);
  check(ops.size() == 3, "op events " + std::to_string(ops.size()));
  if (ops.size() == 3) {
    check(ops[0].op.kind == MPIMON_OSC_OP_put && ops[0].op.target == right && ops[0].op.bytes_sent == 8 &&
              ops[0].op.bytes_recv == 0,
          "put event");
    check(ops[1].op.kind == MPIMON_OSC_OP_get && ops[1].op.target_rank == right && ops[1].op.bytes_recv == 16 &&
              ops[1].op.bytes_sent == 0,
          "get event");
    check(ops[2].op.kind == MPIMON_OSC_OP_fetch_and_op && ops[2].op.bytes_sent == 8 && ops[2].op.bytes_recv == 8,
          "fetch_and_op event");
  }
  const auto begins = take(MPIMON_EVENT_OSC_SYNC_BEGIN), ends = take(MPIMON_EVENT_OSC_SYNC_END);
  // fence 0, fence 0, lock 6, unlock 7 (kinds in MPIMON_OSC_SYNC_KINDS order)
  const std::vector<std::pair<int, int>> expected = {{0, -1}, {0, -1}, {6, right}, {7, right}};
  check(begins.size() == 4 && ends.size() == 4,
        "sync events " + std::to_string(begins.size()) + "/" + std::to_string(ends.size()));
  for (size_t i = 0; i < 4 && i < begins.size() && i < ends.size(); ++i) {
    check(begins[i].sync.kind == expected[i].first && ends[i].sync.kind == expected[i].first,
          "sync kind " + std::to_string(i));
    check(begins[i].sync.target == expected[i].second && ends[i].sync.target == expected[i].second,
          "sync target " + std::to_string(i));
    check(ends[i].sync.result == MPI_SUCCESS, "sync result");
    check(begins[i].timestamp <= ends[i].timestamp, "sync end before begin");
  }
  for (Handle* h : std::vector<Handle*>(handles))
    if (h->type.rfind("mpimon_osc_", 0) == 0) unsubscribe(h);
  MPI_Win_free(&win);
}

void osc_midrun() {
  std::vector<int64_t> memory(16, 0);
  MPI_Win win;
  MPI_Win_create(memory.data(), memory.size() * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const int right = (rank + 1) % size;
  int64_t value[2] = {1, 2}, result[2] = {};
  auto epoch = [&](int puts, int gets) {
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    for (int i = 0; i < puts; ++i) MPI_Put(value, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, win);
    for (int i = 0; i < gets; ++i) MPI_Get(result, 2, MPI_INT64_T, right, 4, 2, MPI_INT64_T, win);
    MPI_Win_unlock(right, win);
  };
  // The operations' kinds and bytes, in order: `puts` 8-byte puts, then `gets` 16-byte gets.
  auto check_ops = [&](const std::string& phase, size_t puts, size_t gets) {
    const auto ops = take(MPIMON_EVENT_OSC_OP_ISSUED);
    check(ops.size() == puts + gets, phase + ": op events " + std::to_string(ops.size()));
    for (size_t i = 0; i < ops.size() && i < puts + gets; ++i) {
      const mpimon_osc_op_event& e = ops[i].op;
      const bool put = i < puts;
      check(e.kind == (put ? MPIMON_OSC_OP_put : MPIMON_OSC_OP_get) && e.target == right &&
                e.bytes_sent == (put ? 8u : 0u) && e.bytes_recv == (put ? 0u : 16u),
            phase + ": event " + std::to_string(i));
    }
    clear_received();
  };
  epoch(3, 2);  // warms the peer caches, nobody listening
  check_ops("before", 0, 0);
  Handle* h = subscribe(MPIMON_EVENT_OSC_OP_ISSUED, &win);
  epoch(4, 3);
  check_ops("listening", 4, 3);
  unsubscribe(h);
  epoch(2, 1);  // the caches refill
  check_ops("after", 0, 0);
  h = subscribe(MPIMON_EVENT_OSC_OP_ISSUED, &win);
  epoch(1, 1);
  check_ops("second tool", 1, 1);
  unsubscribe(h);
  MPI_Win_free(&win);
}

void send_midrun() {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int64_t out = rank, in = -1;
  // Three 8-byte MPI_Isend to the right (tag 7), each received from the left.
  auto round = [&] {
    for (int i = 0; i < 3; ++i) {
      MPI_Request request;
      MPI_Isend(&out, 1, MPI_INT64_T, right, 7, MPI_COMM_WORLD, &request);
      MPI_Recv(&in, 1, MPI_INT64_T, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
  };
  auto expect = [&](const std::string& phase, size_t posted, size_t completed) {
    for (const auto& [type, n] :
         {std::pair{MPIMON_EVENT_PML_SEND_POSTED, posted}, {MPIMON_EVENT_PML_SEND_COMPLETED, completed}}) {
      const auto seen = take(type);
      check(seen.size() == n, phase + ": " + type + " " + std::to_string(seen.size()));
      for (const Received& r : seen)
        check(r.pml.peer == right && r.pml.tag == 7 && r.pml.bytes == 8, phase + ": " + type + " payload");
    }
    clear_received();
  };
  Handle* posted = subscribe(MPIMON_EVENT_PML_SEND_POSTED, &world);
  round();
  expect("posted", 3, 0);
  Handle* completed = subscribe(MPIMON_EVENT_PML_SEND_COMPLETED, &world);
  round();
  expect("both", 3, 3);
  unsubscribe(posted);
  round();
  expect("completed", 0, 3);
  unsubscribe(completed);
  round();
  expect("none", 0, 0);
}

void objects() {
  MPI_Comm dup, freed_comm, null_comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  char buffer[8];
  MPI_Win win, freed_win, null_win = MPI_WIN_NULL;
  MPI_Win_create(buffer, sizeof buffer, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_create(buffer, sizeof buffer, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &freed_win);
  MPI_Win saved_win = freed_win;  // dangling once freed
  MPI_Win_free(&freed_win);
  MPI_Comm_dup(MPI_COMM_WORLD, &freed_comm);
  MPI_Comm saved_comm = freed_comm;
  MPI_Comm_free(&freed_comm);
  int num = 0, checked = 0;
  MPI_T_event_get_num(&num);
  for (int i = 0; i < num; ++i) {
    char name[256];
    int name_len = sizeof name, bind = MPI_T_BIND_NO_OBJECT;
    if (MPI_T_event_get_info(i, name, &name_len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                             &bind) != MPI_SUCCESS)
      continue;
    if (bind != MPI_T_BIND_MPI_COMM && bind != MPI_T_BIND_MPI_WIN) continue;
    const bool on_comm = bind == MPI_T_BIND_MPI_COMM;
    void* refused[] = {on_comm ? static_cast<void*>(&null_comm) : static_cast<void*>(&null_win),
                       on_comm ? static_cast<void*>(MPI_COMM_NULL) : static_cast<void*>(MPI_WIN_NULL),
                       on_comm ? static_cast<void*>(&saved_comm) : static_cast<void*>(&saved_win),
                       on_comm ? static_cast<void*>(&win) : static_cast<void*>(&dup)};
    for (void* object : refused) {
      MPI_T_event_registration reg = nullptr;
      const int rc = MPI_T_event_handle_alloc(i, object, MPI_INFO_NULL, &reg);
      check(rc == MPI_T_ERR_INVALID_HANDLE, std::string(name) + ": a bad object gave " + std::to_string(rc));
      if (rc == MPI_SUCCESS) MPI_T_event_handle_free(reg, nullptr, nullptr);
    }
    MPI_T_event_registration reg = nullptr;
    const int rc =
        MPI_T_event_handle_alloc(i, on_comm ? static_cast<void*>(&dup) : static_cast<void*>(&win), MPI_INFO_NULL, &reg);
    check(rc == MPI_SUCCESS, std::string(name) + ": a live object gave " + std::to_string(rc));
    if (rc == MPI_SUCCESS) MPI_T_event_handle_free(reg, nullptr, nullptr);
    ++checked;
  }
  std::printf("rank %d: %d bound event types checked\n", rank, checked);
  MPI_Win_free(&win);
  MPI_Comm_free(&dup);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  // Registrations before MPI_Init (MPI_COMM_WORLD's handle is a link-time constant).
  if (mode == "queued") {
    subscribe_pml(MPI_T_CB_REQUIRE_NONE);
  } else if (mode == "before_init") {
    subscribe(MPIMON_EVENT_PML_SEND_POSTED, &world);
  } else if (mode == "traffic") {
    subscribe_pml();
  } else if (mode == "receives") {
    subscribe(MPIMON_EVENT_PML_RECV_POSTED, &world);
    subscribe(MPIMON_EVENT_PML_RECV_COMPLETED, &world);
  }
  // send_midrun threads: under MPI_THREAD_MULTIPLE (events raised at THREAD_SAFE).
  if (mode == "send_midrun" && argc > 2 && std::strcmp(argv[2], "threads") == 0) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) check(false, "MPI_THREAD_MULTIPLE not provided");
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (mode == "traffic")
    traffic(argc > 2 ? argv[2] : "ring");
  else if (mode == "queued")
    queued();
  else if (mode == "bound")
    bound();
  else if (mode == "receives")
    receives();
  else if (mode == "before_init")
    before_init_dup();
  else if (mode == "coll")
    coll();
  else if (mode == "osc")
    osc();
  else if (mode == "send_midrun")
    send_midrun();
  else if (mode == "osc_midrun")
    osc_midrun();
  else if (mode == "objects")
    objects();
  else
    check(false, "unknown mode " + mode);
  for (Handle* h : std::vector<Handle*>(handles)) unsubscribe(h);
  std::printf("rank %d: %s %s%s\n", rank, scenario::failures.empty() ? "OK" : "FAILED", mode.c_str(),
              scenario::failures.c_str());
  std::fflush(stdout);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
