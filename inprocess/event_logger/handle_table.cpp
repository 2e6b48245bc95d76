// The event logger's registrations: the event handles each object (communicator, window,
// or every object at once) holds, made when the object appears, freed before it goes.
#include "logger.h"

namespace mpimon::mel {

// Handles on every selected type `object` takes (its kind's; for the every-object
// holder, every bound type, allocated with `hint`), from type slot `first` on. False if
// one could not be made (the others are kept).
bool allocate_handles(Logger& g, BoundObject& object, size_t first, MPI_Info hint) {
  bool all = true;
  for (size_t i = first; i < g.types.size(); ++i) {
    const std::unique_ptr<TypeSlot>& slot = g.types[i];
    if (!slot->selected || (object.every ? slot->bind == MPI_T_BIND_NO_OBJECT : slot->bind != object.bind)) continue;
    MPI_T_event_registration registration;
    if (MPI_T_event_handle_alloc(slot->index, object.every ? nullptr : object.handle_address(), hint, &registration) !=
        MPI_SUCCESS) {
      all = false;
      continue;
    }
    g.live_handles.fetch_add(1);
    if (MPI_T_event_register_callback(registration, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, slot.get(),
                                      on_event) != MPI_SUCCESS) {
      MPI_T_event_handle_free(registration, nullptr, on_handle_freed);
      all = false;
      continue;
    }
    MPI_T_event_set_dropped_handler(registration, on_dropped);
    object.registrations.push_back(registration);
  }
  return all;
}

void free_handles(BoundObject& object) {
  for (MPI_T_event_registration registration : object.registrations)
    MPI_T_event_handle_free(registration, nullptr, on_handle_freed);
  object.registrations.clear();
}

void attach(Logger& g, int bind, const void* key, MPI_Comm comm, MPI_Win win) {
  auto object = std::make_unique<BoundObject>();
  object->bind = bind;
  object->comm = comm;
  object->win = win;
  allocate_handles(g, *object);
  std::unique_ptr<BoundObject> previous;
  {
    std::lock_guard<std::mutex> lock(g.objects_mutex);
    std::unique_ptr<BoundObject>& entry = g.objects[key];
    previous = std::move(entry);  // a freed object's address reused without our seeing the free
    entry = std::move(object);
  }
  if (previous) free_handles(*previous);
}

void detach(Logger& g, const void* key) {
  std::unique_ptr<BoundObject> object;
  {
    std::lock_guard<std::mutex> lock(g.objects_mutex);
    auto it = g.objects.find(key);
    if (it == g.objects.end()) return;
    object = std::move(it->second);
    g.objects.erase(it);
  }
  free_handles(*object);
}

void communicator_created(const MPI_Comm* comm) noexcept {
  Logger& g = logger();
  if (!g.attaching.load(std::memory_order_acquire) || comm == nullptr || *comm == MPI_COMM_NULL) return;
  if (g.every_object) return;
  try {
    attach(g, MPI_T_BIND_MPI_COMM, *comm, *comm, MPI_WIN_NULL);
  } catch (...) {
  }
}

void window_created(const MPI_Win* win) noexcept {
  Logger& g = logger();
  if (!g.attaching.load(std::memory_order_acquire) || win == nullptr || *win == MPI_WIN_NULL) return;
  if (g.every_object) return;
  try {
    attach(g, MPI_T_BIND_MPI_WIN, *win, MPI_COMM_NULL, *win);
  } catch (...) {
  }
}

void object_freed(const void* key) noexcept {
  Logger& g = logger();
  if (!g.attaching.load(std::memory_order_acquire) || g.every_object) return;
  try {
    detach(g, key);
  } catch (...) {
  }
}

// After PMPI_Init: one handle per selected bound type on every object of its kind (the
// events library's hint), replacing the handles on MPI_COMM_WORLD and MPI_COMM_SELF, so
// that communicators the wrappers never see (Open MPI's internal ones, those made through
// the Fortran bindings) are logged too. False, and nothing changed, if the library does
// not take the hint: the logger then follows the objects its wrappers see.
bool attach_every_object(Logger& g) {
  MPI_Info hint;
  if (PMPI_Info_create(&hint) != MPI_SUCCESS) return false;
  PMPI_Info_set(hint, MPIMON_EVENTS_EVERY_OBJECT, "true");
  auto every = std::make_unique<BoundObject>();
  every->every = true;
  const bool taken = allocate_handles(g, *every, 0, hint);
  PMPI_Info_free(&hint);
  if (!taken) {
    free_handles(*every);
    return false;
  }
  // No event is raised between the allocation above and the frees below (no MPI call in
  // between): none is logged twice.
  std::map<const void*, std::unique_ptr<BoundObject>> objects;
  {
    std::lock_guard<std::mutex> lock(g.objects_mutex);
    for (auto it = g.objects.begin(); it != g.objects.end();) {
      if (it->first == nullptr) {  // the unbound types' handles stay
        ++it;
        continue;
      }
      objects.emplace(it->first, std::move(it->second));
      it = g.objects.erase(it);
    }
    g.objects[&g.every_object] = std::move(every);
  }
  g.every_object = true;
  for (auto& [key, object] : objects) free_handles(*object);
  return true;
}

void free_all_handles(Logger& g) {
  g.attaching.store(false, std::memory_order_release);
  std::map<const void*, std::unique_ptr<BoundObject>> objects;
  {
    std::lock_guard<std::mutex> lock(g.objects_mutex);
    objects.swap(g.objects);
  }
  for (auto& [key, object] : objects) free_handles(*object);
}

}  // namespace mpimon::mel
