// The send wrappers. Hot path: test whether a tool listens to our MPI_T events (one
// byte-word of this plugin's data), translate the peer to its world rank, pick the
// category from the tag, record, then call the original PML function (a tail call).
// The receive wrappers exist for the events only, and are in place only while a tool
// listens to receive events. While a nonblocking collective is pending, the send
// wrappers are preceded by its attribution (analyses/nbc_overlap.h); while an MPI-IO call
// that may communicate runs, by the collective-I/O shuffle's (analyses/mpi_io/file_registry.h).
#include "pml_monitoring.h"
#include "pml_monitoring_events.h"

#include <atomic>
#include <mutex>

#include <ompi/mca/pml/base/base.h>
#include <ompi/mca/pml/base/pml_base_request.h>

#include "analyses/mpi_io/file_registry.h"
#include "analyses/nbc_overlap.h"
#include "engine/engine.h"
#include "runtime/runtime.h"
#include "runtime/world_rank_ompi.h"

namespace mpimon::pml {
namespace {

// Everything the hot path reads, in one hidden object (one RIP-relative base).
struct State {
  // The engine's table; in a multi-threaded process an always-empty table instead, so
  // that every send takes the slow path (atomic increments) without a test of its own.
  const CounterTable* counters = nullptr;
  const ompi_communicator_t* world = nullptr;  // MPI_COMM_WORLD
  LocalJob job;
  uint32_t internal_category = 0;  // Category::internal when split, else external
  bool ob1 = false;                // requests share mca_pml_base_request_t's layout
  mca_pml_base_module_t original{};
  Engine* engine = nullptr;
  ompi_request_start_fn_t original_request_start = nullptr;
  bool warned_persistent = false;
  // Our own private communicators (Runtime::add_private_communicator), once one exists.
  const std::atomic<uint64_t>* private_communicators = nullptr;
};
State state;

// Negative tags are internal traffic (when kept apart); tag >> 31 is all ones for them.
inline Category category_of(int tag) {
  return static_cast<Category>(static_cast<uint32_t>(tag >> 31) & state.internal_category);
}

// Any case (threads, other jobs, a block not in its home slot): through the engine.
void record_send(const ompi_communicator_t* comm, int dst, int tag, size_t bytes) {
  const int32_t peer = world_rank_of(comm, dst, state.job);
  if (peer >= 0) {
    state.engine->record(peer, category_of(tag), bytes);
  } else {
    state.engine->record_other_job(category_of(tag), bytes);
  }
}

// The fast path, inlined into each wrapper: the slot of a peer of our job whose block
// sits in its home slot (single-threaded process); else nullptr and the wrapper
// tail-calls its slow twin.
inline const CounterTable::Slot* fast_slot(const ompi_communicator_t* comm, int dst, int tag) {
  int32_t peer = dst;  // on MPI_COMM_WORLD itself the rank is the world rank
  if (comm != state.world && !find_world_rank(comm, dst, state.job, peer)) [[unlikely]]
    return nullptr;
  // Engine::key(peer, category_of(tag)), in 32-bit arithmetic.
  const uint32_t key =
      ((static_cast<uint32_t>(peer) + 1) << 3) | (static_cast<uint32_t>(tag >> 31) & state.internal_category);
  const CounterTable::Slot& slot = state.counters->home_slot(key);
  // A plain read: only single-threaded processes take this path (multi-threaded ones see
  // an always-empty table), so no other thread can be publishing this slot.
  if (*reinterpret_cast<const uint32_t*>(&slot.key) != key) [[unlikely]]
    return nullptr;
  return &slot;
}

inline void add_message(Counters& c, size_t bytes) {
  single_writer_add(c.messages, 1);
  single_writer_add(c.bytes, bytes);
  single_writer_add(c.histogram[message_bucket(bytes)], 1);
}

[[gnu::noinline]] int isend_slow(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                                 mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  record_send(comm, dst, tag, count * datatype->super.size);
  if (events_listened()) [[unlikely]]
    return isend_with_events(buf, count, datatype, dst, tag, mode, comm, request);
  return state.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

int monitored_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                    mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  const CounterTable::Slot* slot = fast_slot(comm, dst, tag);
  if (slot == nullptr) [[unlikely]]
    return isend_slow(buf, count, datatype, dst, tag, mode, comm, request);
  add_message(*slot->counters, count * datatype->super.size);
  // Last, where the arguments are live anyway for the tail call: one compare, one branch.
  if (events_listened()) [[unlikely]]
    return isend_with_events(buf, count, datatype, dst, tag, mode, comm, request);
  return state.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

[[gnu::noinline]] int send_slow(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                                mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  record_send(comm, dst, tag, count * datatype->super.size);
  if (events_listened()) [[unlikely]]
    return send_with_events(buf, count, datatype, dst, tag, mode, comm);
  return state.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
}

int monitored_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                   mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  const CounterTable::Slot* slot = fast_slot(comm, dst, tag);
  if (slot == nullptr) [[unlikely]]
    return send_slow(buf, count, datatype, dst, tag, mode, comm);
  add_message(*slot->counters, count * datatype->super.size);
  if (events_listened()) [[unlikely]]
    return send_with_events(buf, count, datatype, dst, tag, mode, comm);
  return state.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
}

int monitored_irecv(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag, ompi_communicator_t* comm,
                    ompi_request_t** request) {
  if (events_listened()) [[unlikely]]
    return irecv_with_events(buf, count, datatype, src, tag, comm, request);
  return state.original.pml_irecv(buf, count, datatype, src, tag, comm, request);
}

int monitored_recv(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag, ompi_communicator_t* comm,
                   ompi_status_public_t* status) {
  if (events_listened()) [[unlikely]]
    return recv_with_events(buf, count, datatype, src, tag, comm, status);
  return state.original.pml_recv(buf, count, datatype, src, tag, comm, status);
}

int monitored_imrecv(void* buf, size_t count, ompi_datatype_t* datatype, ompi_message_t** message,
                     ompi_request_t** request) {
  if (events_listened()) [[unlikely]]
    return imrecv_with_events(buf, count, datatype, message, request);
  return state.original.pml_imrecv(buf, count, datatype, message, request);
}

int monitored_mrecv(void* buf, size_t count, ompi_datatype_t* datatype, ompi_message_t** message,
                    ompi_status_public_t* status) {
  if (events_listened()) [[unlikely]]
    return mrecv_with_events(buf, count, datatype, message, status);
  return state.original.pml_mrecv(buf, count, datatype, message, status);
}

// ---------------------------------------------------------------------------------------
// Persistent sends. MPI_Start/MPI_Startall call request->req_start, not the module's
// start, so each request our isend_init returns gets our start function. ob1 may replace
// a still-active request object at restart: ours is re-installed after every start.
// Fields of a request are only read when the selected PML is ob1 (base request layout).

bool is_ob1(const ompi_request_t* request, mca_pml_base_request_type_t type) {
  return request != nullptr && request->req_type == OMPI_REQUEST_PML &&
         reinterpret_cast<const mca_pml_base_request_t*>(request)->req_type == type;
}
bool is_ob1_send(const ompi_request_t* request) { return is_ob1(request, MCA_PML_REQUEST_SEND); }
bool is_ob1_recv(const ompi_request_t* request) { return is_ob1(request, MCA_PML_REQUEST_RECV); }

void record_persistent_send(const ompi_request_t* request) {
  const auto* base = reinterpret_cast<const mca_pml_base_request_t*>(request);
  record_send(base->req_comm, base->req_peer, base->req_tag, base->req_count * base->req_datatype->super.size);
}

int monitored_request_start(size_t count, ompi_request_t** requests);

void started_with_events(size_t count, ompi_request_t** requests) {
  for (size_t i = 0; i < count; ++i) {
    if (is_ob1_send(requests[i]))
      persistent_send_started(requests[i]);
    else if (is_ob1_recv(requests[i]))
      persistent_recv_started(requests[i]);
  }
}

// Persistent receives get our start function too, when they were created while a tool
// listened to receive events (see monitored_irecv_init).
void rewrap(size_t count, ompi_request_t** requests) {
  for (size_t i = 0; i < count; ++i) {
    if ((is_ob1_send(requests[i]) || is_ob1_recv(requests[i])) &&
        requests[i]->req_start == state.original_request_start)
      requests[i]->req_start = monitored_request_start;
  }
}

int monitored_request_start(size_t count, ompi_request_t** requests) {
  for (size_t i = 0; i < count; ++i) {
    if (is_ob1_send(requests[i])) record_persistent_send(requests[i]);
  }
  const int rc = state.original_request_start(count, requests);
  rewrap(count, requests);
  if (rc == OMPI_SUCCESS && events_listened()) [[unlikely]]
    started_with_events(count, requests);
  return rc;
}

int monitored_isend_init(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                         mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  const int rc = state.original.pml_isend_init(buf, count, datatype, dst, tag, mode, comm, request);
  if (rc != OMPI_SUCCESS) return rc;
  ompi_request_t* r = *request;
  if (!state.ob1) {
    if (!state.warned_persistent) {
      state.warned_persistent = true;
      warn("persistent sends (MPI_Send_init + MPI_Start) are counted only with pml ob1; this job uses pml " +
           std::string(mca_pml_base_selected_component.pmlm_version.mca_component_name));
    }
    return rc;
  }
  if (state.original_request_start == nullptr) state.original_request_start = r->req_start;
  if (r->req_start == state.original_request_start) r->req_start = monitored_request_start;
  return rc;
}

// Persistent receives created while a tool listens to receive events get our start
// function (ob1), which raises their events at each start.
int monitored_irecv_init(void* buf, size_t count, ompi_datatype_t* datatype, int src, int tag,
                         ompi_communicator_t* comm, ompi_request_t** request) {
  const int rc = state.original.pml_irecv_init(buf, count, datatype, src, tag, comm, request);
  if (rc != OMPI_SUCCESS || !state.ob1) return rc;
  ompi_request_t* r = *request;
  if (state.original_request_start == nullptr) state.original_request_start = r->req_start;
  if (r->req_start == state.original_request_start) r->req_start = monitored_request_start;
  return rc;
}

// The module's start: used by some collective algorithms on requests they created with
// isend_init (through us, so already wrapped; this path bypasses req_start).
int monitored_start(size_t count, ompi_request_t** requests) {
  if (state.ob1) {
    for (size_t i = 0; i < count; ++i) {
      if (is_ob1_send(requests[i])) record_persistent_send(requests[i]);
    }
  }
  const int rc = state.original.pml_start(count, requests);
  if (state.ob1) rewrap(count, requests);
  if (state.ob1 && rc == OMPI_SUCCESS && events_listened()) [[unlikely]]
    started_with_events(count, requests);
  return rc;
}

// ---------------------------------------------------------------------------------------
// Our own traffic on private communicators (the OSC wait states' exchange, which osc
// pt2pt turns into point-to-point messages, possibly sent from the progress engine
// during any call) is never recorded. These wrappers replace the plain ones only once
// such a communicator exists (osc_monitoring_wait_states 1): other jobs keep the plain
// hot path.

inline bool on_private_communicator(const ompi_communicator_t* comm) {
  const uint32_t cid = comm->c_contextid;
  return cid < Runtime::kPrivateCommunicatorLimit &&
         ((state.private_communicators[cid / 64].load(std::memory_order_relaxed) >> (cid % 64)) & 1) != 0;
}

int filtered_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                   mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (on_private_communicator(comm)) [[unlikely]]
    return state.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
  return monitored_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

int filtered_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                  mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (on_private_communicator(comm)) [[unlikely]]
    return state.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
  return monitored_send(buf, count, datatype, dst, tag, mode, comm);
}

int filtered_isend_init(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                        mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (on_private_communicator(comm)) [[unlikely]]
    return state.original.pml_isend_init(buf, count, datatype, dst, tag, mode, comm, request);
  return monitored_isend_init(buf, count, datatype, dst, tag, mode, comm, request);
}

int filtered_start(size_t count, ompi_request_t** requests) {
  for (size_t i = 0; i < count; ++i) {
    if (state.ob1 && is_ob1_send(requests[i]) &&
        on_private_communicator(reinterpret_cast<const mca_pml_base_request_t*>(requests[i])->req_comm))
      return state.original.pml_start(count, requests);  // collectives start requests of one communicator
  }
  return monitored_start(count, requests);
}

// ---------------------------------------------------------------------------------------
// Nonblocking collectives. While at least one is pending (and only then: the tracker's
// switch installs these), sends with negative tags are offered to the tracker, which
// attributes those of a pending collective to it, then the send takes its usual path
// (filtered or plain).

NbcTracker* nbc_tracker = nullptr;

int attributing_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                      mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (tag < 0) nbc_tracker->attribute_send(comm, tag, count * datatype->super.size);
  if (state.private_communicators != nullptr)
    return filtered_isend(buf, count, datatype, dst, tag, mode, comm, request);
  return monitored_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

int attributing_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (tag < 0) nbc_tracker->attribute_send(comm, tag, count * datatype->super.size);
  if (state.private_communicators != nullptr) return filtered_send(buf, count, datatype, dst, tag, mode, comm);
  return monitored_send(buf, count, datatype, dst, tag, mode, comm);
}

