#include "running_placement.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "placement.h"
#include "running_job.h"
#include "topology.h"

namespace mpimon::reorder {

namespace {

using namespace mpimon::placement;

constexpr int kMaxLevels = 16;  // topology levels a process reports

// What each process tells rank 0 about itself, fixed-size (the host name and the traffic
// go apart).
struct Report {
  int core = -1;
  int levels = 0;
  int arities[kMaxLevels] = {};
  int name_length = 0;
  int traffic_values = 0;  // 3 per entry: (from, to, bytes)
};

// Gathers `mine` (a variable number of values of `type` per process) on rank 0 into `all`;
// `counts` and `displacements` are filled on rank 0.
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
                              std::string& summary) {
  std::vector<ProcessReport> processes(size);
  for (int r = 0; r < size; ++r) {
    processes[r].host.assign(names.data() + name_at[r], reports[r].name_length);
    processes[r].core = reports[r].core;
    processes[r].arities.assign(reports[r].arities, reports[r].arities + reports[r].levels);
  }
  const RunningJob job = running_job(processes);
  std::vector<Traffic> edges;
  edges.reserve(traffic.size() / 3);
  for (size_t k = 0; k + 2 < traffic.size(); k += 3) {
    const int from = static_cast<int>(traffic[k]), to = static_cast<int>(traffic[k + 1]);
    if (from < 0 || from >= size || to < 0 || to >= size)
      throw std::invalid_argument("traffic outside the communicator");
    edges.push_back({from, to, traffic[k + 2]});
  }
  const Affinity affinity(size, std::move(edges));
  const Placed placed = place(affinity, job.cluster, {job.current});
  const Cost before = cost_of(affinity, job.cluster, job.current);
  char text[256];
  std::snprintf(text, sizeof text,
                "%d processes on %zu host(s); bytes crossing hosts %.0f -> %.0f, hop-bytes %.0f -> %.0f (%s)", size,
                job.cluster.hosts.size(), before.crossing_bytes, placed.cost.crossing_bytes, before.hop_bytes,
                placed.cost.hop_bytes,
                placed.method == Placed::Method::optimal     ? "optimal"
                : placed.method == Placed::Method::heuristic ? "hierarchical"
                                                             : "kept: nothing strictly better");
  summary = text;
  return keys_for(placed.mapping, job.current);
}

}  // namespace

RunningPlacement place_on_running_processes(MPI_Comm comm, const char* topology, const char* who,
                                            const Problem& problem, std::vector<Traffic> known) {
  RunningPlacement result;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  result.key = rank;

  // Where this process runs: its binding and its host's tree.
  Report mine;
  Problem here = problem;
  if (!here.failed) {
    try {
      const Tree tree = load_topology(topology && *topology ? topology : "machine").tree;
      if (tree.arities.size() > static_cast<size_t>(kMaxLevels)) throw TopologyError("more than 16 levels");
      mine.levels = static_cast<int>(tree.arities.size());
      std::copy(tree.arities.begin(), tree.arities.end(), mine.arities);
      mine.core = bound_core();
    } catch (const std::exception& e) {
      here = {true, e.what()};
    }
  }
  // Agreed before anything else: rank 0 says its own problem, or that another process had one.
  int failed = here.failed ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) {
    if (rank == 0)
      std::fprintf(stderr, "%s: %s; nothing reordered\n", who,
                   here.failed ? here.text.c_str() : "another process could not take part (its topology or traffic)");
    result.status = MPI_ERR_OTHER;
    return result;
  }

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &mine.name_length);
  std::vector<double> traffic;  // (from, to, bytes) triples: only the non-zeros travel
  traffic.reserve(known.size() * 3);
  for (const Traffic& t : known)
    if (t.amount != 0 && t.from != t.to)
      traffic.insert(traffic.end(), {static_cast<double>(t.from), static_cast<double>(t.to), t.amount});
  known.clear();
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
  int placement_failed = 0;
  if (rank == 0) {
    try {
      keys = compute_keys(size, reports, names, name_at, all_traffic, result.summary);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s; nothing reordered\n", who, e.what());
      placement_failed = 1;
    }
  }
  MPI_Bcast(&placement_failed, 1, MPI_INT, 0, comm);
  if (placement_failed) {
    result.status = MPI_ERR_OTHER;
    return result;
  }
  MPI_Scatter(keys.data(), 1, MPI_INT, &result.key, 1, MPI_INT, 0, comm);
  return result;
}

}  // namespace mpimon::reorder
