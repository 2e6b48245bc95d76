// The send wrappers. Hot path: translate the peer to its world rank, pick the category
// from the tag, find the peer's counters in their home slot, three increments, then jump
// to the original PML function with the arguments as received. Whether a tool listens to
// our send events, whether internal traffic is kept apart and whether our private
// communicators must be filtered out are chosen when the wrappers are installed (one
// instantiation per combination), not tested per message. The receive wrappers exist
// for the events only, and are in place only while a tool listens to receive events.
// While a nonblocking collective is followed, the send wrappers are preceded by its
// attribution (analyses/nbc_overlap.h); while an MPI-IO call that may communicate runs,
// by the collective-I/O shuffle's (analyses/mpi_io/file_registry.h).
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
  // The engine's current table (mirrored: CounterTable::mirror_into); in a multi-threaded
  // process an always-empty table's instead, so that every send takes the slow path
  // (atomic increments) without a test of its own.
  std::atomic<CounterTable::TableHandle> table{nullptr};
  const ompi_communicator_t* world = nullptr;  // MPI_COMM_WORLD
  LocalJob job;
  uint32_t internal_category = 0;  // Category::internal when split, else external
  bool split_internal = false;
  bool ob1 = false;  // requests share mca_pml_base_request_t's layout
  mca_pml_base_module_t original{};
  Engine* engine = nullptr;
  ompi_request_start_fn_t original_request_start = nullptr;
  bool warned_persistent = false;
  // Our own private communicators (Runtime::add_private_communicator), once one exists.
  const std::atomic<uint64_t>* private_communicators = nullptr;
};
State state;

using isend_fn = mca_pml_base_module_isend_fn_t;
using send_fn = mca_pml_base_module_send_fn_t;

// Forwarding a send to a function of the same signature (the original PML's, our slow or
// event path) with the arguments the wrapper received, as its last act. The send's last
// two (isend) or one (send) arguments are on the stack, in our caller's frame. GCC's
// sibling call with them reloads and stores them back, and the two registers it keeps
// them in cost two callee-saved registers on the hot path: 8 of a send's instructions.
// Called through the same pointer typed with the six register arguments only, the call is
// a jump (sibling call) that leaves the caller's stack as it was: the callee reads its
// stack arguments where our caller put them. This needs the call to be compiled as a
// jump: GCC makes a sibling call of it whenever it optimises (the callee has no stack
// arguments, we have no frame left); test PmlCodegen.SendWrappersJumpToThePml checks the
// plugin. Without optimisation, under the sanitizers and on other processors: the
// ordinary call.
#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__) && !defined(MPIMON_TSAN) && \
    !defined(__SANITIZE_UNDEFINED__)
#define MPIMON_FORWARD_BY_JUMP 1
#else
#define MPIMON_FORWARD_BY_JUMP 0
#endif
using send_registers_fn = int (*)(const void*, size_t, ompi_datatype_t*, int, int, mca_pml_base_send_mode_t);

template <typename Fn>
[[gnu::always_inline]] inline send_registers_fn registers_only(Fn fn) {
  return reinterpret_cast<send_registers_fn>(reinterpret_cast<void (*)()>(fn));
}

[[gnu::always_inline]] inline int forward_isend(isend_fn fn, const void* buf, size_t count, ompi_datatype_t* datatype,
                                                int dst, int tag, mca_pml_base_send_mode_t mode,
                                                ompi_communicator_t* comm, ompi_request_t** request) {
#if MPIMON_FORWARD_BY_JUMP
  (void)comm, (void)request;
  return registers_only(fn)(buf, count, datatype, dst, tag, mode);
#else
  return fn(buf, count, datatype, dst, tag, mode, comm, request);
#endif
}

[[gnu::always_inline]] inline int forward_send(send_fn fn, const void* buf, size_t count, ompi_datatype_t* datatype,
                                               int dst, int tag, mca_pml_base_send_mode_t mode,
                                               ompi_communicator_t* comm) {
#if MPIMON_FORWARD_BY_JUMP
  (void)comm;
  return registers_only(fn)(buf, count, datatype, dst, tag, mode);
#else
  return fn(buf, count, datatype, dst, tag, mode, comm);
#endif
}

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

