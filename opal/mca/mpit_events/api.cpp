// The 20 MPI_T events functions (mpit_events.h): argument checks and error classes;
// the work is in registry.cpp, registration.cpp and delivery.cpp.
//
// Every entry point returns MPI_T_ERR_NOT_INITIALIZED outside MPI_T_init_thread ..
// MPI_T_finalize. Inside a user callback only the read side (read, copy, timestamps,
// source), the counts and name lookup, and handle_free are accessible; the others
// return MPI_T_ERR_NOT_ACCESSIBLE (they create MPI objects or take Open MPI's MPI_T
// lock). Outside callbacks each entry point is a safe point: pending instances are
// delivered first.
#include <algorithm>
#include <cstring>

#include "communication_events.h"
#include "events_internal.h"
#include "ompi_lifecycle_events.h"

using namespace mpimon::events;

namespace {

enum class Access { in_callbacks_too, outside_callbacks };

int enter(Access access) {
  if (!mpit_initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (in_callback()) return access == Access::in_callbacks_too ? MPI_SUCCESS : MPI_T_ERR_NOT_ACCESSIBLE;
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  return MPI_SUCCESS;
}

bool valid_level(int cb_safety) { return cb_safety >= MPI_T_CB_REQUIRE_NONE && cb_safety < kLevels; }

// The communication catalogue is registered when the library is loaded, so tools see it
// right after MPI_T_init_thread (the registry is a function-local static: no static
// initialisation order issue).
[[maybe_unused]] const bool catalogue_registered = [] {
  mpimon_register_communication_events();
  mpimon_register_ompi_lifecycle_events();
  return true;
}();

}  // namespace

extern "C" {

int MPI_T_source_get_num(int* num_sources) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  if (num_sources == nullptr) return MPI_T_ERR_INVALID;
  *num_sources = tables.num_sources.load(std::memory_order_acquire);
  return MPI_SUCCESS;
}

int MPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                          MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                          MPI_Info* info) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  const Source* source = source_at(source_index);
  if (source == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (info != nullptr) {
    if (int rc = make_info({{MPIMON_EVENTS_CLOCK, clock_is_tsc() ? "tsc" : "monotonic"}}, info)) return rc;
  }
  copy_string(name, name_len, source->name);
  copy_string(desc, desc_len, source->description);
  if (ordering != nullptr) *ordering = source->ordering;
  if (ticks_per_second != nullptr) *ticks_per_second = clock_ticks_per_second();
  if (max_ticks != nullptr) *max_ticks = clock_max_ticks();
  return MPI_SUCCESS;
}

int MPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  const Source* source = source_at(source_index);
  if (source == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (timestamp == nullptr) return MPI_T_ERR_INVALID;
  if (!source->timestamps_on_demand) return MPI_T_ERR_NOT_SUPPORTED;
  *timestamp = clock_now();
  return MPI_SUCCESS;
}

int MPI_T_event_get_num(int* num_events) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  if (num_events == nullptr) return MPI_T_ERR_INVALID;
  if (!in_callback()) category_index();  // tools enumerate here: make the category visible
  *num_events = tables.num_types.load(std::memory_order_acquire);
  return MPI_SUCCESS;
}

int MPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity, MPI_Datatype array_of_datatypes[],
                         MPI_Aint array_of_displacements[], int* num_elements, MPI_T_enum* enumtype, MPI_Info* info,
                         char* desc, int* desc_len, int* bind) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  EventType* type = type_at(event_index);
  if (type == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (enumtype != nullptr) {
    if (int rc = element_enum(*type, enumtype)) return rc;
  }
  if (info != nullptr) {
    if (int rc = make_info(type->info, info)) return rc;
  }
  copy_string(name, name_len, type->name);
  copy_string(desc, desc_len, type->description);
  if (verbosity != nullptr) *verbosity = type->verbosity;
  if (bind != nullptr) *bind = type->bind;
  if (num_elements != nullptr) {
    const int count = static_cast<int>(type->elements.size());
    const int fill = std::clamp(*num_elements, 0, count);
    for (int i = 0; i < fill; ++i) {
      if (array_of_datatypes != nullptr) array_of_datatypes[i] = type->elements[i].datatype;
      if (array_of_displacements != nullptr) array_of_displacements[i] = type->elements[i].displacement;
    }
    *num_elements = count;
  }
  return MPI_SUCCESS;
}

int MPI_T_event_get_index(const char* name, int* event_index) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  if (name == nullptr || event_index == nullptr) return MPI_T_ERR_INVALID;
  const int index = mpimon_events_find_type(name);
  if (index < 0) return MPI_T_ERR_INVALID_NAME;
  *event_index = index;
  return MPI_SUCCESS;
}