// ---------------------------------------------------------------------------------------
// The collective-I/O shuffle. While an MPI-IO call that may communicate runs (the file
// registry's window, and only then: its switch installs these), a send with a tag >= 0 on
// a communicator that belongs to a file is the I/O library's shuffle: recorded as
// io_shuffle (and for its file), never as the application's. Every other send takes the
// path it takes outside the window.

mpi_io::FileRegistry* io_files = nullptr;
using IsendFn = decltype(mca_pml_base_module_t::pml_isend);
using SendFn = decltype(mca_pml_base_module_t::pml_send);
IsendFn isend_outside_window = nullptr;
SendFn send_outside_window = nullptr;

inline bool is_shuffle(const ompi_communicator_t* comm, int tag) {
  return tag >= 0 && io_files->is_file_communicator(comm->c_contextid);
}

void record_shuffle(const ompi_communicator_t* comm, int dst, size_t bytes) {
  const int32_t peer = world_rank_of(comm, dst, state.job);
  if (peer >= 0) {
    state.engine->record(peer, Category::io_shuffle, bytes);
    io_files->record_shuffle(comm->c_contextid, peer, bytes);
  } else {
    state.engine->record_other_job(Category::io_shuffle, bytes);
  }
}

int shuffle_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                  mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (!is_shuffle(comm, tag)) return isend_outside_window(buf, count, datatype, dst, tag, mode, comm, request);
  record_shuffle(comm, dst, count * datatype->super.size);
  if (events_listened()) [[unlikely]]
    return isend_with_events(buf, count, datatype, dst, tag, mode, comm, request);
  return state.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

