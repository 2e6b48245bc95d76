// Translating a rank in any communicator to the peer's MPI_COMM_WORLD rank, without a
// table: the group's proc pointer is either an ompi_proc_t (name inside) or a sentinel
// encoding the name (lowest bit 1, vpid in bits 32-63). The vpid is the world rank when
// the peer belongs to our job.
#pragma once

#include <cstdint>

#include "runtime/ompi_glue.h"

namespace mpimon {

struct LocalJob {
  uint32_t jobid = 0;         // our job's id
  uint32_t sentinel_low = 0;  // low 32 bits of a sentinel of our job (bit 0 set, jobid)

  static LocalJob of_this_process() {
    const opal_process_name_t me = ompi_proc_local_proc->super.proc_name;
    return {me.jobid, static_cast<uint32_t>(ompi_proc_name_to_sentinel(me))};
  }
};

// Sets `world_rank` to the MPI_COMM_WORLD rank of `rank` in comm's remote group (the
// group itself for intracommunicators); false if that process belongs to another job
// (spawned or connected), which has no world rank of ours.
inline bool find_world_rank(const ompi_communicator_t* comm, int rank, const LocalJob& job, int32_t& world_rank) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(comm->c_remote_group->grp_proc_pointers[rank]);
  if (p & 1) {
    world_rank = static_cast<int32_t>(p >> 32);
    return static_cast<uint32_t>(p) == job.sentinel_low;
  }
  const opal_process_name_t& name = reinterpret_cast<const ompi_proc_t*>(p)->super.proc_name;
  world_rank = static_cast<int32_t>(name.vpid);
  return name.jobid == job.jobid;
}

// World rank of member `rank` of a group, or -1 for a process of another job.
inline int32_t world_rank_in_group(const ompi_group_t* group, int rank, const LocalJob& job) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(group->grp_proc_pointers[rank]);
  if (p & 1) return static_cast<uint32_t>(p) == job.sentinel_low ? static_cast<int32_t>(p >> 32) : -1;
  const opal_process_name_t& name = reinterpret_cast<const ompi_proc_t*>(p)->super.proc_name;
  return name.jobid == job.jobid ? static_cast<int32_t>(name.vpid) : -1;
}

// The same, as a value: -1 for a process of another job.
inline int32_t world_rank_of(const ompi_communicator_t* comm, int rank, const LocalJob& job) {
  int32_t world_rank;
  return find_world_rank(comm, rank, job, world_rank) ? world_rank : -1;
}

}  // namespace mpimon
