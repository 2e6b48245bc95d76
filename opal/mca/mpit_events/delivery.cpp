// Delivery: raise, the per-source bounded ring, the per-registration backlogs, drop
// counting, drains.
//
// One thread at a time delivers a source's instances: the holder of the source's
// delivery token (Source::state & kDelivering). Callbacks run with no lock held.
//
// Direct path (the common case, mpimon_events_raise): the source's state is exactly 0
// (nobody delivering, nothing queued or retired, no drop to report) — one CAS takes the
// token; the type's snapshot has a callback usable in this context for every entry — the
// instance is then delivered at once, reading only the immutable snapshot; one CAS gives
// the token back. No lock, no copy. A snapshot that changes under a callback (the
// callback freed a registration, or another thread changed callbacks) sends the rest of
// the delivery to the slow path, which resumes after the last registration served.
// Its shortest case is the one that matters for cost: a single registration
// (Snapshot::single), bound to the raised object, stamped now with the TSC. It is inline
// (raise_inline.h: mpimon_events_raise and the hottest producer sites); everything else
// on the direct path goes through raise_held.
//
// Slow path (everything else), under the source's spin lock: a raise that cannot have
// the token (another thread, or this one in a callback, delivers) copies its instance
// into the ring and leaves it to the holder. The holder decides instances in the
// source's order (the ring's first): each matching registration receives the instance at
// once if one of its callbacks accepts the holder's context and nothing older waits for
// it, else the instance waits in that registration's own backlog (bounded; a full backlog
// drops for its registration only) until a context one of its callbacks accepts — a
// later raise in such a context, or a drain. Backlogs are delivered oldest first, merged
// across registrations by their place in the source's order. While any backlog holds
// instances, kWork stays set, so that no raise takes the direct path past them. The
// holder looks at the ring, the backlogs, retired objects and drop reports before
// releasing the token: every change of state other than the direct path's two CASes is
// made under the lock, and a holder's release fails (and goes through the lock) when
// state is not exactly kDelivering.
//
// Timestamps: an ORDERED source's timestamps are clamped by the token holder in the
// source's order (when an instance is decided, also for the backlogs), so that each
// registration's never decrease whatever the number of raisers.
// MPIMON_EVENTS_NOW is stamped once the token is taken (or when the instance is queued).
#include <algorithm>
#include <cstring>

#include "communication_events.h"
#include "events_internal.h"
#include "raise_inline.h"

namespace mpimon::events {

static_assert(sizeof(mpimon_pml_event) <= kMaxPayload, "PML payload exceeds the ring slot");
static_assert(sizeof(mpimon_coll_event) <= kMaxPayload, "COLL payload exceeds the ring slot");
static_assert(sizeof(mpimon_osc_op_event) <= kMaxPayload, "OSC op payload exceeds the ring slot");
static_assert(sizeof(mpimon_osc_sync_event) <= kMaxPayload, "OSC sync payload exceeds the ring slot");

constinit MPIMON_EVENTS_TLS thread_local Frame* tls_frame = nullptr;
const char every_object = 0;

namespace {

// Pushes a frame: the thread is inside a user callback running at `context`.
class FrameScope {
 public:
  FrameScope(const InstanceView& view, MPI_T_cb_safety context) : frame_{view, tls_frame, context} {
    tls_frame = &frame_;
  }
  ~FrameScope() { tls_frame = frame_.outer; }
  FrameScope(const FrameScope&) = delete;
  FrameScope& operator=(const FrameScope&) = delete;
  MPI_T_event_instance handle() { return reinterpret_cast<MPI_T_event_instance>(&frame_); }

