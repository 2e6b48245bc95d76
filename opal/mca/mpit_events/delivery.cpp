// Delivery: raise, the per-source bounded ring, drop counting, drains.
//
// One thread at a time delivers a source's instances (Source::delivering, taken under
// the source's spin lock). A raise that finds the source idle with an empty ring
// delivers its instance directly (no copy); otherwise it copies the instance into the
// ring and, if no one is delivering, becomes the deliverer and empties the ring as far
// as its context allows. Callbacks run with no lock held; the deliverer re-takes the
// lock after each one. Timestamps of an ORDERED source are fixed in ring order under
// the lock, so delivery order is timestamp order whatever the number of raisers.
#include <algorithm>
#include <cstring>

#include "communication_events.h"
#include "events_internal.h"

namespace mpimon::events {

static_assert(sizeof(mpimon_pml_event) <= kMaxPayload, "PML payload exceeds the ring slot");
static_assert(sizeof(mpimon_coll_event) <= kMaxPayload, "COLL payload exceeds the ring slot");
static_assert(sizeof(mpimon_osc_op_event) <= kMaxPayload, "OSC op payload exceeds the ring slot");
static_assert(sizeof(mpimon_osc_sync_event) <= kMaxPayload, "OSC sync payload exceeds the ring slot");

namespace {

// An instance being delivered on this thread; its address is the MPI_T_event_instance.
struct ActiveInstance {
  InstanceView view;
  ActiveInstance* outer;
};

MPIMON_EVENTS_TLS thread_local ActiveInstance* tls_instances = nullptr;
MPIMON_EVENTS_TLS thread_local int tls_depth = 0;
MPIMON_EVENTS_TLS thread_local int tls_context = MPI_T_CB_REQUIRE_NONE;

class CallbackScope {
 public:
  explicit CallbackScope(MPI_T_cb_safety context) : saved_(tls_context) {
    ++tls_depth;
    tls_context = context;
  }
  ~CallbackScope() {
    --tls_depth;
    tls_context = saved_;
  }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

