#include "mpimon_reorder.h"

#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "topology.h"
#include "treematch.h"

namespace {

using namespace mpimon::placement;

// Bytes this process sent to each rank of `comm`, from the monitoring variable.
bool read_sent_bytes(MPI_Comm comm, std::vector<unsigned long long>& bytes) {
  int provided = 0, index = -1, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
  bool ok = MPI_T_pvar_get_index("pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &index) == MPI_SUCCESS;
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  if (ok) ok = MPI_T_pvar_session_create(&session) == MPI_SUCCESS;
  if (ok) {
    ok = MPI_T_pvar_handle_alloc(session, index, &comm, &handle, &count) == MPI_SUCCESS;
    if (ok) {
      bytes.assign(count, 0);
      ok = MPI_T_pvar_start(session, handle) == MPI_SUCCESS &&
           MPI_T_pvar_read(session, handle, bytes.data()) == MPI_SUCCESS;
      MPI_T_pvar_stop(session, handle);
      MPI_T_pvar_handle_free(session, &handle);
    }
    MPI_T_pvar_session_free(&session);
  }
  MPI_T_finalize();
  return ok;
}

// The tree of the job: `topology` for every host, hosts as the top level when several.
Tree job_tree(MPI_Comm comm, const char* topology, std::vector<int>& host_of) {
  int rank, size, length;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::vector<char> names(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  std::map<std::string, int> hosts;
  host_of.resize(size);
  for (int r = 0; r < size; ++r) {
    const std::string host(&names[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    host_of[r] = hosts.emplace(host, static_cast<int>(hosts.size())).first->second;
  }
  Tree tree = load_topology(topology ? topology : "machine").tree;
  if (hosts.size() > 1) tree.arities.insert(tree.arities.begin(), static_cast<int>(hosts.size()));
  return tree;
}

}  // namespace

extern "C" int mpimon_reorder(MPI_Comm comm, const char* topology, MPI_Comm* reordered) {
  *reordered = MPI_COMM_NULL;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<unsigned long long> sent;
  int ok = read_sent_bytes(comm, sent) ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
    if (rank == 0) std::fprintf(stderr, "mpimon_reorder: pml_monitoring_messages_size is unavailable (run under mpimon with pml_monitoring_enable >= 1); nothing reordered\n");
    return MPI_ERR_OTHER;
  }
  // Rank 0 gathers the non-zero entries only (O(non-zeros)), places, and scatters keys.
  std::vector<double> mine;  // (peer, bytes) pairs
  for (int p = 0; p < size; ++p)
    if (sent[p] != 0 && p != rank) mine.insert(mine.end(), {static_cast<double>(p), static_cast<double>(sent[p])});
  int my_count = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? size : 0), displacements(rank == 0 ? size : 0);
  MPI_Gather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) displacements[r] = total, total += counts[r];
    all.resize(total);
  }
  MPI_Gatherv(mine.data(), my_count, MPI_DOUBLE, all.data(), counts.data(), displacements.data(), MPI_DOUBLE, 0, comm);
  std::vector<int> host_of;
  int key = rank;
  std::string error;
  try {
    const Tree tree = job_tree(comm, topology, host_of);
    std::vector<int> keys(rank == 0 ? size : 0);
    int failed = 0;
    if (rank == 0) {
      try {
        Affinity affinity(size);
        for (int r = 0; r < size; ++r)
          for (int i = displacements[r]; i < displacements[r] + counts[r]; i += 2)
            affinity.add(r, static_cast<int>(all[i]), all[i + 1]);
        Options options;
        options.oversubscription = std::max(1, (size + tree.leaves() - 1) / tree.leaves());
        const Placement placement = treematch(affinity, tree, options);
        // New rank order = core order.
        std::vector<int> order(size);
        for (int r = 0; r < size; ++r) order[r] = r;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return placement[a] < placement[b]; });
        for (int position = 0; position < size; ++position) keys[order[position]] = position;
      } catch (const std::exception& e) {
        error = e.what();
        failed = 1;
        for (int r = 0; r < size; ++r) keys[r] = r;
      }
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    MPI_Scatter(keys.data(), 1, MPI_INT, &key, 1, MPI_INT, 0, comm);
    if (failed) {
      if (rank == 0) std::fprintf(stderr, "mpimon_reorder: %s; nothing reordered\n", error.c_str());
      return MPI_ERR_OTHER;
    }
  } catch (const std::exception& e) {  // the topology could not be loaded (same on every rank)
    if (rank == 0) std::fprintf(stderr, "mpimon_reorder: %s; nothing reordered\n", e.what());
    return MPI_ERR_OTHER;
  }
  return MPI_Comm_split(comm, 0, key, reordered);
}
