// Shared by the self-checking MPI scenario programs (pvar_patterns, coll_patterns,
// osc_patterns): failures are collected per rank and printed as one line,
// "rank <r>: OK <mode>" or "rank <r>: FAILED <mode> [what differed] ...", which the
// GoogleTest side looks for.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace scenario {

inline int rank = 0, size = 1;
inline std::string failures;

inline void check(bool ok, const std::string& what) {
  if (!ok) failures += " [" + what + "]";
}

// Index of a performance variable; a missing one ends the job (nothing else can be checked).
inline int pvar_index(const char* name, int pvar_class) {
  int index = -1;
  const int rc = MPI_T_pvar_get_index(name, pvar_class, &index);
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "rank %d: MPI_T_pvar_get_index(%s) = %d\n", rank, name, rc);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  return index;
}

// All values of a SIZE variable bound to `comm`, through a short-lived handle.
inline std::vector<unsigned long long> read_size_variable(MPI_T_pvar_session session, const char* name, MPI_Comm comm) {
  MPI_T_pvar_handle handle;
  int count = 0;
  MPI_T_pvar_handle_alloc(session, pvar_index(name, MPI_T_PVAR_CLASS_SIZE), &comm, &handle, &count);
  std::vector<unsigned long long> values(count);
  MPI_T_pvar_start(session, handle);
  MPI_T_pvar_read(session, handle, values.data());
  MPI_T_pvar_stop(session, handle);
  MPI_T_pvar_handle_free(session, &handle);
  return values;
}

// MPI_COMM_WORLD ranks of the members of comm's local group (remote group if `remote`).
inline std::vector<int> world_ranks_of(MPI_Comm comm, bool remote = false) {
  MPI_Group group, world;
  if (remote) {
    MPI_Comm_remote_group(comm, &group);
  } else {
    MPI_Comm_group(comm, &group);
  }
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  MPI_Group_size(group, &n);
  std::vector<int> ranks(n), out(n);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  MPI_Group_translate_ranks(group, n, ranks.data(), world, out.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return out;
}

// MPI_T first (performance variables are read from before MPI_Init on), then MPI.
inline void init(int& argc, char**& argv, int required = MPI_THREAD_SINGLE) {
  int provided = 0;
  MPI_T_init_thread(required, &provided);
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

// Prints this rank's verdict, then ends MPI_T (before MPI_Finalize: the reverse crashes
// in Open MPI 4.1) and MPI.
inline int report_and_finalize(const std::string& mode) {
  std::printf("rank %d: %s %s%s\n", rank, failures.empty() ? "OK" : "FAILED", mode.c_str(), failures.c_str());
  std::fflush(stdout);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}

}  // namespace scenario
