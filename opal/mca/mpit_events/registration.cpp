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

void run_free_callback(Registration* reg, MPI_T_cb_safety context) {
  MPI_T_event_free_cb_function* cb = reg->free_cb;
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
    type.registrations.reserve(type.registrations.size() + 1);
    r.live.insert(reg.get());
    // No callback yet: not in the snapshot, nothing to publish. Its id is above the
    // horizon of every instance already queued.
    reg->id = tables.next_registration_id.fetch_add(1, std::memory_order_relaxed);
    type.registrations.push_back(reg.get());  // ids ascend: the list stays sorted
    *out = to_handle(reg.release());
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  return MPI_SUCCESS;
}

int set_callback(MPI_T_event_registration handle, int level, MPI_T_event_cb_function* function, void* user_data) {
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
    next = build_snapshot(type, type.registrations);
  } catch (const std::bad_alloc&) {
    reg->callbacks[level] = previous;
    return MPI_T_ERR_MEMORY;
  }
  const bool now = reg->listening();
  {
    std::lock_guard lock(type.source->lock);
    publish_snapshot(type, next);
    reg->active = now;
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

int set_dropped_handler(MPI_T_event_registration handle, MPI_T_event_dropped_cb_function* function) {
  return change_drop_state(handle, [&](Registration& reg) {
    reg.dropped_handler = function;
    reg.dropped = 0;  // the count is of instances missed since the handler was set
  });
}

int free_registration(MPI_T_event_registration handle, void* user_data, MPI_T_event_free_cb_function* free_cb) {
  Registry& r = registry();
  Registration* reg;
  {
    std::lock_guard guard(r.control);
    reg = find_registration(handle);
    if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    EventType& type = *reg->type;
    Source& source = *type.source;
    std::vector<Registration*> remaining;
    Snapshot* next = nullptr;
    const bool listed = std::find(type.registrations.begin(), type.registrations.end(), reg) != type.registrations.end();
    if (listed) {
      try {
        remaining.reserve(type.registrations.size());
        for (Registration* other : type.registrations)
          if (other != reg) remaining.push_back(other);
        if (reg->active) next = build_snapshot(type, remaining);
      } catch (const std::bad_alloc&) {
        return MPI_T_ERR_MEMORY;  // nothing changed: the handle is still valid
      }
    }
    const bool was = reg->listening();
    r.live.erase(reg);
    if (listed) type.registrations.swap(remaining);
    bool deferred;
    {
      std::lock_guard lock(source.lock);
      if (next != nullptr) publish_snapshot(type, next);
      reg->active = false;
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
    const auto bound = [object](const Registration* reg) { return reg->object == object; };
    if (std::none_of(type.registrations.begin(), type.registrations.end(), bound)) continue;
    std::vector<Registration*> remaining;
    Snapshot* next;
    try {
      for (Registration* reg : type.registrations)
        if (!bound(reg)) remaining.push_back(reg);
      next = build_snapshot(type, remaining);
    } catch (const std::bad_alloc&) {
      continue;  // out of memory: these registrations keep receiving the address's events
    }
    std::lock_guard lock(type.source->lock);
    publish_snapshot(type, next);
    for (Registration* reg : type.registrations) {
      if (!bound(reg)) continue;
      // Stays a valid handle until freed, but receives nothing more; a new object at the
      // same address does not revive it.
      update_listening(type, reg->listening(), false);
      reg->object_gone = true;
      reg->active = false;
      update_drop_report(*type.source, *reg);
    }
    type.registrations.swap(remaining);
  }
}

int mpimon_events_test_set_dropped(MPI_T_event_registration handle, MPI_Count count) {
  return change_drop_state(handle, [&](Registration& reg) { reg.dropped = count; });
}

}  // extern "C"
