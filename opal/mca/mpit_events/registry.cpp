// Sources and event types: registered once per process, never removed, so indices are
// stable across MPI_T init/finalize cycles; names are unique (registering a name again
// returns the existing index).
#include <algorithm>
#include <cstring>
#include <new>

#include "events_internal.h"

namespace mpimon::events {

Registry& registry() {
  // Function-local: producers may register from their own static initialisers.
  static Registry* instance = new Registry;  // never destroyed: callbacks may run at exit
  return *instance;
}

constinit Tables tables;  // zero before any static initialiser runs

namespace {

// Sizes of the basic datatypes an element may have (MPI_Type_size may not be called
// before MPI_Init in Open MPI 4.1).
std::size_t basic_size(MPI_Datatype t) {
  const std::pair<MPI_Datatype, std::size_t> table[] = {
      {MPI_CHAR, sizeof(char)},
      {MPI_SIGNED_CHAR, sizeof(signed char)},
      {MPI_UNSIGNED_CHAR, sizeof(unsigned char)},
      {MPI_BYTE, 1},
      {MPI_WCHAR, sizeof(wchar_t)},
      {MPI_SHORT, sizeof(short)},
      {MPI_UNSIGNED_SHORT, sizeof(unsigned short)},
      {MPI_INT, sizeof(int)},
      {MPI_UNSIGNED, sizeof(unsigned)},
      {MPI_LONG, sizeof(long)},
      {MPI_UNSIGNED_LONG, sizeof(unsigned long)},
      {MPI_LONG_LONG_INT, sizeof(long long)},
      {MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long)},
      {MPI_FLOAT, sizeof(float)},
      {MPI_DOUBLE, sizeof(double)},
      {MPI_LONG_DOUBLE, sizeof(long double)},
      {MPI_C_BOOL, sizeof(bool)},
      {MPI_INT8_T, 1},
      {MPI_INT16_T, 2},
      {MPI_INT32_T, 4},
      {MPI_INT64_T, 8},
      {MPI_UINT8_T, 1},
      {MPI_UINT16_T, 2},
      {MPI_UINT32_T, 4},
      {MPI_UINT64_T, 8},
      {MPI_AINT, sizeof(MPI_Aint)},
      {MPI_COUNT, sizeof(MPI_Count)},
      {MPI_OFFSET, sizeof(MPI_Offset)},
  };
  for (const auto& [type, size] : table)
    if (type == t) return size;
  return 0;
}

int register_source(const char* name, const char* description, MPI_T_source_order ordering, int flags,
                    int* source_index) {
  if (name == nullptr || *name == '\0' || source_index == nullptr) return MPI_T_ERR_INVALID;
  if (ordering != MPI_T_SOURCE_ORDERED && ordering != MPI_T_SOURCE_UNORDERED) return MPI_T_ERR_INVALID;
  Registry& r = registry();
  std::lock_guard guard(r.control);
  if (auto it = r.source_names.find(name); it != r.source_names.end()) {
    *source_index = it->second;
    return MPI_SUCCESS;
  }
  const int index = tables.num_sources.load(std::memory_order_relaxed);
  if (index >= kMaxSources) return MPI_T_ERR_OUT_OF_HANDLES;
  try {
    auto source = std::make_unique<Source>();
    source->index = index;
    source->name = name;
    source->description = description ? description : "";
    source->ordering = ordering;
    source->ordered = ordering == MPI_T_SOURCE_ORDERED;
    source->timestamps_on_demand = (flags & MPIMON_EVENTS_SOURCE_NO_TIMESTAMP) == 0;
    source->ring = std::make_unique<QueuedInstance[]>(kRingCapacity);
    r.source_names.emplace(source->name, index);
    tables.sources[index].store(source.release(), std::memory_order_release);
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  tables.num_sources.store(index + 1, std::memory_order_release);
  *source_index = index;
  return MPI_SUCCESS;
}

bool valid_layout(const mpimon_event_type_desc& d, std::vector<Element>& out) {
  if (d.num_elements < 0 || (d.num_elements > 0 && d.elements == nullptr)) return false;
  if (d.payload_extent > kMaxPayload) return false;
  MPI_Aint previous_end = 0;
  for (int i = 0; i < d.num_elements; ++i) {
    const mpimon_event_element& e = d.elements[i];
    const std::size_t size = basic_size(e.datatype);
    if (e.name == nullptr || size == 0) return false;
    if (i == 0 ? e.displacement != 0 : e.displacement < previous_end) return false;
    if (static_cast<std::size_t>(e.displacement) + size > d.payload_extent) return false;
    previous_end = e.displacement + static_cast<MPI_Aint>(size);
    out.push_back({e.name, e.datatype, e.displacement, size});
  }
  return true;
}

}  // namespace

void copy_string(char* dest, int* len, const std::string& source) {
  if (len == nullptr) return;
  const int needed = static_cast<int>(source.size()) + 1;
  if (dest == nullptr || *len <= 0) {
    *len = needed;
    return;
  }
  const int n = std::min(*len, needed);
  std::memcpy(dest, source.data(), n - 1);
  dest[n - 1] = '\0';
  *len = n;
}

}  // namespace mpimon::events