 private:
  int saved_;
};

struct Pending {
  EventType* type;
  const void* object;
  MPI_Count timestamp;
  uint64_t horizon;
  const unsigned char* payload;
};

void count_drop(Registration& reg) {
  if (reg.dropped < kMaxCount) ++reg.dropped;
}

// Registrations of the instance that exist but have no callback usable in `context`.
bool deliverable_now(const EventType& type, const void* object, uint64_t horizon, MPI_T_cb_safety context) {
  if (!type.lax[context]) return true;
  for (const Registration* reg : type.registrations) {
    if (reg->id > horizon) break;
    if (reg->matches(object) && reg->has_callback && reg->choice[context] < 0) return false;
  }
  return true;
}

// Lock held on entry and return; may drop it around `reg`'s user callbacks.
void finish_free(Source& source, Registration* reg, MPI_T_cb_safety context) {
  source.lock.unlock();
  run_free_callback(reg, context);
  source.lock.lock();
}

// Deliver one instance to every matching registration. Source lock held and
// source.delivering owned by this thread, on entry and return.
void deliver_locked(Source& source, const Pending& p, MPI_T_cb_safety context) {
  const std::vector<Registration*>& list = p.type->registrations;
  std::size_t i = 0;
  uint64_t last = 0;
  uint64_t version = p.type->version;
  for (;;) {
    if (p.type->version != version) {
      // The list changed while a callback ran: resume after the last id seen.
      version = p.type->version;
      i = std::upper_bound(list.begin(), list.end(), last,
                           [](uint64_t id, const Registration* reg) { return id < reg->id; }) -
          list.begin();
    }
    if (i >= list.size()) break;
    Registration* reg = list[i++];
    last = reg->id;
    if (reg->id > p.horizon) break;
    if (!reg->matches(p.object)) continue;
    int level = reg->choice[context];
    if (level < 0) {
      if (reg->has_callback) count_drop(*reg);
      continue;
    }
    if (reg->dropped > 0 && reg->dropped_handler != nullptr) {
      const MPI_Count count = reg->dropped;
      reg->dropped = 0;
      MPI_T_event_dropped_cb_function* handler = reg->dropped_handler;
      void* user_data = reg->callbacks[level].user_data;
      source.in_callback = reg;
      source.lock.unlock();
      {
        CallbackScope scope(context);
        handler(count, to_handle(reg), source.index, context, user_data);
      }
      source.lock.lock();
      source.in_callback = nullptr;
      if (reg->free_pending) {
        finish_free(source, reg, context);
        continue;
      }
      level = reg->choice[context];  // another thread may have changed the callbacks
      if (level < 0) {
        if (reg->has_callback) count_drop(*reg);
        continue;
      }
    }
    const Callback cb = reg->callbacks[level];
    source.in_callback = reg;
    source.lock.unlock();
    {
      ActiveInstance instance{{p.type, p.payload, p.timestamp}, tls_instances};
      tls_instances = &instance;
      CallbackScope scope(context);
      cb.function(reinterpret_cast<MPI_T_event_instance>(&instance), to_handle(reg), context, cb.user_data);
      tls_instances = instance.outer;
    }
    source.lock.lock();
    source.in_callback = nullptr;
    if (reg->free_pending) finish_free(source, reg, context);
  }
}

// Copy an instance into the ring, or count it dropped for its listeners if full.
void enqueue_locked(Source& source, EventType& type, const void* object, const void* payload, MPI_Count timestamp,
                    uint64_t horizon) {
  if (source.ring_count == kRingCapacity) {
    for (Registration* reg : type.registrations) {
      if (reg->id > horizon) break;
      if (reg->matches(object) && reg->has_callback) count_drop(*reg);
    }
    return;
  }
  QueuedInstance& slot = source.ring[(source.ring_head + source.ring_count) % kRingCapacity];
  slot.type = &type;
  slot.object = object;
  slot.timestamp = timestamp;
  slot.horizon = horizon;
  if (type.extent > 0) std::memcpy(slot.payload, payload, type.extent);
  ++source.ring_count;
  registry().queued.fetch_add(1, std::memory_order_relaxed);
}

// Deliver ring entries in order while this context can. Lock held and delivering owned
// on entry; both released on return.
void drain_locked(Source& source, MPI_T_cb_safety context) {
  while (source.ring_count > 0) {
    const QueuedInstance& head = source.ring[source.ring_head];
    if (!deliverable_now(*head.type, head.object, head.horizon, context)) break;  // wait for a laxer context
    QueuedInstance local;
    local.type = head.type;
    local.object = head.object;
    local.timestamp = head.timestamp;
    local.horizon = head.horizon;
    std::memcpy(local.payload, head.payload, head.type->extent);
    source.ring_head = (source.ring_head + 1) % kRingCapacity;
    --source.ring_count;
    registry().queued.fetch_sub(1, std::memory_order_relaxed);
    deliver_locked(source, {local.type, local.object, local.timestamp, local.horizon, local.payload}, context);
  }
  source.delivering = false;
  source.lock.unlock();
}

}  // namespace

int callback_depth() { return tls_depth; }

MPI_T_cb_safety current_context() {
  return tls_depth > 0 ? static_cast<MPI_T_cb_safety>(tls_context) : MPI_T_CB_REQUIRE_NONE;
}

const InstanceView* find_instance(MPI_T_event_instance handle) {
  for (ActiveInstance* a = tls_instances; a != nullptr; a = a->outer)
    if (reinterpret_cast<MPI_T_event_instance>(a) == handle) return &a->view;
  return nullptr;
}

void invoke_free_callback(MPI_T_event_free_cb_function* cb, MPI_T_event_registration reg, void* user_data,
                          MPI_T_cb_safety context) {
  CallbackScope scope(context);
  cb(reg, context, user_data);
}

}  // namespace mpimon::events

using namespace mpimon::events;

extern "C" {

void mpimon_events_raise(int event_index, const void* object, const void* payload, MPI_Count timestamp,
                         MPI_T_cb_safety context) {
  EventType* type = type_at(event_index);
  if (type == nullptr || static_cast<unsigned>(context) >= kLevels) return;
  Source& source = *type->source;
  source.lock.lock();
  if (source.ordering == MPI_T_SOURCE_ORDERED) {
    if (timestamp < source.last_timestamp)
      timestamp = source.last_timestamp;
    else
      source.last_timestamp = timestamp;
  }
  if (source.delivering || source.ring_count > 0 || !deliverable_now(*type, object, UINT64_MAX, context)) {
    // Registrations made from now on do not receive it.
    const uint64_t horizon = registry().next_registration_id.load(std::memory_order_relaxed) - 1;
    enqueue_locked(source, *type, object, payload, timestamp, horizon);
    if (source.delivering) {  // the deliverer (maybe this thread, in a callback) will take it
      source.lock.unlock();
      return;
    }
    source.delivering = true;
    drain_locked(source, context);
    return;
  }
  source.delivering = true;
  deliver_locked(source, {type, object, timestamp, UINT64_MAX, static_cast<const unsigned char*>(payload)}, context);
  if (__builtin_expect(source.ring_count > 0, 0)) {
    drain_locked(source, context);  // queued by others meanwhile
    return;
  }
  source.delivering = false;
  source.lock.unlock();
}

void mpimon_events_drain(MPI_T_cb_safety context) {
  if (tls_depth > 0 || static_cast<unsigned>(context) >= kLevels) return;
  Registry& r = registry();
  if (r.queued.load(std::memory_order_relaxed) == 0) return;
  const int n = r.num_sources.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    Source& source = *source_at(i);
    source.lock.lock();
    if (source.delivering || source.ring_count == 0) {
      source.lock.unlock();
      continue;
    }
    source.delivering = true;
    drain_locked(source, context);
  }
}

}  // extern "C"
