// Registrations: allocation, callbacks per safety level, dropped handlers, and the free
// protocol (free_cb exactly once, after the registration's last callback).
//
// Every change a delivery must see publishes a new snapshot of the type's registrations
// (snapshot.cpp). A freed registration leaves the snapshot at once; deliveries that may
// still read an older snapshot naming it run under the source's delivery token, so:
// if the token is free, free_cb runs before MPI_T_event_handle_free returns; otherwise
// the registration is retired to the token's holder, which runs free_cb (in its
// delivery context) after its last callback — also when the registration is freed
// inside its own callback.
#include <algorithm>
#include <new>

#include "events_internal.h"

namespace mpimon::events {

void update_listening(EventType& type, bool was, bool now) {
  if (was == now) return;
  const bool before = type.listening > 0;
  type.listening += now ? 1 : -1;
  const bool after = type.listening > 0;
  if (before != after) {
    for (const EventType::Watcher& w : type.watchers) {
      __atomic_store_n(w.flag, static_cast<unsigned char>(after), __ATOMIC_RELAXED);
      if (w.changed != nullptr) w.changed(w.arg);
    }
  }
}

void update_drop_report(Source& source, Registration& reg) {
  const bool report = reg.active && reg.dropped > 0 && reg.dropped_handler != nullptr;
  if (report == reg.drop_report) return;
  reg.drop_report = report;
  // A nonzero count keeps raises of the source off the direct path until reported.
  if (report)
    source.state.fetch_add(kDropReport);
  else
    source.state.fetch_sub(kDropReport);
}

Registration* find_registration(MPI_T_event_registration handle) {
  Registry& r = registry();
  Registration* reg = from_handle(handle);
  return (reg != nullptr && r.live.count(reg) != 0) ? reg : nullptr;
}

void forget(EventType& type, const Registration& reg) {
  type.registrations.erase(reg.id);
  type.by_object.erase(std::pair(reg.object, reg.id));
}

void run_free_callback(Registration* reg, MPI_T_cb_safety context) {
  FreeCallback cb = reg->free_cb;
  void* user_data = reg->free_user_data;
  if (cb != nullptr) invoke_free_callback(cb, to_handle(reg), user_data, context);
  delete reg;
}

int alloc_registration(EventType& type, const void* object, MPI_T_event_registration* out) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  if (r.live.size() >= kMaxRegistrations) return MPI_T_ERR_OUT_OF_HANDLES;
  try {
    auto reg = std::make_unique<Registration>();
    reg->type = &type;
    reg->object = object;
    // Its id is above the horizon of every instance already queued.
    reg->id = tables.next_registration_id.fetch_add(1, std::memory_order_relaxed);
    // O(log n): n allocations stay O(n log n).
    type.registrations.emplace(reg->id, reg.get());
    try {
      if (object != nullptr && object != &every_object) type.by_object.emplace(std::pair(object, reg->id), reg.get());
      r.live.insert(reg.get());
    } catch (...) {
      forget(type, *reg);
      throw;
    }
    // No callback yet: not in the snapshot, nothing to publish.
    *out = to_handle(reg.release());
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  return MPI_SUCCESS;
}

int set_callback(MPI_T_event_registration handle, int level, EventCallback function, void* user_data) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  Registration* reg = find_registration(handle);
  if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  EventType& type = *reg->type;
  const bool was = reg->listening();
  const Callback previous = reg->callbacks[level];
  reg->callbacks[level] = {function, function != nullptr ? user_data : nullptr};
  Snapshot* next;
  try {
    next = build_snapshot(type);
  } catch (const std::bad_alloc&) {
    reg->callbacks[level] = previous;
    return MPI_T_ERR_MEMORY;
  }
  const bool now = reg->listening();
  {
    std::lock_guard lock(type.source->lock);
    publish_snapshot(type, next);
    reg->active = now;
    reg->strictest_context = -1;
    for (int l = 0; l < kLevels; ++l)
      if (reg->callbacks[l].function != nullptr) reg->strictest_context = l;
    // No callback left: nothing could ever deliver its backlog (counted as dropped), and
    // flush_backlogs_locked no longer looks at it. (This API call drained the backlogs
    // first; only a raise on another thread since then can have left some.)
    if (reg->strictest_context < 0) discard_backlog_locked(*type.source, *reg, true);
    update_drop_report(*type.source, *reg);
  }
  update_listening(type, was, now);
  return MPI_SUCCESS;
}