int MPI_T_event_handle_alloc(int event_index, void* obj_handle, MPI_Info info,
                             MPI_T_event_registration* event_registration) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  EventType* type = type_at(event_index);
  if (type == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (event_registration == nullptr) return MPI_T_ERR_INVALID;
  const void* object = nullptr;
  if (type->bind != MPI_T_BIND_NO_OBJECT) {
    bool every = false;
    if (int rc = every_object_hint(info, &every)) return rc;
    if (every) {
      object = &every_object;  // obj_handle is ignored
    } else {
      // A live object of the type's kind (MPI_COMM_WORLD and MPI_COMM_SELF also before
      // MPI_Init completes: events are raised during it), named by its handle's address
      // or by the handle itself; never MPI_COMM_NULL, a freed object or one of another kind.
      object = object_named(type->bind, obj_handle, true);
      if (object == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    }
  }
  return alloc_registration(*type, object, event_registration);
}

int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info /*info*/) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  return check_registration(event_registration);  // the one hint is read at allocation
}

int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info* info_used) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  bool every = false;
  if (int rc = registration_binds_every_object(event_registration, &every)) return rc;
  if (info_used == nullptr) return MPI_T_ERR_INVALID;
  if (every) return make_info({{MPIMON_EVENTS_EVERY_OBJECT, "true"}}, info_used);
  return make_info({}, info_used);
}

int MPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info /*info*/, void* user_data, MPI_T_event_cb_function event_cb_function) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  if (!valid_level(cb_safety)) return MPI_T_ERR_INVALID;
  return set_callback(event_registration, cb_safety, event_cb_function, user_data);
}

int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info /*info*/) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  if (!valid_level(cb_safety)) return MPI_T_ERR_INVALID;
  return check_registration(event_registration);
}

int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info* info_used) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  if (!valid_level(cb_safety)) return MPI_T_ERR_INVALID;
  if (int rc = check_registration(event_registration)) return rc;
  if (info_used == nullptr) return MPI_T_ERR_INVALID;
  return make_info({}, info_used);
}

int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data,
                            MPI_T_event_free_cb_function free_cb_function) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  return free_registration(event_registration, user_data, free_cb_function);
}

int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                    MPI_T_event_dropped_cb_function dropped_cb_function) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  return set_dropped_handler(event_registration, dropped_cb_function);
}

int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  const InstanceView* instance = find_instance(event_instance);
  if (instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  const auto& elements = instance->type->elements;
  if (element_index < 0 || element_index >= static_cast<int>(elements.size())) return MPI_T_ERR_INVALID_INDEX;
  if (buffer == nullptr) return MPI_T_ERR_INVALID;
  const Element& e = elements[element_index];
  std::memcpy(buffer, instance->payload + e.displacement, e.size);
  return MPI_SUCCESS;
}

int MPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  const InstanceView* instance = find_instance(event_instance);
  if (instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (buffer == nullptr) return MPI_T_ERR_INVALID;
  for (const Element& e : instance->type->elements)
    std::memcpy(static_cast<unsigned char*>(buffer) + e.displacement, instance->payload + e.displacement, e.size);
  return MPI_SUCCESS;
}

int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  const InstanceView* instance = find_instance(event_instance);
  if (instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (event_timestamp == nullptr) return MPI_T_ERR_INVALID;
  *event_timestamp = instance->timestamp;
  return MPI_SUCCESS;
}

int MPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index) {
  if (int rc = enter(Access::in_callbacks_too)) return rc;
  const InstanceView* instance = find_instance(event_instance);
  if (instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (source_index == nullptr) return MPI_T_ERR_INVALID;
  *source_index = instance->type->source->index;
  return MPI_SUCCESS;
}

int MPI_T_category_get_num_events(int cat_index, int* num_events) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  bool ours = false;
  if (int rc = category_lookup(cat_index, &ours)) return rc;
  if (num_events == nullptr) return MPI_T_ERR_INVALID;
  *num_events = ours ? tables.num_types.load(std::memory_order_acquire) : 0;
  return MPI_SUCCESS;
}

int MPI_T_category_get_events(int cat_index, int len, int indices[]) {
  if (int rc = enter(Access::outside_callbacks)) return rc;
  bool ours = false;
  if (int rc = category_lookup(cat_index, &ours)) return rc;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  const int count = ours ? tables.num_types.load(std::memory_order_acquire) : 0;
  for (int i = 0; i < std::min(len, count); ++i) indices[i] = i;
  return MPI_SUCCESS;
}

}  // extern "C"
