// Registrations: allocation, callbacks per safety level, dropped handlers, and the free
// protocol (free_cb exactly once, after the registration's last callback).
//
// A registration leaves its type's list (so no delivery can select it again) under its
// source's lock. If a callback of it is running at that moment (Source::in_callback),
// the free is left to the delivering thread, which runs free_cb when that callback
// returns; otherwise free_cb runs before MPI_T_event_handle_free returns.
#include <algorithm>
#include <new>

#include "events_internal.h"

namespace mpimon::events {

void recompute_choice(Registration& reg) {
  reg.has_callback = false;
  for (int context = kLevels - 1, best = -1; context >= 0; --context) {
    if (reg.callbacks[context].function != nullptr) best = context;
    reg.choice[context] = static_cast<int8_t>(best);
    reg.has_callback = reg.has_callback || best >= 0;
  }
}

void update_listening(EventType& type, bool was, bool now) {
  if (was == now) return;
  const bool before = type.listening > 0;
  type.listening += now ? 1 : -1;
  const bool after = type.listening > 0;
  if (before != after)
    for (unsigned char* flag : type.watchers) __atomic_store_n(flag, static_cast<unsigned char>(after), __ATOMIC_RELAXED);
}

void registrations_changed(EventType& type) {
  ++type.version;
  for (int context = 0; context < kLevels; ++context) {
    type.lax[context] = false;
    for (const Registration* reg : type.registrations)
      if (reg->has_callback && reg->choice[context] < 0) type.lax[context] = true;
  }
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
    reg->id = r.next_registration_id.fetch_add(1, std::memory_order_relaxed);
    r.live.insert(reg.get());
    Source& source = *type.source;
    try {
      std::lock_guard lock(source.lock);
      type.registrations.push_back(reg.get());  // ids ascend: the list stays sorted
      registrations_changed(type);
    } catch (...) {
      r.live.erase(reg.get());
      throw;
    }
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
  bool was, now;
  {
    std::lock_guard lock(type.source->lock);
    was = reg->listening();
    reg->callbacks[level] = {function, function != nullptr ? user_data : nullptr};
    recompute_choice(*reg);
    registrations_changed(type);
    now = reg->listening();
  }
  update_listening(type, was, now);
  return MPI_SUCCESS;
}

int check_registration(MPI_T_event_registration handle) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  return find_registration(handle) != nullptr ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int set_dropped_handler(MPI_T_event_registration handle, MPI_T_event_dropped_cb_function* function) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  Registration* reg = find_registration(handle);
  if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  std::lock_guard lock(reg->type->source->lock);
  reg->dropped_handler = function;
  reg->dropped = 0;  // the count is of instances missed since the handler was set
  return MPI_SUCCESS;
}

int free_registration(MPI_T_event_registration handle, void* user_data, MPI_T_event_free_cb_function* free_cb) {
  Registry& r = registry();
  Registration* reg;
  {
    std::lock_guard guard(r.control);
    reg = find_registration(handle);
    if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    r.live.erase(reg);
    EventType& type = *reg->type;
    Source& source = *type.source;
    bool was, pending;
    {
      std::lock_guard lock(source.lock);
      was = reg->listening();
      auto& list = type.registrations;
      list.erase(std::remove(list.begin(), list.end(), reg), list.end());
      registrations_changed(type);
      reg->free_cb = free_cb;
      reg->free_user_data = user_data;
      // A callback of it is running: the deliverer finishes the free (and may already
      // have deleted it once the lock is released: do not touch reg after this block).
      pending = reg->free_pending = source.in_callback == reg;
    }
    update_listening(type, was, false);
    if (pending) return MPI_SUCCESS;
  }
  run_free_callback(reg, current_context());
  return MPI_SUCCESS;
}

}  // namespace mpimon::events

using namespace mpimon::events;

extern "C" {

void mpimon_events_object_freed(int bind, const void* object) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  const int n = r.num_types.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    EventType& type = *type_at(i);
    if (type.bind != bind || bind == MPI_T_BIND_NO_OBJECT) continue;
    std::lock_guard lock(type.source->lock);
    auto& list = type.registrations;
    for (auto it = list.begin(); it != list.end();) {
      Registration* reg = *it;
      if (reg->object != object) {
        ++it;
        continue;
      }
      // Stays a valid handle until freed, but receives nothing more; a new object at the
      // same address does not revive it.
      update_listening(type, reg->listening(), false);
      reg->object_gone = true;
      it = list.erase(it);
    }
    registrations_changed(type);
  }
}

int mpimon_events_test_set_dropped(MPI_T_event_registration handle, MPI_Count count) {
  Registry& r = registry();
  std::lock_guard guard(r.control);
  Registration* reg = find_registration(handle);
  if (reg == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  std::lock_guard lock(reg->type->source->lock);
  reg->dropped = count;
  return MPI_SUCCESS;
}

}  // extern "C"