// The fast path, inlined into each wrapper: the counters of world rank `peer` (category
// from the tag when `split`: internal traffic kept apart, enable level 2) when its block
// sits in its home slot (single-threaded process: multi-threaded ones see an always-empty
// table); else nullptr and the wrapper jumps to its slow twin.
template <bool split>
[[gnu::always_inline]] inline Counters* home_counters_of(int32_t peer, int tag) {
  const uint32_t key = Engine::key(peer, split ? static_cast<uint32_t>(tag) >> 31 : 0u);
  return CounterTable::home_counters(state.table.load(std::memory_order_relaxed), key);
}

[[gnu::always_inline]] inline void add_message(Counters& c, size_t bytes) {
  single_writer_add(c.messages, 1);
  single_writer_add(c.bytes, bytes);
  single_writer_add(c.histogram[message_bucket(bytes)], 1);
}

[[gnu::noinline]] int isend_slow(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                                 mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  record_send(comm, dst, tag, count * datatype->super.size);
  if (send_events_listened()) [[unlikely]]
    return isend_with_events(buf, count, datatype, dst, tag, mode, comm, request);
  return state.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

[[gnu::noinline]] int send_slow(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                                mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  record_send(comm, dst, tag, count * datatype->super.size);
  if (send_events_listened()) [[unlikely]]
    return send_with_events(buf, count, datatype, dst, tag, mode, comm);
  return state.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
}

// `events`: a tool listens to send events (the send then goes through the event path).
// Records the send to world rank `peer` and forwards it: to the event path when
// `events` (the one for MPI_COMM_WORLD when `world`, whose payload needs no rank
// translation), else to the PML.
template <bool split, bool events, bool world = false>
[[gnu::always_inline]] inline int record_isend(int32_t peer, const void* buf, size_t count, ompi_datatype_t* datatype,
                                               int dst, int tag, mca_pml_base_send_mode_t mode,
                                               ompi_communicator_t* comm, ompi_request_t** request) {
  Counters* counters = home_counters_of<split>(peer, tag);
  if (counters == nullptr) [[unlikely]]
    return forward_isend(isend_slow, buf, count, datatype, dst, tag, mode, comm, request);
  add_message(*counters, count * datatype->super.size);
  if constexpr (events)
    return forward_isend(world ? isend_with_events_on_world : isend_with_events, buf, count, datatype, dst, tag, mode,
                         comm, request);
  else
    return forward_isend(state.original.pml_isend, buf, count, datatype, dst, tag, mode, comm, request);
}

template <bool split, bool events>
[[gnu::always_inline]] inline int record_send_fast(int32_t peer, const void* buf, size_t count,
                                                   ompi_datatype_t* datatype, int dst, int tag,
                                                   mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  Counters* counters = home_counters_of<split>(peer, tag);
  if (counters == nullptr) [[unlikely]]
    return forward_send(send_slow, buf, count, datatype, dst, tag, mode, comm);
  add_message(*counters, count * datatype->super.size);
  if constexpr (events)
    return forward_send(send_with_events, buf, count, datatype, dst, tag, mode, comm);
  else
    return forward_send(state.original.pml_send, buf, count, datatype, dst, tag, mode, comm);
}

// The wrappers: on MPI_COMM_WORLD the rank is the world rank; on another communicator it
// is translated (a peer of another job goes to the slow path). Two copies of the
// recording, so that each keeps its rank in the register it arrived in.
template <bool split, bool events>
int monitored_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                    mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (comm == state.world) [[likely]]
    return record_isend<split, events, true>(dst, buf, count, datatype, dst, tag, mode, comm, request);
  int32_t peer;
  if (!find_world_rank(comm, dst, state.job, peer)) [[unlikely]]
    return forward_isend(isend_slow, buf, count, datatype, dst, tag, mode, comm, request);
  return record_isend<split, events>(peer, buf, count, datatype, dst, tag, mode, comm, request);
}

