// Nonblocking collectives: tracking each of the application's calls from the call to
// the completion of its request, and the application's waits on it.
#include "coll_monitoring_nbc.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>

#include <ompi/mca/coll/base/coll_tags.h>

#include "coll_monitoring_events.h"
#include "runtime/runtime.h"

namespace mpimon::coll {
namespace {

NbcTracker* tracker = nullptr;

// ---------------------------------------------------------------------------------------
// Who called: the MPI binding, or Open MPI itself

struct CallSite {
  std::atomic<const void*> address{nullptr};
  std::atomic<bool> application{false};
};
constexpr int kCallSites = 32;
CallSite call_sites[kCallSites];
std::mutex call_sites_mutex;

bool classify(const void* return_address) {
  Dl_info info{};
  if (dladdr(return_address, &info) == 0 || info.dli_sname == nullptr) return false;
  // The C bindings MPI_Iallreduce, MPI_Ineighbor_alltoall, ... (and their PMPI_ names);
  // Fortran bindings call them.
  return std::strncmp(info.dli_sname, "MPI_I", 5) == 0 || std::strncmp(info.dli_sname, "PMPI_I", 6) == 0;
}

// ---------------------------------------------------------------------------------------
// Completion

// The request's completion callback data while it is pending. A callback the module
// installed already is chained after ours.
//
// Our callback is not always called with the request: the MPI binding, after our wrapper
// returned, wraps the callback it finds when the collective uses a user operation or a
// derived datatype (ompi_coll_base_retain_op / _datatypes, Open MPI 4.1) and then calls
// it with the data pointer it saved, i.e. our watch. The watch starts with a word no
// request starts with (a request's first word is its class pointer), which tells the cases
// apart.
constexpr uint64_t kWatchMark = 0x6e62632d77617463ull;  // "nbc-watc"
struct CompletionWatch {
  uint64_t mark;
  ompi_request_t* request;
  NbcTracker::Pending* pending;
  bool end_event;
  ompi_communicator_t* comm;
  mpimon_coll_event event;
  ompi_request_complete_fn_t chained;
  void* chained_data;
  CompletionWatch* next_free;
};

// Recycled watches (no allocation per call); a lock only under MPI_THREAD_MULTIPLE.
bool threaded_process = false;
std::mutex watches_mutex;
CompletionWatch* free_watches = nullptr;

CompletionWatch* new_watch() {
  std::unique_lock lock(watches_mutex, std::defer_lock);
  if (threaded_process) lock.lock();
  if (free_watches == nullptr) return new CompletionWatch;
  return std::exchange(free_watches, free_watches->next_free);
}

void recycle(CompletionWatch* watch) {
  std::unique_lock lock(watches_mutex, std::defer_lock);
  if (threaded_process) lock.lock();
  watch->next_free = std::exchange(free_watches, watch);
}

int completed(ompi_request_t* argument) {
  CompletionWatch* watch;
  if (*reinterpret_cast<const uint64_t*>(argument) == kWatchMark) {
    watch = reinterpret_cast<CompletionWatch*>(argument);  // through the binding's wrapper
  } else {
    watch = static_cast<CompletionWatch*>(argument->req_complete_cb_data);
    argument->req_complete_cb_data = watch->chained_data;
  }
  if (watch->pending != nullptr) tracker->completed(watch->pending, tracker->now());
  if (watch->end_event) raise_end_in_progress(watch->comm, watch->event);
  const ompi_request_complete_fn_t chained = watch->chained;
  ompi_request_t* request = watch->request;
  recycle(watch);
  return chained != nullptr ? chained(request) : 0;
}

// ---------------------------------------------------------------------------------------
// Waits: our wrappers of Open MPI's request functions, installed while a tracked
// collective is pending.

ompi_request_fns_t original_functions{};

inline const void* const* as_keys(ompi_request_t* const* requests) {
  return reinterpret_cast<const void* const*>(requests);
}

int tracked_wait(ompi_request_t** request, ompi_status_public_t* status) {
  NbcTracker::Wait wait;
  tracker->wait_begin(as_keys(request), 1, tracker->now(), wait);
  const int rc = original_functions.req_wait(request, status);
  tracker->wait_end(wait, tracker->now(), rc == OMPI_SUCCESS);
  return rc;
}

int tracked_wait_all(size_t count, ompi_request_t** requests, ompi_status_public_t* statuses) {
  NbcTracker::Wait wait;
  tracker->wait_begin(as_keys(requests), count, tracker->now(), wait);
  const int rc = original_functions.req_wait_all(count, requests, statuses);
  tracker->wait_end(wait, tracker->now(), rc == OMPI_SUCCESS);
  return rc;
}

int tracked_wait_any(size_t count, ompi_request_t** requests, int* index, ompi_status_public_t* status) {
  NbcTracker::Wait wait;
  tracker->wait_begin(as_keys(requests), count, tracker->now(), wait);
  const int rc = original_functions.req_wait_any(count, requests, index, status);
  tracker->wait_end(wait, tracker->now());
  return rc;
}

int tracked_wait_some(size_t count, ompi_request_t** requests, int* outcount, int* indices,
                      ompi_status_public_t* statuses) {
  NbcTracker::Wait wait;
  tracker->wait_begin(as_keys(requests), count, tracker->now(), wait);
  const int rc = original_functions.req_wait_some(count, requests, outcount, indices, statuses);
  tracker->wait_end(wait, tracker->now());
  return rc;
}

// The tracker's switch (called under its lock when the first collective becomes pending
// and when the last completes).
void set_wait_wrappers(bool active) {
  ompi_request_fns_t& f = ompi_request_functions;
  __atomic_store_n(&f.req_wait, active ? tracked_wait : original_functions.req_wait, __ATOMIC_RELAXED);
  __atomic_store_n(&f.req_wait_all, active ? tracked_wait_all : original_functions.req_wait_all, __ATOMIC_RELAXED);
  __atomic_store_n(&f.req_wait_any, active ? tracked_wait_any : original_functions.req_wait_any, __ATOMIC_RELAXED);
  __atomic_store_n(&f.req_wait_some, active ? tracked_wait_some : original_functions.req_wait_some, __ATOMIC_RELAXED);
}

// The tag Open MPI's nonblocking modules reserve first on `comm` (the rule of
// ompi_coll_base_nbc_reserve_tags: the next one down, wrapping at the end of the range).
int32_t next_nonblocking_tag(const ompi_communicator_t* comm) {
  const int32_t tag = comm->c_nbc_tag;
  return tag - 1 < MCA_COLL_BASE_TAG_NONBLOCKING_END ? MCA_COLL_BASE_TAG_NONBLOCKING_BASE : tag;
}

// ---------------------------------------------------------------------------------------
// Which calls are followed

NbcSchedule schedule;  // coll_monitoring_nbc_exact_calls, coll_monitoring_nbc_sampling

// The thread's draws of the intervals between followed calls (xorshift64*: a multiply,
// three shifts; seeded from the world rank and the thread's number, so a run's choices
// repeat with the same program).
constinit thread_local uint64_t random_state = 0;
std::atomic<uint64_t> threads_seen{0};

uint64_t next_random() {
  if (random_state == 0) {
    random_state = (static_cast<uint64_t>(Runtime::instance().world_rank() + 1) << 20) +
                   threads_seen.fetch_add(1, std::memory_order_relaxed) + 0x9E3779B97F4A7C15ull;
  }
  random_state ^= random_state >> 12;
  random_state ^= random_state << 25;
  random_state ^= random_state >> 27;
  return random_state * 0x2545F4914F6CDD1Dull;
}

}  // namespace

void set_nbc_schedule(const NbcSchedule& chosen) { schedule = chosen; }

const NbcSchedule& nbc_schedule() { return schedule; }

bool decide_following(uint32_t& exact_left, uint64_t& countdown, CommunicatorClasses* classes, NbcKind kind) {
  const NbcDecision decision = decide(schedule, exact_left, countdown, next_random);
  if (decision.unfollowed_after) tracker->note_unfollowed(classes, kind);
  return decision.follow;
}

void start_nbc(bool threaded) {
  threaded_process = threaded;
  tracker = &Runtime::instance().nbc;
  tracker->set_threaded(threaded);
  original_functions = ompi_request_functions;
  tracker->add_switch(set_wait_wrappers);
}

bool called_by_application(const void* return_address) {
  for (CallSite& site : call_sites) {
    const void* known = site.address.load(std::memory_order_acquire);
    if (known == return_address) return site.application.load(std::memory_order_relaxed);
    if (known == nullptr) break;
  }
  const bool application = classify(return_address);
  std::lock_guard lock(call_sites_mutex);
  for (CallSite& site : call_sites) {
    const void* known = site.address.load(std::memory_order_relaxed);
    if (known == return_address) break;
    if (known != nullptr) continue;
    site.application.store(application, std::memory_order_relaxed);
    site.address.store(return_address, std::memory_order_release);
    break;
  }
  return application;
}

NbcStart begin_nbc(ompi_communicator_t* comm, NbcKind kind, CommunicatorClasses* classes) {
  NbcStart start;
  start.first_tag = next_nonblocking_tag(comm);
  const void* local_comm = OMPI_COMM_IS_INTER(comm) ? comm->c_local_comm : nullptr;
  start.pending = tracker->begin(comm, local_comm, start.first_tag, kind, classes, tracker->now());
  return start;
}

void after_nbc(const NbcStart& start, int rc, ompi_communicator_t* comm, ompi_request_t* request,
               const mpimon_coll_event* end_event, MPI_T_cb_safety context) {
  if (start.pending != nullptr) {
    if (rc != OMPI_SUCCESS) {
      tracker->abandon(start.pending);
      return;
    }
    // The module reserved the tags from first_tag down to the one before c_nbc_tag now.
    tracker->started(start.pending, comm->c_nbc_tag + 1, request == &ompi_request_empty ? nullptr : request);
  }
  if (start.pending == nullptr && end_event == nullptr) return;
  if (request == nullptr || request == &ompi_request_empty) {  // complete already (the shared empty request)
    if (start.pending != nullptr) tracker->completed(start.pending, tracker->now());
    if (end_event != nullptr) raise_end(comm, *end_event, context);
    return;
  }
  CompletionWatch* watch = new_watch();
  *watch = CompletionWatch{kWatchMark,
                           request,
                           start.pending,
                           end_event != nullptr,
                           comm,
                           end_event != nullptr ? *end_event : mpimon_coll_event{},
                           request->req_complete_cb,
                           request->req_complete_cb_data,
                           nullptr};
  ompi_request_set_callback(request, completed, watch);
}

void forget_nbc_destination(const CommunicatorClasses* classes) {
  if (tracker != nullptr) tracker->detach(classes);
}

}  // namespace mpimon::coll
