#include "split_tree_engine.h"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <chrono>

#include <ompi/mca/coll/base/coll_tags.h>
#include <ompi/mca/pml/pml.h>
#include <opal/runtime/opal_progress.h>

namespace mpimon::splittree {

namespace {
// Set on the progress thread: the application-side callback does nothing there.
thread_local bool on_progress_thread = false;
}  // namespace

// ---------------------------------------------------------------------------------------
// One collective

Collective::~Collective() {
  for (ompi_request_t*& r : requests_)
    if (r != nullptr) ompi_request_free(&r);
  for (opal_object_t* o : held_) OBJ_RELEASE(o);
}

char* Collective::scratch(size_t bytes) {
  scratch_.push_back(std::make_unique<char[]>(std::max<size_t>(bytes, 1)));
  return scratch_.back().get();
}

void Collective::hold(opal_object_t* object) {
  OBJ_RETAIN(object);
  held_.push_back(object);
}

bool Collective::has_thread_steps() const {
  return std::any_of(steps_.begin() + next_, steps_.end(), [](const Step& s) { return s.side == Side::thread; });
}

bool Collective::post(Step& step) {
  requests_.assign(step.transfers.size(), nullptr);
  for (size_t i = 0; i < step.transfers.size(); ++i) {
    const Transfer& t = step.transfers[i];
    const int rc = t.send ? mca_pml.pml_isend(t.buffer, t.count, t.type, t.peer, tag_, MCA_PML_BASE_SEND_STANDARD,
                                              comm_, &requests_[i])
                          : mca_pml.pml_irecv(t.buffer, t.count, t.type, t.peer, tag_, comm_, &requests_[i]);
    if (rc != OMPI_SUCCESS) {
      requests_[i] = nullptr;
      error_ = rc;
      return false;
    }
  }
  return true;
}

bool Collective::advance(Side side) {
  bool progressed = false;
  while (!finished()) {
    Step& step = steps_[next_];
    if (in_flight_) {
      for (ompi_request_t*& r : requests_) {
        if (r == nullptr) continue;
        if (!REQUEST_COMPLETE(r)) return progressed;
        if (r->req_status.MPI_ERROR != OMPI_SUCCESS && error_ == OMPI_SUCCESS) error_ = r->req_status.MPI_ERROR;
        ompi_request_free(&r);
        r = nullptr;
      }
      in_flight_ = false;
      if (step.then && error_ == OMPI_SUCCESS) step.then();
      ++next_;
      progressed = true;
      continue;
    }
    if (step.side != side) return progressed;
    if (error_ != OMPI_SUCCESS) {  // a failed step ends the collective (its error goes to the request)
      next_ = steps_.size();
      return true;
    }
    in_flight_ = true;  // also when posting failed: the posted ones complete, then the error ends it
    progressed = true;
    post(step);
  }
  return progressed;
}

// ---------------------------------------------------------------------------------------
// The engine

Engine& Engine::instance() {
  static Engine* engine = new Engine();  // never destroyed: a joinable thread must not be
  return *engine;
}

int reserve_tag(ompi_communicator_t* comm) {
  int32_t old_tag = comm->c_nbc_tag;
  for (;;) {
    int32_t tag = old_tag - 1 < MCA_COLL_BASE_TAG_NONBLOCKING_END ? MCA_COLL_BASE_TAG_NONBLOCKING_BASE : old_tag;
    if (__atomic_compare_exchange_n(&comm->c_nbc_tag, &old_tag, tag - 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return tag;
  }
}

ompi_request_t* Engine::start(std::unique_ptr<Collective> owned, ompi_communicator_t* comm) {
  Collective* c = owned.release();
  auto* request = static_cast<SplitRequest*>(calloc(1, sizeof(SplitRequest)));
  OBJ_CONSTRUCT(&request->super, ompi_request_t);
  OMPI_REQUEST_INIT(&request->super, false);
  request->super.req_type = OMPI_REQUEST_COLL;
  request->super.req_state = OMPI_REQUEST_ACTIVE;
  request->super.req_status.MPI_ERROR = OMPI_SUCCESS;
  request->super.req_free = free_request;
  request->super.req_mpi_object.comm = comm;
  request->collective = c;
  c->request = request;

  std::lock_guard lock(mutex_);
  if (!callback_registered_) {
    opal_progress_register(progress_callback);
    callback_registered_ = true;
  }
  c->advance(Side::application);  // what the application side can post now, inside the call
  if (c->finished()) {
    complete(c);
    return &request->super;
  }
  running_.push_back(c);
  running_count_.store(static_cast<int>(running_.size()), std::memory_order_relaxed);
  if (c->has_thread_steps()) {
    if (!thread_started_) {
      thread_started_ = true;
      thread_ = std::thread([this] { run_thread(); });
    }
    wake_.notify_one();
  }
  return &request->super;
}

void Engine::complete(Collective* c) {
  SplitRequest* request = c->request;
  request->super.req_status.MPI_ERROR = c->error();
  const bool freed = c->user_freed;
  ompi_request_complete(&request->super, true);
  if (freed) {  // MPI_Request_free'd while running: nobody will wait for it
    delete c;
    OBJ_DESTRUCT(&request->super);
    free(request);
  }
}

int Engine::free_request(ompi_request_t** r) {
  auto* request = reinterpret_cast<SplitRequest*>(*r);
  Engine& engine = instance();
  {
    std::lock_guard lock(engine.mutex_);
    Collective* c = request->collective;
    if (!REQUEST_COMPLETE(&request->super)) {
      c->user_freed = true;  // complete() frees it
      *r = MPI_REQUEST_NULL;
      return OMPI_SUCCESS;
    }
    delete c;
  }
  OBJ_DESTRUCT(&request->super);
  free(request);
  *r = MPI_REQUEST_NULL;
  return OMPI_SUCCESS;
}

int Engine::progress_callback() { return instance().progress_application(); }

int Engine::progress_application() {
  if (on_progress_thread || running_count_.load(std::memory_order_relaxed) == 0) return 0;
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return 0;  // the thread's pass, or re-entered from a PML call
  int events = 0;
  bool thread_work = false;
  std::vector<Collective*> still;
  for (Collective* c : running_) {
    if (!c->finished() && c->turn() == Side::application) events += c->advance(Side::application);
    if (c->finished()) {
      complete(c);
      ++events;
    } else {
      thread_work = thread_work || c->turn() == Side::thread;
      still.push_back(c);
    }
  }
  running_.swap(still);
  running_count_.store(static_cast<int>(running_.size()), std::memory_order_relaxed);
  if (thread_work) wake_.notify_one();
  return events;
}

namespace {

// Binds the calling thread to `cpuset_list` (hwloc list syntax, PU indices).
void bind_this_thread(const std::string& cpuset_list) {
  if (cpuset_list.empty()) return;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return;
  if (hwloc_topology_load(topology) == 0) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (hwloc_bitmap_list_sscanf(set, cpuset_list.c_str()) == 0) hwloc_set_cpubind(topology, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
  }
  hwloc_topology_destroy(topology);
}

}  // namespace

void Engine::run_thread() {
  on_progress_thread = true;
  bind_this_thread(binding_);
  // Idle, the thread keeps polling a little before it sleeps: collectives often follow
  // each other, and a sleeping thread first has to be woken and scheduled.
  constexpr auto kLinger = std::chrono::milliseconds(1);
  auto idle_since = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    bool work = false, progressed = false;
    for (Collective* c : running_) {
      if (c->finished() || c->turn() != Side::thread) continue;
      work = true;
      progressed = c->advance(Side::thread) || progressed;
    }
    if (!work) {
      if (std::chrono::steady_clock::now() - idle_since < kLinger) {
        lock.unlock();
        sched_yield();
        lock.lock();
      } else {
        wake_.wait(lock);
      }
      continue;
    }
    idle_since = std::chrono::steady_clock::now();
    lock.unlock();
    opal_progress();  // our transfers (and anything else pending) move on this core
    if (!progressed) sched_yield();
    lock.lock();
  }
}

void Engine::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  if (callback_registered_) opal_progress_unregister(progress_callback);
  callback_registered_ = false;
}

}  // namespace mpimon::splittree
