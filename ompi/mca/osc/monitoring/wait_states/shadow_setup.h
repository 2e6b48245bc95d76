// Our own MPI objects behind one window's wait states: a private communicator (a copy of
// the window's group) and the shadow window, with the few one-sided primitives the
// tracker uses on them.
//
// set_up_shadow and tear_down_shadow are the ONLY places where our code makes collective
// calls for wait states (communicator and window creation, the clock offsets), and they
// run only inside the application's own MPI_Win_create & co / MPI_Win_free, where every
// process of the window takes part anyway. (The fence allreduce runs inside each
// MPI_Win_fence, likewise collective.) Both do nothing unless every rank of the job runs
// our components (Runtime::all_ranks_monitored, the start-up check): in a mixed
// deployment the other ranks would never join, and window creation would hang.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_set>
#include <vector>

#include "analyses/wait_states/clock_offsets.h"
#include "analyses/wait_states/shadow_layout.h"

struct ompi_communicator_t;

namespace mpimon::osc::wait_states {

using mpimon::wait_states::ClockOffset;
using mpimon::wait_states::FenceRecord;
using mpimon::wait_states::Interval;
using mpimon::wait_states::Nanos;
using mpimon::wait_states::ShadowLayout;

struct FenceExtremes {
  Nanos latest_enter = 0;
  int32_t latest_rank = -1;
  Nanos earliest_exit = 0;
};

class Shadow {
 public:
  // Puts `record` into `target`'s shadow memory at `disp`, completed before returning as
  // far as it must be to arrive before the synchronisation message that follows it: at
  // the target (rdma, sm, ucx: no target involvement), or locally (pt2pt, whose messages
  // between two processes arrive in the order they were sent; a remote flush there would
  // wait for the target's progress).
  template <typename Record>
  void put(const Record& record, int target, size_t disp) {
    put_bytes(&record, sizeof record, target, disp);
  }
  // A target's post entry time to one origin of its group: a point-to-point message on
  // the private communicator, sent (not waited for) before the real post, so it reaches
  // the origin before the post itself. `record` must stay untouched until the origin
  // has received it (two pair epochs later at the latest).
  void send_post_record(const mpimon::wait_states::PostRecord& record, int origin);
  // The next post record from `target` (already sent: the real post it preceded has
  // arrived).
  mpimon::wait_states::PostRecord receive_post_record(int target);
  // MPI_MAX-accumulates into `target` and waits for remote completion (inside a fence,
  // where every process makes progress).
  void accumulate_max(FenceRecord record, int target, size_t disp);
  // Reads `bytes` from `target`'s shadow memory at `disp` (a remote read).
  bool get(void* out, size_t bytes, int target, size_t disp);
  // Our own shadow memory, after MPI_Win_sync.
  void sync();
  template <typename Record>
  Record read(size_t disp) const {
    Record r;
    std::memcpy(&r, base + disp, sizeof r);
    return r;
  }
  // The fence record at `disp`, reset for its next use.
  FenceRecord take_fence_record(size_t disp);
  // One allreduce over the window: the latest entry and the earliest exit of this fence.
  std::optional<FenceExtremes> fence_extremes(Interval mine);

  MPI_Comm comm = MPI_COMM_NULL;  // private copy of the window's communicator
  MPI_Win win = MPI_WIN_NULL;     // the shadow window (passive target)
  char* base = nullptr;           // its memory
  int rank = 0;
  int size = 1;
  Nanos created = 0;                    // rank 0's reference clock at creation (fence records)
  bool flush_needs_target = false;      // pt2pt
  std::unordered_set<int> unflushed;    // pt2pt: targets written to with local completion only
  std::unordered_set<int> open_epochs;  // targets we hold a shared MPI_MODE_NOCHECK lock on
  std::vector<uint32_t> private_cids;   // registered in the Runtime

 private:
  // A passive-target epoch on `target`, opened at first use and kept until the shadow is
  // freed: a shared lock with MPI_MODE_NOCHECK (no message; MPI_Win_lock_all would make
  // osc pt2pt ask each target for its lock, waiting for its progress).
  void open_epoch(int target);
  void put_bytes(const void* data, size_t bytes, int target, size_t disp);
};

// Collective over `comm` (the window's communicator): creates the private communicator
// and the shadow window (unmonitored, recording paused), registers every communicator
// this created as private, and measures this process's clock offset against the
// window's rank 0. nullopt on failure (one warning; nothing left allocated).
std::optional<ClockOffset> set_up_shadow(ompi_communicator_t* comm, const ShadowLayout& layout, Shadow& shadow);

// Collective over the window: measures the clock offset again, frees the shadow window
// and the private communicator. Returns the drift (offset now minus offset at creation).
std::optional<Nanos> tear_down_shadow(Shadow& shadow, Nanos offset_at_creation);

// The OSC component that created the last shadow window (set by our component's select
// while creating_shadow() is true).
void shadow_created_by(const char* component_name);

}  // namespace mpimon::osc::wait_states
