// COLL adapter, nonblocking-collective side: did the application's nonblocking
// collectives overlap? (the rules and the tracker: common/monitoring/analyses/nbc_overlap.h).
//
// Per call the wrapper begins tracking before forwarding and watches the request for
// its completion after. While any tracked collective is pending, the application's wait
// calls go through our wrappers of Open MPI's request functions (ompi_request_functions:
// MPI_Wait, _Waitall, _Waitany, _Waitsome), and the PML layer hands the tracker its sends;
// with none pending, neither is installed (no cost).
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/communicator/communicator.h>
#include <ompi/request/request.h>

#include "analyses/communicator_classes.h"
#include "analyses/nbc_overlap.h"
#include "communication_events.h"
#include "mpit_events_producer.h"

namespace mpimon::coll {

// Installs the wait wrappers' switch; once, when our layer starts.
void start_nbc(bool threaded);

// Which of the application's nonblocking collectives are followed
// (analyses/nbc_schedule.h: coll_monitoring_nbc_exact_calls, the first calls of each
// communicator; then coll_monitoring_nbc_sampling, 0 none, 1 every one, N >= 2 one in N
// on average, drawn at random). Set before the first collective.
void set_nbc_schedule(const NbcSchedule& schedule);
const NbcSchedule& nbc_schedule();
// The application's call of `kind` on the communicator of `classes` whose turn came (its
// countdown reached zero): whether it is followed. Updates the communicator's `exact_left`
// and the kind's `countdown`, and notes in `classes` when calls go unfollowed.
bool decide_following(uint32_t& exact_left, uint64_t& countdown, CommunicatorClasses* classes, NbcKind kind);

// Whether a nonblocking collective slot was called by the MPI binding (the application's
// MPI_I... call; `return_address` is the slot's return address), rather than by Open MPI
// itself (communicator creation agrees on a context id with iallreduce, ibcast, ireduce
// on the parent communicator: those are not the application's). Cached per call site.
bool called_by_application(const void* return_address);

struct NbcStart {
  NbcTracker::Pending* pending = nullptr;  // null: not tracked
  int32_t first_tag = 0;
};
// Before forwarding the application's call.
NbcStart begin_nbc(ompi_communicator_t* comm, NbcKind kind, CommunicatorClasses* classes);
// After it returned `rc` with `request` (when rc is OMPI_SUCCESS). `end_event`: the
// MPI_T end event to raise at completion, or null (`context`: the call's, for a request
// complete already).
void after_nbc(const NbcStart& start, int rc, ompi_communicator_t* comm, ompi_request_t* request,
               const mpimon_coll_event* end_event, MPI_T_cb_safety context);

// The communicator of `classes` is being freed.
void forget_nbc_destination(const CommunicatorClasses* classes);

}  // namespace mpimon::coll
