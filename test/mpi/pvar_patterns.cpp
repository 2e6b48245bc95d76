// MPI_T performance variable scenarios, each verifying itself against expectations
// computed from the known communication pattern; prints "rank <r>: OK <mode>" or what
// differed.
//
//   pvar_patterns snippet | split | intercomm | two_handles | freed | misuse | phases |
//                 failing_flushes [full prefix] | bad_objects | control_variables | internal
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

void ring_messages(MPI_Comm comm, int count, int tag) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char out[8] = {}, in[8];
  for (int i = 0; i < count; ++i)
    MPI_Sendrecv(out, 8, MPI_CHAR, (rank + 1) % size, tag, in, 8, MPI_CHAR, (rank + size - 1) % size, tag, comm,
                 MPI_STATUS_IGNORE);
}

int pvar_index(const char* name, int pvar_class) { return scenario::pvar_index(name, pvar_class); }

// The monitoring paper's Fig. 1, with &comm for handle_alloc as the standard wants.
void snippet(MPI_T_pvar_session session) {
  MPI_T_pvar_handle count_handle;
  int count_pvar_idx;
  const char count_pvar_name[] = "pml_monitoring_messages_count";
  size_t* counts;
  int count; /*size of the array*/
  /* Retrieve the proper pvar index */
  MPI_T_pvar_get_index(count_pvar_name, MPI_T_PVAR_CLASS_SIZE, &count_pvar_idx);
  /* Allocating a new PVAR in a session will reset the counters and set count */
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_T_pvar_handle_alloc(session, count_pvar_idx, &comm, &count_handle, &count);
  counts = (size_t*)malloc(count * sizeof(size_t));
  /* start monitoring session */
  MPI_T_pvar_start(session, count_handle);
  /* Begin communications */
  ring_messages(MPI_COMM_WORLD, 1, 0);
  /* End communications */
  /* get the monitored values */
  MPI_T_pvar_read(session, count_handle, counts);
  /* Global reduce so everyone knows the maximum messages sent to each rank */
  MPI_Allreduce(MPI_IN_PLACE, counts, count, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  /* Operations on counts */
  check(count == world_size, "count " + std::to_string(count));
  for (int i = 0; i < count; ++i)
    check(counts[i] == 1, "counts[" + std::to_string(i) + "]=" + std::to_string(counts[i]));
  free(counts);
  MPI_T_pvar_stop(session, count_handle);
  MPI_T_pvar_handle_free(session, &count_handle);
}

// Sends (w + 1) messages of 8 bytes to every other world rank w, tag 9.
void all_to_all_pattern() {
  char out[8] = {}, in[8];
  std::vector<MPI_Request> requests;
  for (int w = 0; w < world_size; ++w) {
    if (w == world_rank) continue;
    for (int k = 0; k < w + 1; ++k) {
      MPI_Request r;
      MPI_Isend(out, 8, MPI_CHAR, w, 9, MPI_COMM_WORLD, &r);
      requests.push_back(r);
    }
  }
  for (int w = 0; w < world_size; ++w) {
    if (w == world_rank) continue;
    for (int k = 0; k < world_rank + 1; ++k) MPI_Recv(in, 8, MPI_CHAR, w, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

std::vector<unsigned long long> read_all(MPI_T_pvar_session session, MPI_Comm comm, const char* name) {
  return scenario::read_size_variable(session, name, comm);
}

// Reads both SIZE variables on `comm`; value i minus baseline[name][i] must be what the
// all-to-all pattern sent to `world_of[i]`.
void check_comm(MPI_T_pvar_session session, MPI_Comm comm, const std::vector<int>& world_of, const std::string& label,
                const std::vector<std::vector<unsigned long long>>& baseline = {}) {
  int variable = 0;
  for (const char* name : {"pml_monitoring_messages_count", "pml_monitoring_messages_size"}) {
    const std::vector<unsigned long long> before =
        baseline.empty() ? std::vector<unsigned long long>(world_of.size(), 0) : baseline[variable];
    ++variable;
    const bool size_variable = std::strstr(name, "size") != nullptr;
    MPI_T_pvar_handle handle;
    int count = -1;
    MPI_T_pvar_handle_alloc(session, pvar_index(name, MPI_T_PVAR_CLASS_SIZE), &comm, &handle, &count);
    check(count == static_cast<int>(world_of.size()), label + " count " + std::to_string(count));
    std::vector<unsigned long long> values(count + 1, 777);
    MPI_T_pvar_start(session, handle);
    MPI_T_pvar_read(session, handle, values.data());
    for (int i = 0; i < count; ++i) {
      const int w = world_of[i];
      const unsigned long long messages = w == world_rank ? 0 : w + 1;
      const unsigned long long expected = size_variable ? 8 * messages : messages;
      check(values[i] - before[i] == expected, label + " " + name + "[" + std::to_string(i) + "]=" +
                                                   std::to_string(values[i]) + " expected " + std::to_string(expected));
    }
    check(values[count] == 777, label + " wrote past count");
    MPI_T_pvar_stop(session, handle);
    MPI_T_pvar_handle_free(session, &handle);
  }
}

// pml_monitoring_internal_messages_count/_size: one MPI_Reduce of 8 doubles over Open MPI's
// binary tree (run with coll_tuned_reduce_algorithm 4, 8 ranks: 1,2 -> 0; 3,5 -> 1;
// 4,6 -> 2; 7 -> 3) adds 1 message of 64 bytes to the parent of each rank and nothing
// else, on MPI_COMM_WORLD and on a split whose ranks are world ranks reversed; the
// application's variables (messages_count/_size) do not move.
void internal(MPI_T_pvar_session session) {
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &reversed);
  const int parent_of[8] = {-1, 0, 0, 1, 2, 1, 2, 3};
  const char* names[] = {"pml_monitoring_internal_messages_count", "pml_monitoring_internal_messages_size",
                         "pml_monitoring_messages_count", "pml_monitoring_messages_size"};
  for (MPI_Comm comm : {MPI_COMM_WORLD, reversed}) {
    const std::vector<int> world_of = scenario::world_ranks_of(comm, false);
    std::vector<std::vector<unsigned long long>> before;
    for (const char* name : names) before.push_back(read_all(session, comm, name));
    double in[8] = {}, out[8];
    MPI_Reduce(in, out, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int v = 0; v < 4; ++v) {
      const std::vector<unsigned long long> after = read_all(session, comm, names[v]);
      check(after.size() == world_of.size(), std::string(names[v]) + " count " + std::to_string(after.size()));
      for (size_t i = 0; i < after.size() && i < world_of.size(); ++i) {
        const bool to_parent = world_size == 8 && world_of[i] == parent_of[world_rank];
        const unsigned long long expected = v >= 2 || !to_parent ? 0 : v == 0 ? 1 : 64;
        check(after[i] - before[v][i] == expected, std::string(names[v]) + "[" + std::to_string(i) + "] grew by " +
                                                       std::to_string(after[i] - before[v][i]) + ", expected " +
                                                       std::to_string(expected));
      }
    }
  }
  MPI_Comm_free(&reversed);
}

void split(MPI_T_pvar_session session) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &half);  // reversed order
  all_to_all_pattern();
  check_comm(session, MPI_COMM_WORLD, scenario::world_ranks_of(MPI_COMM_WORLD, false), "world");
  const std::vector<int> order = scenario::world_ranks_of(half, false);
  check(order.size() < 2 || order[0] > order[1], "split order not reversed");
  check_comm(session, half, order, "split");
  MPI_Comm_free(&half);
}

void intercomm(MPI_T_pvar_session session) {
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, world_rank % 2 == 0 ? 1 : 0, 42, &inter);
  // Creating the intercommunicator exchanged user-tag messages between the leaders on
  // MPI_COMM_WORLD: take them as the baseline.
  const std::vector<std::vector<unsigned long long>> baseline = {
      read_all(session, inter, "pml_monitoring_messages_count"),
      read_all(session, inter, "pml_monitoring_messages_size")};
  all_to_all_pattern();
  check_comm(session, inter, scenario::world_ranks_of(inter, true), "intercomm", baseline);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

unsigned long long total(const std::vector<unsigned long long>& v) {
  unsigned long long t = 0;
  for (auto x : v) t += x;
  return t;
}

void two_handles(MPI_T_pvar_session session) {
  const int index = pvar_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_T_pvar_handle a, b;
  int count;
  MPI_T_pvar_handle_alloc(session, index, &comm, &a, &count);
  MPI_T_pvar_handle_alloc(session, index, &comm, &b, &count);
  std::vector<unsigned long long> va(count), vb(count);
  MPI_T_pvar_start(session, a);
  ring_messages(MPI_COMM_WORLD, 2, 1);  // totals: 2
  MPI_T_pvar_start(session, b);
  ring_messages(MPI_COMM_WORLD, 3, 1);  // totals: 5
  MPI_T_pvar_stop(session, a);          // a frozen at 5
  ring_messages(MPI_COMM_WORLD, 4, 1);  // totals: 9
  MPI_T_pvar_read(session, a, va.data());
  MPI_T_pvar_read(session, b, vb.data());
  check(total(va) == 5, "stopped handle a reads " + std::to_string(total(va)) + " expected 5");
  check(total(vb) == 9, "live handle b reads " + std::to_string(total(vb)) + " expected 9");
  MPI_T_pvar_handle_free(session, &a);  // freeing a started/stopped handle changes nothing for b
  ring_messages(MPI_COMM_WORLD, 1, 1);  // totals: 10
  MPI_T_pvar_read(session, b, vb.data());
  check(total(vb) == 10, "after freeing a, b reads " + std::to_string(total(vb)) + " expected 10");
  MPI_T_pvar_stop(session, b);
  MPI_T_pvar_handle_free(session, &b);
}

void freed(MPI_T_pvar_session session) {
  const int index = pvar_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_T_pvar_handle handle;
  int count;
  MPI_T_pvar_handle_alloc(session, index, &dup, &handle, &count);
  MPI_T_pvar_start(session, handle);
  ring_messages(dup, 1, 2);
  std::vector<unsigned long long> values(count + 1, 777);
  check(MPI_T_pvar_read(session, handle, values.data()) == MPI_SUCCESS, "read on live communicator");
  MPI_Comm_free(&dup);
  // A new, larger-than-nothing communicator may take the freed one's place.
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  values.assign(count + 1, 777);
  const int rc = MPI_T_pvar_read(session, handle, values.data());
  check(values[count] == 777, "wrote past count after free");
  check(rc != MPI_SUCCESS, "read after MPI_Comm_free succeeded");
  std::printf("rank %d: read after free returned %d\n", world_rank, rc);
  MPI_Comm_free(&other);
  MPI_T_pvar_handle_free(session, &handle);
}

void misuse(MPI_T_pvar_session session) {
  int index;
  check(
      MPI_T_pvar_get_index("pml_monitoring_no_such_variable", MPI_T_PVAR_CLASS_SIZE, &index) == MPI_T_ERR_INVALID_NAME,
      "unknown name");
  check(
      MPI_T_pvar_get_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_T_ERR_INVALID_NAME,
      "wrong class");
  index = pvar_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_T_pvar_handle handle;
  int count;
  MPI_T_pvar_handle_alloc(session, index, &comm, &handle, &count);
  std::vector<unsigned long long> values(count, 99);
  const int read_rc = MPI_T_pvar_read(session, handle, values.data());
  std::printf("rank %d: read before start returned %d, value %llu\n", world_rank, read_rc, values[0]);
  const int write_rc = MPI_T_pvar_write(session, handle, values.data());
  check(write_rc != MPI_SUCCESS, "write to a read-only variable succeeded");
  std::printf("rank %d: write to read-only returned %d\n", world_rank, write_rc);
  check(MPI_T_pvar_handle_alloc(session, index, nullptr, &handle, &count) != MPI_SUCCESS, "NULL object accepted");
  check(MPI_T_pvar_get_index("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC, &index) == MPI_SUCCESS, "flush exists");
}

// Objects that are not live objects of the variable's kind: MPI_T_ERR_INVALID from
// MPI_T_pvar_handle_alloc, never a crash, whatever they point to; valid handles go on.
void bad_objects(MPI_T_pvar_session session) {
  const int peer = pvar_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  const int klass = pvar_index("coll_monitoring_a2a_count", MPI_T_PVAR_CLASS_COUNTER);
  const int sync = pvar_index("osc_monitoring_sync_count", MPI_T_PVAR_CLASS_COUNTER);
  const int waits = pvar_index("osc_monitoring_wait_time", MPI_T_PVAR_CLASS_TIMER);
  char buffer[64];
  MPI_Win win, null_win = MPI_WIN_NULL, freed_win;
  MPI_Win_create(buffer, sizeof buffer, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_create(buffer, sizeof buffer, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &freed_win);
  MPI_Win saved_win = freed_win;  // a copy of the handle, dangling once freed
  MPI_Win_free(&freed_win);
  // Freed last: no communicator created afterwards may take its place (windows make
  // communicators of their own).
  MPI_Comm null_comm = MPI_COMM_NULL, world = MPI_COMM_WORLD, freed;
  MPI_Comm_dup(MPI_COMM_WORLD, &freed);
  MPI_Comm saved_comm = freed;
  MPI_Comm_free(&freed);
  MPI_Datatype type = MPI_INT;
  long not_a_handle = 12345;
  void* unmapped = reinterpret_cast<void*>(8);
  struct Case {
    const char* what;
    int index;
    void* object;
  } cases[] = {
      {"&MPI_COMM_NULL", peer, &null_comm},
      {"MPI_COMM_NULL", peer, MPI_COMM_NULL},
      {"a freed communicator", peer, &saved_comm},
      {"a window for a communicator variable", peer, &win},
      {"a datatype", peer, &type},
      {"MPI_INT itself", peer, MPI_INT},
      {"a variable holding no handle", peer, &not_a_handle},
      {"unmapped memory", peer, unmapped},
      {"&MPI_COMM_NULL, class variable", klass, &null_comm},
      {"a freed communicator, class variable", klass, &saved_comm},
      {"&MPI_WIN_NULL", sync, &null_win},
      {"MPI_WIN_NULL", sync, MPI_WIN_NULL},
      {"a freed window", sync, &saved_win},
      {"a communicator for a window variable", sync, &world},
      {"unmapped memory, window variable", sync, unmapped},
      {"&MPI_WIN_NULL, wait-state variable", waits, &null_win},
      {"a freed window, wait-state variable", waits, &saved_win},
      {"a communicator for a wait-state variable", waits, &world},
  };
  for (const Case& c : cases) {
    MPI_T_pvar_handle handle;
    int count = -1;
    const int rc = MPI_T_pvar_handle_alloc(session, c.index, c.object, &handle, &count);
    check(rc == MPI_T_ERR_INVALID, std::string(c.what) + " returned " + std::to_string(rc));
  }
  // The window itself is accepted, as communicators are; and everything still works.
  MPI_T_pvar_handle on_window, on_world;
  int count = -1;
  check(MPI_T_pvar_handle_alloc(session, sync, win, &on_window, &count) == MPI_SUCCESS && count == 15,
        "window passed itself");
  MPI_T_pvar_handle_free(session, &on_window);
  check(MPI_T_pvar_handle_alloc(session, waits, &win, &on_window, &count) == MPI_SUCCESS && count == 7,
        "wait-state variable on a window");
  MPI_T_pvar_handle_free(session, &on_window);
  check(MPI_T_pvar_handle_alloc(session, peer, &world, &on_world, &count) == MPI_SUCCESS && count == world_size,
        "a valid handle after the refusals");
  std::vector<unsigned long long> values(count);
  MPI_T_pvar_start(session, on_world);
  ring_messages(MPI_COMM_WORLD, 2, 4);
  MPI_T_pvar_read(session, on_world, values.data());
  check(values[(world_rank + 1) % world_size] >= 2, "ring counted");
  MPI_T_pvar_stop(session, on_world);
  MPI_T_pvar_handle_free(session, &on_world);
  MPI_Win_free(&win);
  std::printf("rank %d: %zu bad objects refused\n", world_rank, std::size(cases));
}

// Our integer control variables as MPI_T sees them: MPI_INT, no enumeration (as Debian's
// component registers them), read as integers.
void control_variables() {
  for (const char* name :
       {"pml_monitoring_enable", "pml_monitoring_enable_output", "pml_monitoring_verbose", "osc_monitoring_sync_timing",
        "osc_monitoring_wait_states", "coll_monitoring_nbc_sampling", "coll_monitoring_nbc_exact_calls"}) {
    int index = -1;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) {
      check(false, std::string("no control variable ") + name);
      continue;
    }
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    int verbosity, bind, scope;
    MPI_T_cvar_get_info(index, nullptr, nullptr, &verbosity, &datatype, &enumtype, nullptr, nullptr, &bind, &scope);
    check(datatype == MPI_INT, std::string(name) + " is not MPI_INT");
    check(enumtype == MPI_T_ENUM_NULL, std::string(name) + " has an enumeration");
    MPI_T_cvar_handle handle;
    int count = 0, value = -7;
    MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count);
    check(count == 1, std::string(name) + " count " + std::to_string(count));
    check(MPI_T_cvar_read(handle, &value) == MPI_SUCCESS, std::string(name) + " read");
    const int written = 3;
    check(MPI_T_cvar_write(handle, &written) != MPI_SUCCESS, std::string(name) + " written (read-only scope)");
    MPI_T_cvar_handle_free(&handle);
    std::printf("rank %d: cvar %s=%d\n", world_rank, name, value);
  }
}

// Three phases: 1, 2 and 3 ring messages, each flushed to phase_<n>.
void phases(MPI_T_pvar_session session) {
  const int index = pvar_index("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC);
  MPI_T_pvar_handle flush;
  int count;
  MPI_T_pvar_handle_alloc(session, index, nullptr, &flush, &count);
  for (int phase = 1; phase <= 3; ++phase) {
    MPI_T_pvar_start(session, flush);
    ring_messages(MPI_COMM_WORLD, phase, 3);
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "phase_%d", phase);
    check(MPI_T_pvar_write(session, flush, prefix) == MPI_SUCCESS, "flush write");
    check(MPI_T_pvar_stop(session, flush) == MPI_SUCCESS, "flush stop");
  }
  MPI_T_pvar_handle_free(session, &flush);
}

// Flushes that cannot be written return an error and lose nothing (live/flush_phases.h).
// Ring messages 1, 2, 4, ... per attempt; the last flush (phase_ok) must hold them all.
// argv[2], if given: a prefix on a full file system.
void failing_flushes(MPI_T_pvar_session session, const char* full_prefix) {
  const int index = pvar_index("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC);
  MPI_T_pvar_handle flush;
  int count;
  MPI_T_pvar_handle_alloc(session, index, nullptr, &flush, &count);
  MPI_T_pvar_start(session, flush);
  int messages = 1;
  auto attempt = [&](const void* prefix, int expected, const std::string& what) {
    ring_messages(MPI_COMM_WORLD, messages, 3);
    messages *= 2;
    // A write on a started handle already writes the phase and returns the precise error
    // class; Open MPI's core turns any failure of a stop into MPI_T_ERR_PVAR_NO_STARTSTOP.
    const int written = MPI_T_pvar_write(session, flush, prefix);
    const int stopped = MPI_T_pvar_stop(session, flush);
    const int expected_stop = expected == MPI_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
    check(stopped == expected_stop, what + ": stop returned " + std::to_string(stopped));
    check(written == expected,
          what + ": write returned " + std::to_string(written) + ", expected " + std::to_string(expected));
    // A failed stop leaves the handle started (nothing ended); a successful one needs a start.
    if (stopped == MPI_SUCCESS) MPI_T_pvar_start(session, flush);
  };
  attempt("missing/phase", MPI_ERR_NO_SUCH_FILE, "missing folder");
  const std::string long_prefix(5000, 'p');
  attempt(long_prefix.c_str(), MPI_ERR_BAD_FILE, "5000-character prefix");
  attempt("", MPI_SUCCESS, "empty prefix");
  static const void* null_pointer = nullptr;  // what Open MPI's monitoring_test.c writes to mean "no file"
  attempt(&null_pointer, MPI_SUCCESS, "pointer to NULL");
  if (full_prefix != nullptr) attempt(full_prefix, MPI_ERR_NO_SPACE, "full disk");
  ring_messages(MPI_COMM_WORLD, messages, 3);
  check(MPI_T_pvar_write(session, flush, "phase_ok") == MPI_SUCCESS, "phase_ok write");
  check(MPI_T_pvar_stop(session, flush) == MPI_SUCCESS, "phase_ok stop");
  MPI_T_pvar_handle_free(session, &flush);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  scenario::init(argc, argv);
  MPI_T_pvar_session session;
  MPI_T_pvar_session_create(&session);
  if (mode == "snippet")
    snippet(session);
  else if (mode == "split")
    split(session);
  else if (mode == "intercomm")
    intercomm(session);
  else if (mode == "two_handles")
    two_handles(session);
  else if (mode == "freed")
    freed(session);
  else if (mode == "misuse")
    misuse(session);
  else if (mode == "phases")
    phases(session);
  else if (mode == "failing_flushes")
    failing_flushes(session, argc > 2 ? argv[2] : nullptr);
  else if (mode == "bad_objects")
    bad_objects(session);
  else if (mode == "control_variables")
    control_variables();
  else if (mode == "internal")
    internal(session);
  else {
    std::fprintf(stderr, "pvar_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_T_pvar_session_free(&session);
  return scenario::report_and_finalize(mode);
}
