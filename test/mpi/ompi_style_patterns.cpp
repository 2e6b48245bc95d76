// Our components used the way Open MPI 4.1.4's own test/monitoring programs use them:
// MPI_COMM_WORLD passed itself (not its address) to MPI_T_pvar_handle_alloc, handles
// stopped, read and started again between phases, read while started, a reduction of
// the counts. Written for mpimon (none of their code); unlike theirs, every check is exact.
// Prints "rank <r>: OK <mode>" or what differed.
//
//   ompi_style_patterns three_phases | token_phases | reduce_count
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "scenario.h"

namespace {

int& me = scenario::rank;
int& size = scenario::size;
using scenario::check;
using Values = std::vector<unsigned long long>;

// A started handle on MPI_COMM_WORLD, allocated with the communicator itself as the object.
struct WorldHandle {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  int count = -1;
  std::string name;

  WorldHandle(MPI_T_pvar_session s, const char* variable, int pvar_class) : session(s), name(variable) {
    const int rc =
        MPI_T_pvar_handle_alloc(session, scenario::pvar_index(variable, pvar_class), MPI_COMM_WORLD, &handle, &count);
    check(rc == MPI_SUCCESS, name + " handle_alloc returned " + std::to_string(rc));
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 5);
    check(MPI_T_pvar_start(session, handle) == MPI_SUCCESS, name + " start");
  }
  ~WorldHandle() {
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
  }
  // Stop, read (the values frozen at stop), start again.
  Values read_between_phases() {
    check(MPI_T_pvar_stop(session, handle) == MPI_SUCCESS, name + " stop");
    Values v = read_live();
    check(MPI_T_pvar_start(session, handle) == MPI_SUCCESS, name + " start");
    return v;
  }
  Values read_live() {
    Values v(count);
    check(MPI_T_pvar_read(session, handle, v.data()) == MPI_SUCCESS, name + " read");
    return v;
  }
};

// values[p] - before[p] == expected(p) for every rank p of MPI_COMM_WORLD.
template <typename Expected>
void expect_per_peer(const std::string& what, const Values& values, const Values& before, Expected expected) {
  check(static_cast<int>(values.size()) == size, what + ": " + std::to_string(values.size()) + " values");
  for (int p = 0; p < size && p < static_cast<int>(values.size()); ++p) {
    const unsigned long long got = values[p] - (before.empty() ? 0 : before[p]), want = expected(p);
    check(got == want,
          what + "[" + std::to_string(p) + "]=" + std::to_string(got) + " expected " + std::to_string(want));
  }
}

void expect_value(const std::string& what, unsigned long long got, unsigned long long want) {
  check(got == want, what + "=" + std::to_string(got) + " expected " + std::to_string(want));
}

const char kText[13] = "hello world!";  // 13 bytes with its NUL

// Phase 1, collectives on MPI_COMM_WORLD, size rounds; round n uses root n.
void collectives() {
  std::vector<char> all(13 * size), out(13 * size);
  char one[13];
  int sum = 0;
  for (int n = 0; n < size; ++n) {
    MPI_Allgather(kText, 13, MPI_CHAR, all.data(), 13, MPI_CHAR, MPI_COMM_WORLD);
    MPI_Scatter(all.data(), 13, MPI_CHAR, one, 13, MPI_CHAR, n, MPI_COMM_WORLD);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(all.data(), 13, MPI_CHAR, out.data(), 13, MPI_CHAR, MPI_COMM_WORLD);
    std::memcpy(one, kText, 13);
    MPI_Bcast(one, 13, MPI_CHAR, n, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Gather(kText, 13, MPI_CHAR, all.data(), 13, MPI_CHAR, n, MPI_COMM_WORLD);
    MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, n, MPI_COMM_WORLD);
  }
  check(std::strcmp(one, kText) == 0, "bcast data");
}