template <bool split, bool events>
int monitored_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                   mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (comm == state.world) [[likely]]
    return record_send_fast<split, events>(dst, buf, count, datatype, dst, tag, mode, comm);
  int32_t peer;
  if (!find_world_rank(comm, dst, state.job, peer)) [[unlikely]]
    return forward_send(send_slow, buf, count, datatype, dst, tag, mode, comm);
  return record_send_fast<split, events>(peer, buf, count, datatype, dst, tag, mode, comm);
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
  const uint32_t cid = mpimon::ompi_release::local_context_id(comm);
  return cid < Runtime::kPrivateCommunicatorLimit &&
         ((state.private_communicators[cid / 64].load(std::memory_order_relaxed) >> (cid % 64)) & 1) != 0;
}

template <bool split, bool events>
int filtered_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                   mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (on_private_communicator(comm)) [[unlikely]]
    return forward_isend(state.original.pml_isend, buf, count, datatype, dst, tag, mode, comm, request);
  return monitored_isend<split, events>(buf, count, datatype, dst, tag, mode, comm, request);
}

template <bool split, bool events>
int filtered_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                  mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (on_private_communicator(comm)) [[unlikely]]
    return forward_send(state.original.pml_send, buf, count, datatype, dst, tag, mode, comm);
  return monitored_send<split, events>(buf, count, datatype, dst, tag, mode, comm);
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

template <bool split, bool events, bool filter>
int attributing_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                      mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (tag < 0) nbc_tracker->attribute_send(comm, tag, count * datatype->super.size);
  if constexpr (filter) return filtered_isend<split, events>(buf, count, datatype, dst, tag, mode, comm, request);
  return monitored_isend<split, events>(buf, count, datatype, dst, tag, mode, comm, request);
}

template <bool split, bool events, bool filter>
int attributing_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (tag < 0) nbc_tracker->attribute_send(comm, tag, count * datatype->super.size);
  if constexpr (filter) return filtered_send<split, events>(buf, count, datatype, dst, tag, mode, comm);
  return monitored_send<split, events>(buf, count, datatype, dst, tag, mode, comm);
}

// The wrapper for one combination: private communicators filtered out, a nonblocking
// collective followed (attribution first), internal traffic kept apart, a tool listening
// to send events.
template <bool split, bool events>
constexpr isend_fn isend_wrapper(bool filter, bool nbc) {
  if (nbc) return filter ? attributing_isend<split, events, true> : attributing_isend<split, events, false>;
  return filter ? filtered_isend<split, events> : monitored_isend<split, events>;
}
template <bool split, bool events>
constexpr send_fn send_wrapper(bool filter, bool nbc) {
  if (nbc) return filter ? attributing_send<split, events, true> : attributing_send<split, events, false>;
  return filter ? filtered_send<split, events> : monitored_send<split, events>;
}
isend_fn isend_wrapper(bool split, bool events, bool filter, bool nbc) {
  if (split) return events ? isend_wrapper<true, true>(filter, nbc) : isend_wrapper<true, false>(filter, nbc);
  return events ? isend_wrapper<false, true>(filter, nbc) : isend_wrapper<false, false>(filter, nbc);
}
send_fn send_wrapper(bool split, bool events, bool filter, bool nbc) {
  if (split) return events ? send_wrapper<true, true>(filter, nbc) : send_wrapper<true, false>(filter, nbc);
  return events ? send_wrapper<false, true>(filter, nbc) : send_wrapper<false, false>(filter, nbc);
}

// ---------------------------------------------------------------------------------------
// The collective-I/O shuffle. While an MPI-IO call that may communicate runs (the file
// registry's window, and only then: its switch installs these), a send with a tag >= 0 on
// a communicator that belongs to a file is the I/O library's shuffle: recorded as
// io_shuffle (and for its file), never as the application's. Every other send takes the
// path it takes outside the window.

mpi_io::FileRegistry* io_files = nullptr;
isend_fn isend_outside_window = nullptr;
send_fn send_outside_window = nullptr;

inline bool is_shuffle(const ompi_communicator_t* comm, int tag) {
  return tag >= 0 && io_files->is_file_communicator(mpimon::ompi_release::local_context_id(comm));
}

