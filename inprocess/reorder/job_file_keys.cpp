// The topology component's entry point (mpimon_reorder_topo.h): a previous run's job file,
// read on rank 0, placed onto the running processes (running_placement.h).
#include <cstdio>
#include <exception>
#include <vector>

#include "mpimon_reorder.h"
#include "mpimon_reorder_topo.h"
#include "readers/job_reader.h"
#include "running_placement.h"
#include "runtime/program_name.h"

namespace {

using namespace mpimon::reorder;
using mpimon::placement::Traffic;

bool wanted(mpimon::Category category, int traffic) {
  switch (traffic) {
    case MPIMON_REORDER_EXTERNAL:
      return category == mpimon::Category::external;
    case MPIMON_REORDER_INTERNAL:
      return category == mpimon::Category::internal;
    default:
      return category == mpimon::Category::external || category == mpimon::Category::internal;
  }
}

// Rank 0: the job file's traffic between the processes of `comm`, in ranks of `comm`.
// Throws with the reason the file does not fit this job.
std::vector<Traffic> traffic_from_job_file(MPI_Comm comm, const std::string& path, int traffic) {
  const mpimon::JobFile job = mpimon::read_job_file(path);
  int world_size, size;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_size(comm, &size);
  if (job.header.world_size != world_size)
    throw std::invalid_argument("job file " + path + " is a job of " + std::to_string(job.header.world_size) +
                                " processes, this one has " + std::to_string(world_size));
  // Files from before the `program` annotation name none: only their size is checked.
  const std::string there = mpimon::job_program(job), here = mpimon::program_name();
  if (!there.empty() && there != here)
    throw std::invalid_argument("job file " + path + " is a run of '" + there + "', this program is '" + here + "'");
  // World rank -> rank in comm (-1: not in it).
  std::vector<int> ranks(size), world_ranks(size);
  for (int r = 0; r < size; ++r) ranks[r] = r;
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_translate_ranks(group, size, ranks.data(), world, world_ranks.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  std::vector<int> in_comm(world_size, -1);
  for (int r = 0; r < size; ++r) in_comm[world_ranks[r]] = r;
  std::vector<Traffic> known;
  for (const mpimon::JobRecord& record : job.records) {
    if (!wanted(record.category, traffic)) continue;
    if (record.source >= world_size || record.destination >= world_size) continue;  // the reader checked; kept safe
    const int from = in_comm[record.source], to = in_comm[record.destination];
    if (from >= 0 && to >= 0 && from != to) known.push_back({from, to, static_cast<double>(record.counters.bytes)});
  }
  return known;
}

}  // namespace

extern "C" int mpimon_reorder_keys_from_job_file_v1(MPI_Comm comm, const char* job_file, int traffic, const char* who,
                                                    int verbose, int* key) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  *key = rank;
  Problem problem;
  std::vector<Traffic> known;
  if (rank == 0) {
    try {
      known = traffic_from_job_file(comm, job_file ? job_file : "", traffic);
    } catch (const std::exception& e) {
      problem = {true, e.what()};
    }
  }
  const RunningPlacement placed = place_on_running_processes(comm, nullptr, who, problem, std::move(known));
  if (placed.status != MPI_SUCCESS) return placed.status;
  if (rank == 0 && verbose) std::fprintf(stderr, "%s: by %s: %s\n", who, job_file, placed.summary.c_str());
  *key = placed.key;
  return MPI_SUCCESS;
}
