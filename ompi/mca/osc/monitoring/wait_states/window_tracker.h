// RMA wait states detected while the job runs (osc_monitoring_wait_states 1): the live
// side. The OSC adapter's wrappers feed a WindowTracker with the intervals of the calls
// they forward; the tracker keeps the open epochs of its window (bounded: per partner
// and per target of the current epoch), sends and receives the few timestamps the
// detection rules need through a small shadow window, and, when an epoch closes, hands
// its record to the pure rules (common/monitoring/analyses/wait_states/wait_patterns.h) and the
// waits they find to the totals, the performance variables and the MPI_T events.
//
// Exchange (docs/rma-wait-states.md, "How it works"):
//   MPI_Win_post     the target sends its post entry time to each origin (a
//                    point-to-point message on the private communicator, not waited for)
//   MPI_Win_complete the origin puts its complete entry and last-operation exit into
//                    each target's shadow; it receives the targets' post times after the
//                    real complete returns
//   MPI_Win_wait/test the target reads the origins' records after the epoch closed
//   MPI_Win_fence    every origin MPI_MAXLOC-accumulates the end of its last operation
//                    into each of its targets, then one allreduce gives every process
//                    the latest entry and the earliest exit
//   MPI_Win_unlock   the releaser puts its release time into the target's shadow before
//                    the real unlock; the next holder reads the target's records after
//                    its own unlock
// Every record travels before the real synchronisation message it accompanies, so it
// arrives no later than the event that makes the reader look (and is checked by its
// tag when it did not). No exchange adds a dependency the application's own
// synchronisation does not already have.
//
// The shadow window is passive-target (a shared MPI_MODE_NOCHECK lock on each process
// written to, from first use to the end), never monitored, and every communicator behind it is registered as
// private (Runtime::add_private_communicator): our own traffic is never counted.
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/group/group.h>
#include <ompi/win/win.h>

#include <cstdint>
#include <memory>
#include <string>

#include "analyses/wait_states/clock_offsets.h"
#include "analyses/wait_states/wait_patterns.h"
#include "analyses/wait_states/wait_totals.h"

namespace mpimon::osc::wait_states {

using mpimon::wait_states::Nanos;

// Process-wide settings, decided once when the layer starts.
struct Settings {
  bool enabled = false;
  mpimon::wait_states::TestingClockShift testing_shift;  // testing only
  int32_t world_rank = 0;
  std::string host_name;  // this process's host (its clock domain)
};
void configure(const Settings& settings);
const Settings& current_settings();
bool enabled();

// This process's wait totals (all windows), read by performance variables and dumps.
mpimon::wait_states::WaitStateRegistry& registry();

// The host clock (CLOCK_MONOTONIC, plus the testing shift), in nanoseconds.
Nanos host_now();

// True while our own shadow window is being created: the OSC component must then create
// it unmonitored.
bool creating_shadow();

class WindowTracker {
 public:
  // Collective over the window's processes (runs inside MPI_Win_create & co, where all of
  // them take part): a private communicator, the shadow window, the clock offsets. Our
  // recording is paused meanwhile. nullptr (and one warning) if any step fails; the
  // window is then monitored without wait states.
  static std::unique_ptr<WindowTracker> create(ompi_win_t* win, ompi_communicator_t* comm, uint64_t registry_id);
  // Collective (inside MPI_Win_free): the clock drift, then the shadow window and the
  // private communicator are freed.
  void destroy();
  ~WindowTracker();

  // The reference clock (the window's rank 0's host).
  Nanos now() const { return host_now() + offset_; }

  // One RMA operation to `target` (window rank) took (enter, exit].
  void operation(int target, Nanos enter, Nanos exit);

  // Synchronisation calls: `before_*` right before the real call (returns nothing: it
  // records the entry time itself), `after_*` right after it, with its return code.
  void before_fence();
  void after_fence(int rc);
  void before_start();
  void after_start(ompi_group_t* group, int assert, int rc);
  void before_complete();
  void after_complete(int rc);
  void before_post(ompi_group_t* group, int assert);
  void after_post(int rc);
  void before_wait();
  void after_wait(int rc);
  void before_test();
  void after_test(int rc, bool flag);
  void before_lock();
  void after_lock(int lock_type, int target, int assert, int rc);
  void before_unlock(int target);
  void after_unlock(int target, int rc);
  void after_lock_all(int rc);
  void after_unlock_all(int rc);

  struct Impl;

 private:
  explicit WindowTracker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  Nanos offset_ = 0;
};

}  // namespace mpimon::osc::wait_states