 private:
  Frame frame_;
};

struct Pending {
  EventType* type;
  const void* object;  // masked with the type's object_mask
  MPI_Count timestamp;
  uint64_t horizon;
  const unsigned char* payload;
};

MPI_Count stamp(MPI_Count timestamp) { return timestamp == MPIMON_EVENTS_NOW ? clock_read() : timestamp; }

// ORDERED: never below the last delivered timestamp. Token held.
MPI_Count clamp(Source& source, MPI_Count timestamp) {
  return source.ordered ? ordered_timestamp(source, timestamp) : timestamp;
}

// Lock held.
void count_drop(Source& source, Registration& reg) {
  if (reg.dropped < kMaxCount) ++reg.dropped;
  update_drop_report(source, reg);
}

// Takes the token if nobody holds it. Lock held.
bool take_token_locked(Source& source) {
  uint32_t s = source.state.load();
  while ((s & kDelivering) == 0)
    if (source.state.compare_exchange_weak(s, s | kDelivering)) return true;
  return false;
}

// The first entry of the context's list with an id above `id`.
const Delivery* after(const Snapshot& snap, MPI_T_cb_safety context, uint64_t id) {
  const Delivery* list = snap.list[context];
  return std::upper_bound(list, list + snap.count, id, [](uint64_t v, const Delivery& e) { return v < e.reg->id; });
}

// Registration `id`'s entry in the context's list, or nullptr (freed, no callback left).
const Delivery* entry_of(const Snapshot& snap, MPI_T_cb_safety context, uint64_t id) {
  const Delivery* e = after(snap, context, id - 1);
  return e->reg != nullptr && e->reg->id == id ? e : nullptr;
}

// Calls reg's dropped handler if it has drops to report (before its next event). Lock
// held and token owned, on entry and return; false if it ran (the lock was released).
bool report_drops_locked(Source& source, Registration& reg, void* user_data, MPI_T_cb_safety context) {
  if (!reg.drop_report) return true;
  const MPI_Count count = reg.dropped;
  DroppedCallback handler = reg.dropped_handler;
  reg.dropped = 0;
  update_drop_report(source, reg);
  source.lock.unlock();
  {
    FrameScope scope({nullptr, nullptr, 0}, context);
    handler(count, to_handle(&reg), source.index, context, user_data);
  }
  source.lock.lock();
  return false;
}

// Calls one event callback. Lock held and token owned, on entry and return.
void call_locked(Source& source, Registration& reg, const Delivery& entry, const InstanceView& view,
                 MPI_T_cb_safety context) {
  const Callback cb{entry.function, entry.user_data};
  source.lock.unlock();
  {
    FrameScope scope(view, context);
    cb.function(scope.handle(), to_handle(&reg), context, cb.user_data);
  }
  source.lock.lock();
}

// Keeps an instance for reg until a context its callbacks accept. Lock held.
void backlog_locked(Source& source, Registration& reg, const Pending& p, uint64_t sequence) {
  if (reg.backlog.size() >= kRingCapacity) return count_drop(source, reg);
  try {
    if (!reg.backlog_listed) {
      source.backlogged.push_back(&reg);
      reg.backlog_listed = true;
    }
    BacklogEntry& entry = reg.backlog.push();
    entry.sequence = sequence;
    entry.timestamp = p.timestamp;
    if (p.type->extent > 0) std::memcpy(entry.payload, p.payload, p.type->extent);
  } catch (const std::bad_alloc&) {
    return count_drop(source, reg);
  }
  ++source.backlog_count;
  tables.queued.fetch_add(1, std::memory_order_relaxed);
  // Every raise of the source now goes through the lock (finish_locked keeps the flag
  // until the backlogs are empty): none may overtake this instance on the direct path.
  source.state.fetch_or(kWork);
}

// Delivers the front of reg's backlog if a callback of reg accepts `context`: first its
// drop report, if any (then the caller looks again). Lock held and token owned, on entry
// and return (released during callbacks). False if nothing was delivered.
bool deliver_backlog_front_locked(Source& source, Registration& reg, const Delivery& entry, MPI_T_cb_safety context) {
  if (!report_drops_locked(source, reg, entry.user_data, context)) return true;
  BacklogEntry local = reg.backlog.front();
  reg.backlog.pop();
  --source.backlog_count;
  tables.queued.fetch_sub(1, std::memory_order_relaxed);
  call_locked(source, reg, entry, {reg.type, local.payload, local.timestamp}, context);
  return true;
}

// reg's entry for `context` in its type's current snapshot; a registration without one
// (its last callback removed) loses its backlog. Lock held.
const Delivery* backlog_entry_locked(Source& source, Registration& reg, MPI_T_cb_safety context) {
  const Delivery* entry = entry_of(*reg.type->snapshot.load(std::memory_order_relaxed), context, reg.id);
  if (entry == nullptr) discard_backlog_locked(source, reg, true);
  return entry;
}

// Delivers reg's backlog, oldest first, while its callbacks accept `context`. Lock held
// and token owned, on entry and return. True if the backlog is empty.
bool flush_backlog_locked(Source& source, Registration& reg, MPI_T_cb_safety context) {
  while (!reg.backlog.empty()) {
    const Delivery* entry = backlog_entry_locked(source, reg, context);
    if (entry == nullptr) return true;
    if (entry->function == nullptr) return false;  // not in this context
    deliver_backlog_front_locked(source, reg, *entry, context);
  }
  return true;
}

// Every backlog whose callbacks accept `context`, merged in the source's delivery order
// (one registration's instances never overtake another's older ones). Lock held and token
// owned. Each registration's entry is looked up once per pass, again only after a
// callback changed the registrations.
void flush_backlogs_locked(Source& source, MPI_T_cb_safety context) {
  struct Candidate {
    Registration* reg;
    const Snapshot* snap;  // its type's, when `entry` was found
    const Delivery* entry;
  };
  // Nothing to do (the common case at a raise in a strict context): no allocation.
  const auto waits_here = [context](const Registration* reg) {
    return !reg->backlog.empty() && static_cast<int>(context) <= reg->strictest_context;
  };
  if (std::none_of(source.backlogged.begin(), source.backlogged.end(), waits_here)) return;
  std::vector<Candidate> candidates;
  std::size_t listed = 0;
  const auto find_candidates = [&] {
    candidates.clear();
    for (std::size_t i = 0; i < source.backlogged.size();) {
      Registration* reg = source.backlogged[i];
      if (!waits_here(reg)) {
        ++i;
        continue;
      }
      const Snapshot* snap = reg->type->snapshot.load(std::memory_order_relaxed);
      const Delivery* entry = backlog_entry_locked(source, *reg, context);
      if (entry == nullptr) continue;  // discarded: it left the list
      ++i;
      if (entry->function != nullptr) candidates.push_back({reg, snap, entry});
    }
    listed = source.backlogged.size();
  };
  try {
    find_candidates();
    for (;;) {
      const Candidate* oldest = nullptr;
      for (const Candidate& c : candidates)
        if (!c.reg->backlog.empty() &&
            (oldest == nullptr || c.reg->backlog.front().sequence < oldest->reg->backlog.front().sequence))
          oldest = &c;
      if (oldest == nullptr) return;
      deliver_backlog_front_locked(source, *oldest->reg, *oldest->entry, context);
      bool changed = source.backlogged.size() != listed;  // a callback's raise started a backlog
      for (const Candidate& c : candidates)
        changed = changed || c.reg->type->snapshot.load(std::memory_order_relaxed) != c.snap;
      if (changed) find_candidates();
    }
  } catch (const std::bad_alloc&) {
    // left for the next safe point
  }
}

// Decides one instance for the registrations of the type's current snapshot bound to its
// object, with ids in (from, horizon], in id order: each receives it now if a callback
// of it accepts `context` (after its own older instances), else keeps it in its backlog.
// One registration's backlog never costs another its instances. Lock held and token
// owned, on entry and return.
void deliver_locked(Source& source, const Pending& p, MPI_T_cb_safety context, uint64_t from) {
  const uint64_t sequence = ++source.decided;
  const Snapshot* snap = p.type->snapshot.load(std::memory_order_relaxed);  // publishers hold the lock
  const Delivery* e = after(*snap, context, from);
  uint64_t last = from;
  for (;;) {
    if (const Snapshot* now = p.type->snapshot.load(std::memory_order_relaxed); now != snap) {
      // Changed while a callback ran: resume after the last registration served.
      snap = now;
      e = after(*snap, context, last);
    }
    if (e->reg == nullptr || e->reg->id > p.horizon) break;
    const Delivery& entry = *e++;
    Registration& reg = *entry.reg;  // not deleted while we hold the token
    last = reg.id;
    if (!matches(entry, p.object)) continue;
    // Its own older instances first (they may run callbacks, which may change the
    // registrations: then look at this one again in the current snapshot).
    const bool flushed = entry.function != nullptr && flush_backlog_locked(source, reg, context);
    const auto changed = [&] { return p.type->snapshot.load(std::memory_order_relaxed) != snap; };
    if (changed()) {
      last = reg.id - 1;
      continue;
    }
    if (!flushed) {
      backlog_locked(source, reg, p, sequence);
      continue;
    }
    if (!report_drops_locked(source, reg, entry.user_data, context) && changed()) {
      last = reg.id - 1;
      continue;
    }
    call_locked(source, reg, entry, {p.type, p.payload, p.timestamp}, context);
  }
}

// Copy an instance into the ring, or count it dropped for its listeners if full. Lock held.
void enqueue_locked(Source& source, EventType& type, const void* object, const void* payload, MPI_Count timestamp,
                    uint64_t horizon) {
  if (source.ring_count == kRingCapacity) {
    const Snapshot& snap = *type.snapshot.load(std::memory_order_relaxed);
    for (const Delivery* e = snap.list[0]; e->reg != nullptr && e->reg->id <= horizon; ++e)
      if (matches(*e, object)) count_drop(source, *e->reg);
    return;
  }
  QueuedInstance& slot = source.ring[(source.ring_head + source.ring_count) % kRingCapacity];
  slot.type = &type;
  slot.object = object;
  slot.timestamp = timestamp;
  slot.horizon = horizon;
  if (type.extent > 0) std::memcpy(slot.payload, payload, type.extent);
  ++source.ring_count;
  tables.queued.fetch_add(1, std::memory_order_relaxed);
}

// Runs the free callbacks of registrations retired to this holder and destroys retired
// snapshots: nothing of this delivery reads them any more. Lock held on entry and return
// (released meanwhile); false if there was nothing.
bool dispose_retired_locked(Source& source, MPI_T_cb_safety context) {
  Registration* regs = source.retired_registrations;
  Snapshot* snaps = source.retired_snapshots;
  if (regs == nullptr && snaps == nullptr) return false;
  source.retired_registrations = nullptr;
  source.retired_snapshots = nullptr;
  source.lock.unlock();
  while (snaps != nullptr) {
    Snapshot* next = snaps->next_retired;
    destroy_snapshot(snaps);
    snaps = next;
  }
  while (regs != nullptr) {
    Registration* next = regs->next_retired;
    run_free_callback(regs, context);
    regs = next;
  }
  source.lock.lock();
  return true;
}

// The holder's duties before giving the token back: deliver the backlogs this context
// allows and decide the ring's instances in order, dispose of retired objects; then
// release. Lock held and token owned on entry; both released on return.
void finish_locked(Source& source, MPI_T_cb_safety context) {
  do {
    for (;;) {
      if (source.backlog_count > 0) flush_backlogs_locked(source, context);
      if (source.ring_count == 0) break;
      const QueuedInstance& head = source.ring[source.ring_head];
      QueuedInstance local;
      local.type = head.type;
      local.object = head.object;
      local.timestamp = clamp(source, head.timestamp);
      local.horizon = head.horizon;
      std::memcpy(local.payload, head.payload, head.type->extent);
      source.ring_head = (source.ring_head + 1) % kRingCapacity;
      --source.ring_count;
      tables.queued.fetch_sub(1, std::memory_order_relaxed);
      deliver_locked(source, {local.type, local.object, local.timestamp, local.horizon, local.payload}, context, 0);
    }
  } while (dispose_retired_locked(source, context));
  // Backlogs left for a laxer context keep kWork set: raises go through the lock.
  const bool idle = source.ring_count == 0 && source.backlog_count == 0;
  source.state.fetch_and(~(kDelivering | (idle ? kWork : 0)), std::memory_order_release);
  source.lock.unlock();
}

}  // namespace

void discard_backlog_locked(Source& source, Registration& reg, bool count_dropped) {
  if (reg.backlog_listed) {
    std::erase(source.backlogged, &reg);
    reg.backlog_listed = false;
  }
  const std::size_t n = reg.backlog.size();
  if (n == 0) return;
  source.backlog_count -= n;
  tables.queued.fetch_sub(static_cast<long>(n), std::memory_order_relaxed);
  reg.backlog.clear();
  if (count_dropped) {
    reg.dropped =
        n > static_cast<std::size_t>(kMaxCount - reg.dropped) ? kMaxCount : reg.dropped + static_cast<MPI_Count>(n);
    update_drop_report(source, reg);
  }
}

// Out of line (raise_inline.h): keeps the inline paths short, here too.
[[gnu::noinline]] void raise_slow(EventType& type, const void* object, const void* payload, MPI_Count timestamp,
                                  MPI_T_cb_safety context, bool holding) {
  Source& source = *type.source;
  source.lock.lock();
  if (!holding) holding = take_token_locked(source);
  timestamp = stamp(timestamp);
  if (!holding || source.ring_count > 0) {
    // Another thread (or this one, in a callback) delivers, or older instances wait in
    // the ring: queue it. Registrations made from now on do not receive it.
    const uint64_t horizon = tables.next_registration_id.load(std::memory_order_relaxed) - 1;
    enqueue_locked(source, type, object, payload, timestamp, horizon);
    // Tell the holder (maybe this thread, in a callback) or, if it has just released the
    // token, take it over.
    uint32_t s = source.state.load();
    for (;;) {
      const uint32_t want = (s & kDelivering) != 0 ? s | kWork : s | kWork | kDelivering;
      if (source.state.compare_exchange_weak(s, want)) break;
    }
    if ((s & kDelivering) != 0 && !holding) {
      source.lock.unlock();
      return;
    }
    finish_locked(source, context);
    return;
  }
  timestamp = clamp(source, timestamp);
  deliver_locked(source, {&type, object, timestamp, UINT64_MAX, static_cast<const unsigned char*>(payload)}, context,
                 0);
  finish_locked(source, context);
}

namespace {

// The direct path's state while several registrations are bound to the object.
struct DirectDelivery {
  Frame frame;             // the callbacks' frame: type, payload, timestamp, context
  const Delivery* served;  // the entry whose callback runs
  const void* object;
  const Snapshot* snap;
};

// The first entry from `e` on whose registration is bound to `object`, or nullptr.
inline const Delivery* next_match(const Delivery* e, const void* object) {
  while (e->reg != nullptr && !matches(*e, object)) ++e;
  return e->reg != nullptr ? e : nullptr;
}

// The direct path met a changed snapshot after the registration d.served: finish the
// delivery under the lock (and release the token).
[[gnu::noinline]] void resume_slow(const DirectDelivery& d) {
  Source& source = *d.frame.view.type->source;
  source.lock.lock();
  deliver_locked(source, {d.frame.view.type, d.object, d.frame.view.timestamp, UINT64_MAX, d.frame.view.payload},
                 d.frame.context, d.served->reg->id);
  finish_locked(source, d.frame.context);
}

// The direct path with several registrations bound to the object (entry e and the
// following matches), watching for a snapshot change between their callbacks.
[[gnu::noinline]] void deliver_several(const Snapshot* snap, const Delivery* e, const void* object,
                                       const unsigned char* payload, MPI_Count timestamp, MPI_T_cb_safety context) {
  EventType* type = snap->type;
  DirectDelivery d{{{type, payload, timestamp}, tls_frame, context}, e, object, snap};
  tls_frame = &d.frame;
  for (const Delivery* more = next_match(e + 1, object);; e = more, more = next_match(e + 1, object)) {
    d.served = e;
    e->function(reinterpret_cast<MPI_T_event_instance>(&d.frame), to_handle(e->reg), context, e->user_data);
    if (more == nullptr) break;
    if (type->snapshot.load(std::memory_order_relaxed) != snap) {
      // A callback changed the registrations: serve the rest under the lock, after the
      // last registration served. (The old snapshot stays valid: we hold the token.)
      tls_frame = d.frame.outer;
      return resume_slow(d);
    }
  }
  tls_frame = d.frame.outer;
  release(*type->source, context);
}

}  // namespace

[[gnu::noinline]] void release_slow(Source& source, MPI_T_cb_safety context) {
  source.lock.lock();
  finish_locked(source, context);
}

[[gnu::noinline]] void raise_held(EventType& type, const Snapshot* snap, const void* object,
                                  const unsigned char* payload, MPI_Count timestamp, MPI_T_cb_safety context) {
  Source& source = *type.source;
  const Delivery* e = snap->direct[context];
  if (e == nullptr) return raise_slow(type, object, payload, timestamp, context, true);
  e = next_match(e, object);
  if (e == nullptr) return release(source, context);  // no registration bound to the object
  timestamp = clamp(source, stamp(timestamp));
  if (next_match(e + 1, object) != nullptr) return deliver_several(snap, e, object, payload, timestamp, context);
  deliver_one(&type, e, payload, timestamp, context, source);
}

uint32_t inline_layout() { return kInlineLayout; }

EventType* event_type(int event_index) { return tables.types[event_index].load(std::memory_order_acquire); }

const InstanceView* find_instance(MPI_T_event_instance handle) {
  for (Frame* f = tls_frame; f != nullptr; f = f->outer)
    if (reinterpret_cast<MPI_T_event_instance>(f) == handle && f->view.type != nullptr) return &f->view;
  return nullptr;
}

void invoke_free_callback(FreeCallback cb, MPI_T_event_registration reg, void* user_data, MPI_T_cb_safety context) {
  FrameScope scope({nullptr, nullptr, 0}, context);
  cb(reg, context, user_data);
}

}  // namespace mpimon::events

using namespace mpimon::events;

extern "C" {

void mpimon_events_raise(int event_index, const void* object, const void* payload, MPI_Count timestamp,
                         MPI_T_cb_safety context) {
  // The contract (mpit_events_producer.h): a registered type's index and a valid context;
  // our producers raise only types they watch. So no checks here.
  EventType& type = *tables.types[event_index].load(std::memory_order_relaxed);
  object = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(object) & type.object_mask);
  raise_inline(type, object, payload, timestamp, context);
}

void mpimon_events_drain(MPI_T_cb_safety context) {
  if (tls_frame != nullptr || static_cast<unsigned>(context) >= kLevels) return;
  if (tables.queued.load(std::memory_order_relaxed) == 0) return;
  const int n = tables.num_sources.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    Source& source = *source_at(i);
    source.lock.lock();
    if ((source.ring_count == 0 && source.backlog_count == 0) || !take_token_locked(source)) {
      source.lock.unlock();
      continue;
    }
    finish_locked(source, context);
  }
}

}  // extern "C"
