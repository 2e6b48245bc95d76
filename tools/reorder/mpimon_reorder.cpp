#include "mpimon_reorder.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "placement.h"
#include "running_job.h"
#include "topology.h"

namespace {

using namespace mpimon::placement;

constexpr int kMaxLevels = 16;  // topology levels a process reports

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

// What each process tells rank 0 about itself, fixed-size (the host name goes apart).
struct Report {
  int core = -1;
  int levels = 0;
  int arities[kMaxLevels] = {};
  int name_length = 0;
  int traffic_values = 0;  // 2 per peer: (peer, bytes)
};

enum Failure { kNone = 0, kNoMonitoring = 1, kTopology = 2 };

// Gathers `mine` (count values of `type` per process) on rank 0 into `all`.
template <typename T>
void gather_variable(MPI_Comm comm, int rank, int size, const std::vector<T>& mine, MPI_Datatype type,
                     const std::vector<int>& counts, std::vector<T>& all, std::vector<int>& displacements) {
  if (rank == 0) {
    displacements.assign(size, 0);
    long total = 0;
    for (int r = 0; r < size; ++r) displacements[r] = static_cast<int>(total), total += counts[r];
    all.resize(total);
  }
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), type, all.data(), counts.data(), displacements.data(), type,
              0, comm);
}

// Rank 0: the logical rank each process takes. Throws on failure.
std::vector<int> compute_keys(int size, const std::vector<Report>& reports, const std::vector<char>& names,
                              const std::vector<int>& name_at, const std::vector<double>& traffic,
                              const std::vector<int>& traffic_at, std::string& summary) {
  std::vector<ProcessReport> processes(size);
  for (int r = 0; r < size; ++r) {
    processes[r].host.assign(names.data() + name_at[r], reports[r].name_length);
    processes[r].core = reports[r].core;
    processes[r].arities.assign(reports[r].arities, reports[r].arities + reports[r].levels);
  }
  const RunningJob job = running_job(processes);
  std::vector<Traffic> edges;
  for (int r = 0; r < size; ++r)
    for (int k = traffic_at[r]; k < traffic_at[r] + reports[r].traffic_values; k += 2)
      edges.push_back({r, static_cast<int>(traffic[k]), traffic[k + 1]});
  const Affinity affinity(size, std::move(edges));
  const Placed placed = place(affinity, job.cluster, {job.current});
  const Cost before = cost_of(affinity, job.cluster, job.current);
  char text[256];
  std::snprintf(text, sizeof text,
                "mpimon_reorder: %d processes on %zu host(s); bytes crossing hosts %.0f -> %.0f, hop-bytes %.0f -> "
                "%.0f (%s)",
                size, job.cluster.hosts.size(), before.crossing_bytes, placed.cost.crossing_bytes, before.hop_bytes,
                placed.cost.hop_bytes,
                placed.method == Placed::Method::optimal     ? "optimal"
                : placed.method == Placed::Method::heuristic ? "hierarchical"
                                                             : "kept: nothing strictly better");
  summary = text;
  return keys_for(placed.mapping, job.current);
}

}  // namespace

extern "C" int mpimon_reorder(MPI_Comm comm, const char* topology, MPI_Comm* reordered) {
  *reordered = MPI_COMM_NULL;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // What this process knows: its traffic, its host, its binding, its host's tree.
  std::vector<unsigned long long> sent;
  int failure = read_sent_bytes(comm, sent) ? kNone : kNoMonitoring;
  Report mine;
  std::string problem;
  if (failure == kNone) {
    try {
      const Tree tree = load_topology(topology && *topology ? topology : "machine").tree;
      if (tree.arities.size() > static_cast<size_t>(kMaxLevels)) throw TopologyError("more than 16 levels");
      mine.levels = static_cast<int>(tree.arities.size());
      std::copy(tree.arities.begin(), tree.arities.end(), mine.arities);
      mine.core = bound_core();
    } catch (const std::exception& e) {
      failure = kTopology;
      problem = e.what();
    }
  }
  int worst = 0;
  MPI_Allreduce(&failure, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst != kNone) {  // one line, from rank 0
    if (rank == 0 && failure == kTopology)
      std::fprintf(stderr, "mpimon_reorder: %s; nothing reordered\n", problem.c_str());
    else if (rank == 0 && worst == kTopology)
      std::fprintf(stderr, "mpimon_reorder: another process could not load its topology; nothing reordered\n");
    else if (rank == 0)
      std::fprintf(stderr,
                   "mpimon_reorder: pml_monitoring_messages_size is unavailable (run under mpimon with "
                   "pml_monitoring_enable >= 1); nothing reordered\n");
    return MPI_ERR_OTHER;
  }

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &mine.name_length);
  std::vector<double> traffic;  // (peer, bytes) pairs: only the non-zeros travel
  for (int p = 0; p < size; ++p)
    if (sent[p] != 0 && p != rank)
      traffic.insert(traffic.end(), {static_cast<double>(p), static_cast<double>(sent[p])});
  mine.traffic_values = static_cast<int>(traffic.size());

  // Rank 0 gathers O(processes + non-zeros), places, and scatters one key per process.
  constexpr int kReportInts = sizeof(Report) / sizeof(int);
  std::vector<Report> reports(rank == 0 ? size : 0);
  MPI_Gather(&mine, kReportInts, MPI_INT, reports.data(), kReportInts, MPI_INT, 0, comm);
  std::vector<int> name_lengths(rank == 0 ? size : 0), traffic_counts(rank == 0 ? size : 0), name_at, traffic_at;
  for (int r = 0; r < static_cast<int>(reports.size()); ++r) {
    name_lengths[r] = reports[r].name_length;
    traffic_counts[r] = reports[r].traffic_values;
  }
  std::vector<char> names;
  std::vector<double> all_traffic;
  gather_variable(comm, rank, size, std::vector<char>(name, name + mine.name_length), MPI_CHAR, name_lengths, names,
                  name_at);
  gather_variable(comm, rank, size, traffic, MPI_DOUBLE, traffic_counts, all_traffic, traffic_at);

  std::vector<int> keys(rank == 0 ? size : 0);
  int failed = 0;
  if (rank == 0) {
    std::string summary;
    try {
      keys = compute_keys(size, reports, names, name_at, all_traffic, traffic_at, summary);
      const char* verbose = std::getenv("MPIMON_REORDER_VERBOSE");
      if (verbose && *verbose && std::strcmp(verbose, "0") != 0) std::fprintf(stderr, "%s\n", summary.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpimon_reorder: %s; nothing reordered\n", e.what());
      failed = 1;
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
  if (failed) return MPI_ERR_OTHER;
  int key = rank;
  MPI_Scatter(keys.data(), 1, MPI_INT, &key, 1, MPI_INT, 0, comm);
  return MPI_Comm_split(comm, 0, key, reordered);
}

extern "C" int mpimon_reorder_fortran(MPI_Fint comm, const char* topology, MPI_Fint* reordered) {
  MPI_Comm result = MPI_COMM_NULL;
  const int status = mpimon_reorder(MPI_Comm_f2c(comm), topology, &result);
  *reordered = MPI_Comm_c2f(result);
  return status;
}