using namespace mpimon::events;

extern "C" {

int mpimon_events_register_source(const char* name, const char* description, MPI_T_source_order ordering,
                                  int* source_index) {
  return register_source(name, description, ordering, 0, source_index);
}

int mpimon_events_register_source_ex(const char* name, const char* description, MPI_T_source_order ordering, int flags,
                                     int* source_index) {
  return register_source(name, description, ordering, flags, source_index);
}

int mpimon_events_register_type(const mpimon_event_type_desc* desc, int* event_index) {
  if (desc == nullptr || event_index == nullptr || desc->name == nullptr || *desc->name == '\0')
    return MPI_T_ERR_INVALID;
  Registry& r = registry();
  std::lock_guard guard(r.control);
  if (auto it = r.type_names.find(desc->name); it != r.type_names.end()) {
    *event_index = it->second;
    return MPI_SUCCESS;
  }
  Source* source = source_at(desc->source_index);
  if (source == nullptr) return MPI_T_ERR_INVALID_INDEX;
  const int index = tables.num_types.load(std::memory_order_relaxed);
  if (index >= kMaxTypes) return MPI_T_ERR_OUT_OF_HANDLES;
  try {
    auto type = std::make_unique<EventType>();
    if (!valid_layout(*desc, type->elements)) return MPI_T_ERR_INVALID;
    type->index = index;
    type->name = desc->name;
    type->description = desc->description ? desc->description : "";
    type->verbosity = desc->verbosity;
    type->bind = desc->bind;
    type->source = source;
    if (desc->bind == MPI_T_BIND_NO_OBJECT) type->object_mask = 0;
    type->extent = desc->payload_extent;
    for (const char* const* kv = desc->info; kv != nullptr && kv[0] != nullptr; kv += 2) {
      if (kv[1] == nullptr) return MPI_T_ERR_INVALID;
      type->info.emplace_back(kv[0], kv[1]);
    }
    type->snapshot.store(build_snapshot(*type), std::memory_order_relaxed);  // empty
    r.type_names.emplace(type->name, index);
    tables.types[index].store(type.release(), std::memory_order_release);
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  tables.num_types.store(index + 1, std::memory_order_release);
  *event_index = index;
  return MPI_SUCCESS;
}

int mpimon_events_find_type(const char* name) {
  if (name == nullptr) return -1;
  Registry& r = registry();
  std::lock_guard guard(r.control);
  auto it = r.type_names.find(name);
  return it == r.type_names.end() ? -1 : it->second;
}

void mpimon_events_watch_notify(int event_index, unsigned char* flag, mpimon_events_changed_fn* changed, void* arg) {
  EventType* type = type_at(event_index);
  if (type == nullptr || flag == nullptr) return;
  std::lock_guard guard(registry().control);
  type->watchers.push_back({flag, changed, arg});
  __atomic_store_n(flag, static_cast<unsigned char>(type->listening > 0), __ATOMIC_RELAXED);
  if (changed != nullptr) changed(arg);
}

void mpimon_events_watch(int event_index, unsigned char* flag) {
  mpimon_events_watch_notify(event_index, flag, nullptr, nullptr);
}

void mpimon_events_unwatch(int event_index, unsigned char* flag) {
  EventType* type = type_at(event_index);
  if (type == nullptr || flag == nullptr) return;
  std::lock_guard guard(registry().control);
  auto& w = type->watchers;
  w.erase(std::remove_if(w.begin(), w.end(), [&](const EventType::Watcher& x) { return x.flag == flag; }), w.end());
  __atomic_store_n(flag, static_cast<unsigned char>(0), __ATOMIC_RELAXED);
}

int mpimon_events_test_ring_capacity(void) { return static_cast<int>(kRingCapacity); }

}  // extern "C"