void record_shuffle(const ompi_communicator_t* comm, int dst, size_t bytes) {
  const int32_t peer = world_rank_of(comm, dst, state.job);
  if (peer >= 0) {
    state.engine->record(peer, Category::io_shuffle, bytes);
    io_files->record_shuffle(mpimon::ompi_release::local_context_id(comm), peer, bytes);
  } else {
    state.engine->record_other_job(Category::io_shuffle, bytes);
  }
}

int shuffle_isend(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                  mca_pml_base_send_mode_t mode, ompi_communicator_t* comm, ompi_request_t** request) {
  if (!is_shuffle(comm, tag)) return isend_outside_window(buf, count, datatype, dst, tag, mode, comm, request);
  record_shuffle(comm, dst, count * datatype->super.size);
  if (send_events_listened()) [[unlikely]]
    return isend_with_events(buf, count, datatype, dst, tag, mode, comm, request);
  return state.original.pml_isend(buf, count, datatype, dst, tag, mode, comm, request);
}

int shuffle_send(const void* buf, size_t count, ompi_datatype_t* datatype, int dst, int tag,
                 mca_pml_base_send_mode_t mode, ompi_communicator_t* comm) {
  if (!is_shuffle(comm, tag)) return send_outside_window(buf, count, datatype, dst, tag, mode, comm);
  record_shuffle(comm, dst, count * datatype->super.size);
  if (send_events_listened()) [[unlikely]]
    return send_with_events(buf, count, datatype, dst, tag, mode, comm);
  return state.original.pml_send(buf, count, datatype, dst, tag, mode, comm);
}

}  // namespace

namespace {

std::atomic<bool> recording{false};
std::atomic<bool> attributing{false};   // some nonblocking collective is pending
std::atomic<bool> in_io_window{false};  // some MPI-IO call that may communicate runs

// Our send wrappers while recording (preceded by the attribution while a nonblocking
// collective is pending, and by the shuffle's while MPI-IO communicates; the event path
// while a tool listens to send events), the PML's own otherwise.
void install_send_wrappers() {
  // The switches of the nonblocking collectives and of MPI-IO hold different locks: one
  // installation at a time, from the state both have set.
  static std::mutex installing;
  std::lock_guard lock(installing);
  const bool on = recording.load(std::memory_order_relaxed);
  const bool nbc = on && attributing.load(std::memory_order_relaxed);
  const bool io = on && in_io_window.load(std::memory_order_relaxed);
  const bool filter = state.private_communicators != nullptr;
  const bool events = send_events_listened();
  const isend_fn isend = on ? isend_wrapper(state.split_internal, events, filter, nbc) : state.original.pml_isend;
  const send_fn send = on ? send_wrapper(state.split_internal, events, filter, nbc) : state.original.pml_send;
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

// A tool began or stopped listening to some of our point-to-point events (the events
// library calls this): send and receive wrappers for what is listened to.
void listeners_changed() {
  install_send_wrappers();
  install_receive_wrappers();
}

}  // namespace

void interpose(bool split_internal, bool selected_pml_is_ob1, bool threaded) {
  state.engine = &Runtime::instance().engine;
  static CounterTable always_empty;
  (threaded ? always_empty : state.engine->counters()).mirror_into(&state.table);
  state.split_internal = split_internal;
  state.job = LocalJob::of_this_process();
  state.world = &ompi_mpi_comm_world.comm;
  state.internal_category = static_cast<uint32_t>(split_internal ? Category::internal : Category::external);
  state.ob1 = selected_pml_is_ob1;
  state.original = mca_pml;
  start_events(state.original, selected_pml_is_ob1, threaded, listeners_changed);
  set_recording(true);
  Runtime::instance().add_layer(set_recording);
  Runtime::instance().set_private_filter_switch(filter_private_communicators);
  nbc_tracker = &Runtime::instance().nbc;
  nbc_tracker->add_switch(set_nbc_attribution);
  io_files = &Runtime::instance().files;
  io_files->add_switch(set_io_window);
}

}  // namespace mpimon::pml