int shuffle_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                 mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (!is_shuffle(comm, tag)) return send_outside_window(buf, count, datatype, dst, tag, mode, comm);
  record_shuffle(comm, dst, count * datatype->super.size);
  if (events_listened()) [[unlikely]]
    return send_with_events(buf, count, datatype, dst, tag, mode, comm);
  return state.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
}

}  // namespace

namespace {

std::atomic<bool> recording{false};
std::atomic<bool> attributing{false};   // some nonblocking collective is pending
std::atomic<bool> in_io_window{false};  // some MPI-IO call that may communicate runs

// Our send wrappers while recording (preceded by the attribution while a nonblocking
// collective is pending, and by the shuffle's while MPI-IO communicates), the PML's own
// otherwise.
void install_send_wrappers() {
  // The switches of the nonblocking collectives and of MPI-IO hold different locks: one
  // installation at a time, from the state both have set.
  static std::mutex installing;
  std::lock_guard lock(installing);
  const bool on = recording.load(std::memory_order_relaxed);
  const bool nbc = on && attributing.load(std::memory_order_relaxed);
  const bool io = on && in_io_window.load(std::memory_order_relaxed);
  const bool filter = state.private_communicators != nullptr;
  const IsendFn isend = !on      ? state.original.pml_isend
                        : nbc    ? attributing_isend
                        : filter ? filtered_isend
                                 : monitored_isend;
  const SendFn send = !on ? state.original.pml_send : nbc ? attributing_send : filter ? filtered_send : monitored_send;
  __atomic_store_n(&isend_outside_window, isend, __ATOMIC_RELAXED);
  __atomic_store_n(&send_outside_window, send, __ATOMIC_RELAXED);
  __atomic_store_n(&mca_pml.pml_isend, io ? shuffle_isend : isend, __ATOMIC_RELAXED);
  __atomic_store_n(&mca_pml.pml_send, io ? shuffle_send : send, __ATOMIC_RELAXED);
}

// The file registry's switch: the first MPI-IO call that may communicate began, or the
// last ended.
void set_io_window(bool active) {
  in_io_window.store(active, std::memory_order_relaxed);
  install_send_wrappers();
}

// The tracker's switch: the first collective became pending, or the last completed.
void set_nbc_attribution(bool active) {
  attributing.store(active, std::memory_order_relaxed);
  install_send_wrappers();
}

// The receive wrappers exist only for the MPI_T receive events: in place while recording
// and a tool listens, else receives go straight to the PML. (Called by the events library
// when listeners come and go, and by set_recording.)
void install_receive_wrappers() {
  // (Every PML we run on provides these entry points; a NULL one would stay NULL.)
  const bool wrap = recording.load(std::memory_order_relaxed) && receive_events_listened() &&
                    state.original.pml_irecv_init != nullptr && state.original.pml_imrecv != nullptr &&
                    state.original.pml_mrecv != nullptr;
  __atomic_store_n(&mca_pml.pml_irecv, wrap ? monitored_irecv : state.original.pml_irecv, __ATOMIC_RELAXED);
  __atomic_store_n(&mca_pml.pml_recv, wrap ? monitored_recv : state.original.pml_recv, __ATOMIC_RELAXED);
  __atomic_store_n(&mca_pml.pml_irecv_init, wrap ? monitored_irecv_init : state.original.pml_irecv_init,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&mca_pml.pml_imrecv, wrap ? monitored_imrecv : state.original.pml_imrecv, __ATOMIC_RELAXED);
  __atomic_store_n(&mca_pml.pml_mrecv, wrap ? monitored_mrecv : state.original.pml_mrecv, __ATOMIC_RELAXED);
}

}  // namespace