int check_registration(MPI_T_event_registration handle) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  return find_registration(handle) != nullptr ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int registration_binds_every_object(MPI_T_event_registration handle, bool* every) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  const Registration* reg = find_registration(handle);
  if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  *every = reg->object == &every_object;
  return MPI_SUCCESS;
}

namespace {

// Changes a registration's drop state (handler, count: read by deliverers under the
// source lock), then whether its source has a drop to report.
template <typename Change>
int change_drop_state(MPI_T_event_registration handle, Change change) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  Registration* reg = find_registration(handle);
  if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  Source& source = *reg->type->source;
  std::lock_guard lock(source.lock);
  change(*reg);
  update_drop_report(source, *reg);
  return MPI_SUCCESS;
}

}  // namespace

int set_dropped_handler(MPI_T_event_registration handle, DroppedCallback function) {
  return change_drop_state(handle, [&](Registration& reg) {
    reg.dropped_handler = function;
    reg.dropped = 0;  // the count is of instances missed since the handler was set
  });
}

int free_registration(MPI_T_event_registration handle, void* user_data, FreeCallback free_cb) {
  Registry& r = registry();
  Registration* reg;
  {
    std::lock_guard guard(r.control);
    reg = find_registration(handle);
    if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    EventType& type = *reg->type;
    Source& source = *type.source;
    Snapshot* next = nullptr;
    if (reg->active) {
      try {
        next = build_snapshot(type, [reg](const Registration& other) { return &other == reg; });
      } catch (const std::bad_alloc&) {
        return MPI_T_ERR_MEMORY;  // nothing changed: the handle is still valid
      }
    }
    const bool was = reg->listening();
    r.live.erase(reg);
    forget(type, *reg);
    bool deferred;
    {
      std::lock_guard lock(source.lock);
      if (next != nullptr) publish_snapshot(type, next);
      reg->active = false;
      discard_backlog_locked(source, *reg, false);
      update_drop_report(source, *reg);
      reg->free_cb = free_cb;
      reg->free_user_data = user_data;
      // Checked after the publication: if the token is free, no delivery reads reg again.
      deferred = defer_to_token_holder(source);
      if (deferred) {
        reg->next_retired = source.retired_registrations;
        source.retired_registrations = reg;  // the holder may delete it once we unlock
      }
    }
    update_listening(type, was, false);
    if (deferred) return MPI_SUCCESS;
  }
  run_free_callback(reg, current_context());
  return MPI_SUCCESS;
}

}  // namespace mpimon::events

using namespace mpimon::events;

extern "C" {

void mpimon_events_object_freed(int bind, const void* object) {
  if (bind == MPI_T_BIND_NO_OBJECT) return;
  Registry& r = registry();
  std::lock_guard guard(r.control);
  const int n = tables.num_types.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    EventType& type = *type_at(i);
    if (type.bind != bind) continue;
    auto it = type.by_object.lower_bound(std::pair(object, uint64_t{0}));
    if (it == type.by_object.end() || it->first.first != object) continue;
    std::vector<Registration*> bound;
    Snapshot* next;
    try {
      for (; it != type.by_object.end() && it->first.first == object; ++it) bound.push_back(it->second);
      next = build_snapshot(type, [object](const Registration& reg) { return reg.object == object; });
    } catch (const std::bad_alloc&) {
      continue;  // out of memory: these registrations keep receiving the address's events
    }
    std::lock_guard lock(type.source->lock);
    publish_snapshot(type, next);
    for (Registration* reg : bound) {
      // Stays a valid handle until freed, but receives nothing more; a new object at the
      // same address does not revive it.
      update_listening(type, reg->listening(), false);
      reg->object_gone = true;
      reg->active = false;
      discard_backlog_locked(*type.source, *reg, false);
      update_drop_report(*type.source, *reg);
      forget(type, *reg);
    }
  }
}

int mpimon_events_test_set_dropped(MPI_T_event_registration handle, MPI_Count count) {
  return change_drop_state(handle, [&](Registration& reg) { reg.dropped = count; });
}

}  // extern "C"