// Phase 2, point-to-point: size rounds of 13 bytes to every other rank.
void point_to_point() {
  char in[13];
  for (int n = 0; n < size; ++n)
    for (int i = 1; i < size; ++i)
      MPI_Sendrecv(kText, 13, MPI_CHAR, (me + i) % size, me, in, 13, MPI_CHAR, (me + size - i) % size,
                   (me + size - i) % size, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// Phase 3, one-sided: size rounds of a 13-byte put to every rank (self too) under an
// exclusive lock, then as many gets.
void one_sided() {
  char buffer[20] = {};
  char got[13];
  MPI_Win win;
  MPI_Win_create(buffer, sizeof buffer, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  for (int n = 0; n < size; ++n) {
    for (int target = 0; target < size; ++target) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
      MPI_Put(kText, 13, MPI_CHAR, target, 0, 13, MPI_CHAR, win);
      MPI_Win_unlock(target, win);
    }
    for (int target = 0; target < size; ++target) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
      MPI_Get(got, 13, MPI_CHAR, target, 0, 13, MPI_CHAR, win);
      MPI_Win_unlock(target, win);
      check(std::strcmp(got, kText) == 0, "get data");
    }
  }
  MPI_Win_free(&win);
}

// As check_monitoring does: every variable on MPI_COMM_WORLD, three phases, checked
// between them.
void three_phases(MPI_T_pvar_session session) {
  WorldHandle pml_count(session, "pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE),
      pml_size(session, "pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE),
      coll_count(session, "coll_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE),
      coll_size(session, "coll_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE),
      sent_count(session, "osc_monitoring_messages_sent_count", MPI_T_PVAR_CLASS_SIZE),
      sent_size(session, "osc_monitoring_messages_sent_size", MPI_T_PVAR_CLASS_SIZE),
      recv_count(session, "osc_monitoring_messages_recv_count", MPI_T_PVAR_CLASS_SIZE),
      recv_size(session, "osc_monitoring_messages_recv_size", MPI_T_PVAR_CLASS_SIZE),
      o2a_count(session, "coll_monitoring_o2a_count", MPI_T_PVAR_CLASS_COUNTER),
      o2a_size(session, "coll_monitoring_o2a_size", MPI_T_PVAR_CLASS_AGGREGATE),
      a2o_count(session, "coll_monitoring_a2o_count", MPI_T_PVAR_CLASS_COUNTER),
      a2o_size(session, "coll_monitoring_a2o_size", MPI_T_PVAR_CLASS_AGGREGATE),
      a2a_count(session, "coll_monitoring_a2a_count", MPI_T_PVAR_CLASS_COUNTER),
      a2a_size(session, "coll_monitoring_a2a_size", MPI_T_PVAR_CLASS_AGGREGATE);
  for (WorldHandle* h : {&pml_count, &coll_count, &sent_count, &recv_size})
    expect_value(h->name + " count", h->count, size);
  expect_value("o2a count", o2a_count.count, 1);
  const unsigned long long n = size, others = size - 1;
  const auto to_others = [&](unsigned long long value) { return [=](int p) { return p == me ? 0 : value; }; };

  collectives();
  // Per peer: allgather, allreduce, alltoall and barrier every round (13 + 4 + 13 + 0
  // bytes), and once each the scatter and bcast of this root (13 + 13) and the gather
  // and reduce to that peer as root (13 + 4).
  expect_per_peer("coll count", coll_count.read_between_phases(), {}, to_others(4 * n + 4));
  expect_per_peer("coll size", coll_size.read_between_phases(), {}, to_others(30 * n + 43));
  expect_value("o2a count", o2a_count.read_between_phases()[0], 2);
  expect_value("o2a size", o2a_size.read_between_phases()[0], 2 * 13 * others);
  expect_value("a2o count", a2o_count.read_between_phases()[0], 2 * others);
  expect_value("a2o size", a2o_size.read_between_phases()[0], 17 * others);
  expect_value("a2a count", a2a_count.read_between_phases()[0], 4 * n);
  expect_value("a2a size", a2a_size.read_between_phases()[0], 30 * n * others);
  // Collectives are internal point-to-point traffic: nothing in the application's.
  const Values pml_count_1 = pml_count.read_between_phases(), pml_size_1 = pml_size.read_between_phases();
  expect_per_peer("pml count after collectives", pml_count_1, {}, [](int) { return 0ull; });

  point_to_point();
  expect_per_peer("pml count", pml_count.read_between_phases(), pml_count_1, to_others(n));
  expect_per_peer("pml size", pml_size.read_between_phases(), pml_size_1, to_others(13 * n));

  one_sided();
  const auto every_rank = [&](unsigned long long value) { return [=](int) { return value; }; };
  expect_per_peer("osc sent count", sent_count.read_between_phases(), {}, every_rank(n));
  expect_per_peer("osc sent size", sent_size.read_between_phases(), {}, every_rank(13 * n));
  expect_per_peer("osc recv count", recv_count.read_between_phases(), {}, every_rank(n));
  expect_per_peer("osc recv size", recv_size.read_between_phases(), {}, every_rank(13 * n));
}

// `rounds` ints to the next rank of `comm`, from the previous one, with changing tags.
void token_ring(MPI_Comm comm, int rounds) {
  int rank, members, token = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &members);
  for (int round = 0; round < rounds; ++round)
    MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % members, 201 + round, (rank + members - 1) % members,
                         201 + round, comm, MPI_STATUS_IGNORE);
}

// As test_pvar_access does: a token ring on MPI_COMM_WORLD read between phases, then
// split communicators (odd world ranks: a ring; even ones: an alltoall, another split and
// a barrier), read while the handles run.
void token_phases(MPI_T_pvar_session session) {
  WorldHandle count(session, "pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE),
      bytes(session, "pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE);
  const int right = (me + 1) % size;
  token_ring(MPI_COMM_WORLD, 25);
  const Values count_1 = count.read_between_phases(), bytes_1 = bytes.read_between_phases();
  expect_per_peer("phase 1 count", count_1, {}, [&](int p) { return p == right && p != me ? 25ull : 0ull; });
  expect_per_peer("phase 1 size", bytes_1, {}, [&](int p) { return p == right && p != me ? 100ull : 0ull; });

  MPI_Comm half, quarter;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  int next_odd = -1;
  if (me % 2 == 1) {
    token_ring(half, 50);
    const std::vector<int> members = scenario::world_ranks_of(half);
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == me) next_odd = members[(i + 1) % members.size()];
  } else {
    int half_size;
    MPI_Comm_size(half, &half_size);
    std::vector<int> out(1024, 1), in(1024);
    MPI_Alltoall(out.data(), 1024 / half_size, MPI_INT, in.data(), 1024 / half_size, MPI_INT, half);
    int half_rank;
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_split(half, half_rank % 2, half_rank, &quarter);
    MPI_Barrier(quarter);
    MPI_Comm_free(&quarter);
  }
  // Read live: the application's traffic of phase 2 only (collectives are internal).
  const auto ring_to_next_odd = [&](unsigned long long value) {
    return [=](int p) { return p == next_odd && p != me ? value : 0ull; };
  };
  expect_per_peer("phase 2 count", count.read_live(), count_1, ring_to_next_odd(50));
  expect_per_peer("phase 2 size", bytes.read_live(), bytes_1, ring_to_next_odd(200));
  MPI_Comm_free(&half);
}

// As example_reduce_count does: the counts of a token ring, reduced with MPI_MAX.
void reduce_count(MPI_T_pvar_session session) {
  WorldHandle count(session, "pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  token_ring(MPI_COMM_WORLD, 25);
  std::vector<unsigned long> counts(count.count);
  check(MPI_T_pvar_read(session, count.handle, counts.data()) == MPI_SUCCESS, "read");
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), count.count, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  for (int p = 0; p < count.count; ++p)  // every rank is some rank's right neighbour
    expect_value("max count[" + std::to_string(p) + "]", counts[p], size > 1 ? 25 : 0);
  if (me == 0) {
    std::printf("counts:");
    for (unsigned long c : counts) std::printf(" %lu", c);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  // As those programs do: MPI first, then MPI_T.
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int provided;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_T_pvar_session session;
  MPI_T_pvar_session_create(&session);
  if (mode == "three_phases")
    three_phases(session);
  else if (mode == "token_phases")
    token_phases(session);
  else if (mode == "reduce_count")
    reduce_count(session);
  else {
    std::fprintf(stderr, "ompi_style_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_T_pvar_session_free(&session);
  return scenario::report_and_finalize(mode);
}