void set_recording(bool on) {
  recording.store(on, std::memory_order_relaxed);
  install_send_wrappers();
  const bool filter = state.private_communicators != nullptr;
  mca_pml.pml_isend_init = !on ? state.original.pml_isend_init : filter ? filtered_isend_init : monitored_isend_init;
  mca_pml.pml_start = !on ? state.original.pml_start : filter ? filtered_start : monitored_start;
  install_receive_wrappers();
}

namespace {

// The first private communicator appeared: from now on, the filtering send wrappers.
void filter_private_communicators() {
  state.private_communicators = Runtime::instance().private_communicators();
  set_recording(recording.load(std::memory_order_relaxed));
}

}  // namespace

void interpose(bool split_internal, bool selected_pml_is_ob1, bool threaded) {
  state.engine = &Runtime::instance().engine;
  static const CounterTable always_empty;
  state.counters = threaded ? &always_empty : &state.engine->counters();
  state.job = LocalJob::of_this_process();
  state.world = &ompi_mpi_comm_world.comm;
  state.internal_category = static_cast<uint32_t>(split_internal ? Category::internal : Category::external);
  state.ob1 = selected_pml_is_ob1;
  state.original = mca_pml;
  start_events(state.original, selected_pml_is_ob1, threaded, install_receive_wrappers);
  set_recording(true);
  Runtime::instance().add_layer(set_recording);
  Runtime::instance().set_private_filter_switch(filter_private_communicators);
  nbc_tracker = &Runtime::instance().nbc;
  nbc_tracker->add_switch(set_nbc_attribution);
  io_files = &Runtime::instance().files;
  io_files->add_switch(set_io_window);
}

}  // namespace mpimon::pml
