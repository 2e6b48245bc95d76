// libmpimon_event_logger.so: an MPI_T events logger in the spirit of the MPI_T Events
// paper's MEL, loaded with LD_PRELOAD (or linked). It intercepts MPI calls through PMPI:
//
//   MPI_Init(_thread)  MPI_T_init_thread first, handles on every selected event type
//                      (unbound, and bound ones on MPI_COMM_WORLD and MPI_COMM_SELF), then
//                      PMPI_Init; then the output is opened and what arrived meanwhile logged
//                      after PMPI_Init: one handle per bound type on every object of its
//                      kind (hint MPIMON_EVENTS_EVERY_OBJECT), also Open MPI's internal
//                      communicators and those made through the Fortran bindings
//   communicator and window constructors / MPI_Comm_free, MPI_Comm_disconnect, MPI_Win_free
//                      only if the events library ignores that hint: handles on the new
//                      object / freed before the object is
//   MPI_Finalize       handles freed, output flushed, MPI_T_finalize (before PMPI_Finalize:
//                      the reverse crashes Open MPI 4.1), statistics, file synced; then,
//                      inside PMPI_Finalize (an MPI_COMM_SELF attribute's delete callback,
//                      after mpimon's own end-of-job dump, so neither the log nor the
//                      monitoring counts it), the ranks agree on one run number and
//                      publish their logs under it (files/output_names.h: nothing overwritten)
//
// Threads: event callbacks may run on any thread. One mutex guards the output, the
// statistics and the type descriptions; another the table of objects' registrations.
// No MPI_T function is ever called with the output mutex held, because the events
// library may deliver (and so call us back) inside its own entry points.
// Nothing here throws out of a callback or a wrapper; on an internal failure the logger
// says so once and stops logging while the application runs on.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "files/atomic_file.h"
#include "event_log.h"
#include "mpit_events.h"
#include "files/output_names.h"

#define MEL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace mpimon::mel;

// One event type, as the logger knows it. Never freed (callbacks hold its address as
// user_data): a late callback after MPI_Finalize stays harmless.
struct TypeSlot {
  int index = -1;
  int bind = MPI_T_BIND_NO_OBJECT;
  bool selected = false;
  EventType type;                       // guarded by Logger::mutex once handles exist
  std::vector<MPI_Datatype> datatypes;  // as reported, per element
  // Fixed before the first handle exists, then read by callbacks without the lock:
  std::vector<size_t> displacements;
  size_t buffer_size = 0;
  // The type's info, fetched when the type is first described (before MPI_Init for the
  // library's own types) and read once MPI is initialised: MPI_Info_get may not be
  // called before MPI_Init, and an info made before it holds values of any length.
  MPI_Info info = MPI_INFO_NULL;
};

// An object's registrations. The object handle lives here because MPI_T_event_handle_alloc
// takes the address of a variable holding it. `every`: the registrations of every bound
// type on every object of its kind (no handle).
struct BoundObject {
  bool every = false;
  int bind = MPI_T_BIND_NO_OBJECT;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  std::vector<MPI_T_event_registration> registrations;
  void* handle_address() {
    if (bind == MPI_T_BIND_MPI_COMM) return &comm;
    if (bind == MPI_T_BIND_MPI_WIN) return &win;
    return nullptr;
  }
};

// What MPI_Init learnt of a source, before its clock's name can be read (MPI_Info_get
// needs MPI initialised): its ticks per second and a reading bracketed by two of the
// reference source's.
struct SourceReading {
  long long ticks_per_second = 1000000000;
  bool on_demand = false;  // MPI_T_source_get_timestamp works
  long long before = 0, ticks = 0, after = 0;
};

// When an instance was observed: its source's timestamp and, for a source not yet on the
// timeline, the reference source's clock when it arrived.
struct Stamp {
  int source = -1;
  bool has_timestamp = false;
  long long timestamp = 0;
  bool has_reference_now = false;
  long long reference_now = 0;
};

// An instance that arrived before the output was open (during MPI_Init): logged after.
struct Pending {
  TypeSlot* slot = nullptr;
  Stamp stamp;
  std::vector<unsigned char> payload;
  long long dropped = -1;  // >= 0: a dropped notice instead of an event
};

struct Logger {
  // --- set up in MPI_Init, read-only afterwards
  bool mpit_initialized = false;
  std::vector<std::string> wanted;  // MEL_EVENTS; empty: all
  std::vector<std::unique_ptr<TypeSlot>> types;
  std::atomic<bool> attaching{false};  // new objects get handles
  bool every_object = false;           // one handle per bound type covers every object
  int world_rank = -1;
  int reference_source = -1;           // the timeline's reference (on-demand timestamps)
  std::vector<SourceReading> readings;

  // --- guarded by mutex
  std::mutex mutex;
  bool ready = false;   // output open: format and write at once
  bool closed = false;  // finished or disabled: ignore whatever still arrives
  std::vector<Pending> pending;
  size_t pending_overflow = 0;
  Timeline timeline;
  std::vector<long long> source_ticks_per_second;
  Statistics statistics;
  // MEL_OUTPUT=<prefix>: the log is written to a new temporary (mpimon::NewFile: created
  // exclusively, never through a link) in 1 MiB pieces, published at MPI_Finalize.
  bool to_file = false;
  std::string output_prefix;
  mpimon::NewFile file;
  std::string buffer;
  mpimon::FileError file_error;  // the first write failure: the log is then not published
  std::string line_prefix;       // "rank N: " on stderr

  // --- guarded by objects_mutex
  std::mutex objects_mutex;
  std::map<const void*, std::unique_ptr<BoundObject>> objects;  // key: the handle's value; nullptr: unbound
  std::atomic<long> live_handles{0};
};

// Leaked on purpose: callbacks may run after static destructors.
Logger& logger() {
  static Logger* instance = new Logger;
  return *instance;
}

constexpr size_t kMaxPending = 100000;

// ---------------------------------------------------------------------------------------
// Type information

bool classify(MPI_Datatype datatype, ValueKind& kind, size_t& size) {
  struct Entry {
    MPI_Datatype datatype;
    ValueKind kind;
    size_t size;
  };
  static const Entry table[] = {
      {MPI_CHAR, ValueKind::character, 1},
      {MPI_SIGNED_CHAR, ValueKind::signed_integer, 1},
      {MPI_UNSIGNED_CHAR, ValueKind::unsigned_integer, 1},
      {MPI_BYTE, ValueKind::unsigned_integer, 1},
      {MPI_SHORT, ValueKind::signed_integer, sizeof(short)},
      {MPI_UNSIGNED_SHORT, ValueKind::unsigned_integer, sizeof(unsigned short)},
      {MPI_INT, ValueKind::signed_integer, sizeof(int)},
      {MPI_UNSIGNED, ValueKind::unsigned_integer, sizeof(unsigned)},
      {MPI_LONG, ValueKind::signed_integer, sizeof(long)},
      {MPI_UNSIGNED_LONG, ValueKind::unsigned_integer, sizeof(unsigned long)},
      {MPI_LONG_LONG_INT, ValueKind::signed_integer, sizeof(long long)},
      {MPI_LONG_LONG, ValueKind::signed_integer, sizeof(long long)},
      {MPI_UNSIGNED_LONG_LONG, ValueKind::unsigned_integer, sizeof(unsigned long long)},
      {MPI_INT8_T, ValueKind::signed_integer, 1},
      {MPI_INT16_T, ValueKind::signed_integer, 2},
      {MPI_INT32_T, ValueKind::signed_integer, 4},
      {MPI_INT64_T, ValueKind::signed_integer, 8},
      {MPI_UINT8_T, ValueKind::unsigned_integer, 1},
      {MPI_UINT16_T, ValueKind::unsigned_integer, 2},
      {MPI_UINT32_T, ValueKind::unsigned_integer, 4},
      {MPI_UINT64_T, ValueKind::unsigned_integer, 8},
      {MPI_AINT, ValueKind::signed_integer, sizeof(MPI_Aint)},
      {MPI_OFFSET, ValueKind::signed_integer, sizeof(MPI_Offset)},
      {MPI_COUNT, ValueKind::signed_integer, sizeof(MPI_Count)},
      {MPI_FLOAT, ValueKind::floating, sizeof(float)},
      {MPI_DOUBLE, ValueKind::floating, sizeof(double)},
      {MPI_LONG_DOUBLE, ValueKind::floating, sizeof(long double)},
      {MPI_C_BOOL, ValueKind::boolean, sizeof(bool)},
  };
  for (const Entry& e : table)
    if (e.datatype == datatype) {
      kind = e.kind;
      size = e.size;
      return true;
    }
  return false;
}

std::string c_string(const std::vector<char>& buffer) {
  return std::string(buffer.data(), strnlen(buffer.data(), buffer.size()));
}

// The element names from the type's MPI_T_enum (item i names element i).
std::vector<std::string> element_names(MPI_T_enum enumtype, int count) {
  std::vector<std::string> names;
  int items = 0;
  if (enumtype != MPI_T_ENUM_NULL && MPI_T_enum_get_info(enumtype, &items, nullptr, nullptr) == MPI_SUCCESS) {
    for (int i = 0; i < items && i < count; ++i) {
      std::vector<char> name(256, '\0');
      int length = static_cast<int>(name.size());
      int value = 0;
      if (MPI_T_enum_get_item(enumtype, i, &value, name.data(), &length) != MPI_SUCCESS) break;
      names.push_back(c_string(name));
    }
  }
  for (int i = static_cast<int>(names.size()); i < count; ++i) names.push_back("element" + std::to_string(i));
  for (int i = 0; i < count; ++i)
    if (names[i].empty()) names[i] = "element" + std::to_string(i);
  return names;
}

// Everything MPI_T says about event type `index` (no info object: MPI_Info calls abort
// before MPI_Init in Open MPI 4.1; value names are read after PMPI_Init).
std::unique_ptr<TypeSlot> describe_type(int index) {
  auto slot = std::make_unique<TypeSlot>();
  slot->index = index;
  std::vector<char> name(256, '\0');
  std::vector<MPI_Datatype> datatypes(64, MPI_DATATYPE_NULL);
  std::vector<MPI_Aint> displacements(64, 0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    int name_length = static_cast<int>(name.size());
    int count = static_cast<int>(datatypes.size());
    int verbosity = 0, bind = MPI_T_BIND_NO_OBJECT;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_event_get_info(index, name.data(), &name_length, &verbosity, datatypes.data(), displacements.data(),
                             &count, &enumtype, nullptr, nullptr, nullptr, &bind) != MPI_SUCCESS)
      return nullptr;
    if (count < 0) return nullptr;
    if (static_cast<size_t>(count) > datatypes.size() || static_cast<size_t>(name_length) > name.size()) {
      const size_t elements = std::max(datatypes.size(), static_cast<size_t>(count));
      datatypes.assign(elements, MPI_DATATYPE_NULL);
      displacements.assign(elements, 0);
      name.assign(std::max(name.size(), static_cast<size_t>(name_length) + 1), '\0');
      continue;
    }
    slot->bind = bind;
    slot->type.name = c_string(name);
    const std::vector<std::string> names = element_names(enumtype, count);
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      ElementType e;
      e.name = names[i];
      e.displacement = displacements[i] < 0 ? 0 : static_cast<size_t>(displacements[i]);
      classify(datatypes[i], e.kind, e.size);
      slot->displacements.push_back(e.displacement);
      slot->datatypes.push_back(datatypes[i]);
      slot->type.elements.push_back(std::move(e));
    }
    slot->buffer_size = slot->type.copy_buffer_size();
    return slot;
  }
  return nullptr;
}

// After PMPI_Init: value names from the type's info, sizes of datatypes we do not know.
// Returns the updated description (applied under the mutex by the caller) and frees the
// info.
EventType complete_type(TypeSlot& slot) {
  EventType type = slot.type;
  for (size_t i = 0; i < type.elements.size(); ++i) {
    ElementType& e = type.elements[i];
    if (e.size == 0 && slot.datatypes[i] != MPI_DATATYPE_NULL) {
      int size = 0;
      // Unknown basic types print as unsigned integers of their size (or '?').
      if (PMPI_Type_size(slot.datatypes[i], &size) == MPI_SUCCESS && size > 0 && size <= 8) {
        e.kind = ValueKind::unsigned_integer;
        e.size = static_cast<size_t>(size);
      }
    }
  }
  MPI_Info info = slot.info;
  if (info == MPI_INFO_NULL) return type;
  for (ElementType& e : type.elements) {
    const std::string key = value_names_info_key(e.name);
    int length = 0, flag = 0;
    if (PMPI_Info_get_valuelen(info, key.c_str(), &length, &flag) != MPI_SUCCESS || !flag || length <= 0) continue;
    std::vector<char> value(static_cast<size_t>(length) + 1, '\0');
    if (PMPI_Info_get(info, key.c_str(), length, value.data(), &flag) == MPI_SUCCESS && flag)
      e.value_names = split_value_names(c_string(value));
  }
  PMPI_Info_free(&slot.info);
  slot.info = MPI_INFO_NULL;
  return type;
}

// ---------------------------------------------------------------------------------------
// Output (callers hold the mutex)

constexpr size_t kFileBuffer = 1 << 20;

void flush_buffer(Logger& g) {
  if (!g.file_error && !g.buffer.empty()) g.file.write(g.buffer, g.file_error);
  g.buffer.clear();
}

void write_text(Logger& g, const std::string& text) {
  if (g.to_file) {
    if (g.file_error) return;
    g.buffer += text;
    if (g.buffer.size() >= kFileBuffer) flush_buffer(g);
  } else {
    const std::string lines = prefix_lines(text, g.line_prefix);
    std::fwrite(lines.data(), 1, lines.size(), stderr);
  }
}

// Seconds on the timeline (mutex held, sources placed): a source not on it yet is placed
// by its first event.
double seconds_of(Logger& g, const Stamp& stamp) {
  if (stamp.source < 0 || !stamp.has_timestamp) return 0;
  if (!g.timeline.knows(stamp.source)) {
    const auto i = static_cast<size_t>(stamp.source);
    const long long tps = i < g.source_ticks_per_second.size() ? g.source_ticks_per_second[i] : 1000000000;
    if (stamp.has_reference_now)
      g.timeline.add_source(stamp.source, tps, "", stamp.reference_now, stamp.timestamp, stamp.reference_now);
    else
      g.timeline.set_reference(stamp.source, tps, "", stamp.timestamp);  // no reference at all: it starts here
  }
  return g.timeline.seconds(stamp.source, stamp.timestamp);
}

void log_instance(Logger& g, TypeSlot& slot, double seconds, const unsigned char* payload, size_t size) {
  const std::vector<Value> values = decode_payload(slot.type, payload, size);
  write_text(g, format_event_line(seconds, slot.type, values) + "\n");
  g.statistics.record(slot.type, values, seconds);
}

void log_dropped(Logger& g, TypeSlot& slot, long long count) {
  write_text(g, format_dropped_line(count, slot.type.name) + "\n");
  g.statistics.record_dropped(slot.type.name, count);
}

// ---------------------------------------------------------------------------------------
// Callbacks (any thread; never throw)

void on_event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* user_data) noexcept {
  try {
    auto* slot = static_cast<TypeSlot*>(user_data);
    if (slot == nullptr) return;
    Logger& g = logger();
    int source = -1;
    MPI_Count timestamp = 0;
    if (MPI_T_event_get_source(instance, &source) != MPI_SUCCESS) source = -1;
    const bool has_timestamp = MPI_T_event_get_timestamp(instance, &timestamp) == MPI_SUCCESS;
    thread_local std::vector<unsigned char> payload;
    payload.assign(slot->buffer_size, 0);
    if (MPI_T_event_copy(instance, payload.data()) != MPI_SUCCESS) {
      // Element by element, then (read and copy write at the same displacements).
      for (size_t i = 0; i < slot->displacements.size(); ++i)
        MPI_T_event_read(instance, static_cast<int>(i), payload.data() + slot->displacements[i]);
    }

    Stamp stamp{source, has_timestamp, timestamp, false, 0};
    // A source that cannot tell the time on demand is placed on the timeline at its first
    // event, by the reference source's clock now (a call allowed in callbacks).
    if (g.reference_source >= 0 && source >= 0 && source != g.reference_source &&
        !(static_cast<size_t>(source) < g.readings.size() && g.readings[static_cast<size_t>(source)].on_demand)) {
      MPI_Count now = 0;
      stamp.has_reference_now = MPI_T_source_get_timestamp(g.reference_source, &now) == MPI_SUCCESS;
      stamp.reference_now = now;
    }

    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.closed) return;
    if (g.ready) {
      log_instance(g, *slot, seconds_of(g, stamp), payload.data(), payload.size());
    } else if (g.pending.size() < kMaxPending) {
      g.pending.push_back(Pending{slot, stamp, payload, -1});
    } else {
      ++g.pending_overflow;
    }
  } catch (...) {
  }
}

void on_dropped(MPI_Count count, MPI_T_event_registration, int, MPI_T_cb_safety, void* user_data) noexcept {
  try {
    auto* slot = static_cast<TypeSlot*>(user_data);
    if (slot == nullptr) return;
    Logger& g = logger();
    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.closed) return;
    if (g.ready)
      log_dropped(g, *slot, static_cast<long long>(count));
    else
      g.pending.push_back(Pending{slot, {}, {}, static_cast<long long>(count)});
  } catch (...) {
  }
}

void on_handle_freed(MPI_T_event_registration, MPI_T_cb_safety, void*) noexcept { logger().live_handles.fetch_sub(1); }

// ---------------------------------------------------------------------------------------
// Registrations

// Handles on every selected type `object` takes (its kind's; for the every-object
// holder, every bound type, allocated with `hint`), from type slot `first` on. False if
// one could not be made (the others are kept).
bool allocate_handles(Logger& g, BoundObject& object, size_t first = 0, MPI_Info hint = MPI_INFO_NULL) {
  bool all = true;
  for (size_t i = first; i < g.types.size(); ++i) {
    const std::unique_ptr<TypeSlot>& slot = g.types[i];
    if (!slot->selected || (object.every ? slot->bind == MPI_T_BIND_NO_OBJECT : slot->bind != object.bind)) continue;
    MPI_T_event_registration registration;
    if (MPI_T_event_handle_alloc(slot->index, object.every ? nullptr : object.handle_address(), hint,
                                 &registration) != MPI_SUCCESS) {
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

// ---------------------------------------------------------------------------------------
// MPI_Init and MPI_Finalize

void print_from_rank_zero(const Logger& g, const std::string& line) {
  if (g.world_rank == 0 && !line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
}

// Stops logging for good (after the output failed, or nothing to log).
void disable(Logger& g) {
  free_all_handles(g);
  std::lock_guard<std::mutex> lock(g.mutex);
  g.closed = true;
  g.pending.clear();
}

// Describes the event types registered since the last call (indices only grow).
void add_new_types(Logger& g) {
  int count = 0;
  if (MPI_T_event_get_num(&count) != MPI_SUCCESS) return;
  const int known = g.types.empty() ? 0 : g.types.back()->index + 1;
  for (int i = known; i < count; ++i) {
    std::unique_ptr<TypeSlot> slot = describe_type(i);
    if (!slot) continue;
    slot->selected = g.wanted.empty() || std::find(g.wanted.begin(), g.wanted.end(), slot->type.name) != g.wanted.end();
    if (slot->selected && MPI_T_event_get_info(i, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                               &slot->info, nullptr, nullptr, nullptr) != MPI_SUCCESS)
      slot->info = MPI_INFO_NULL;
    g.types.push_back(std::move(slot));
  }
}

// The name of the clock a source counts (source info key MPIMON_EVENTS_CLOCK), or "".
// Needs MPI initialised (MPI_Info_get).
std::string clock_of(int source) {
  MPI_Info info = MPI_INFO_NULL;
  if (MPI_T_source_get_info(source, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &info) !=
          MPI_SUCCESS ||
      info == MPI_INFO_NULL)
    return "";
  char value[64] = {};
  int flag = 0;
  if (PMPI_Info_get(info, MPIMON_EVENTS_CLOCK, sizeof value - 1, value, &flag) != MPI_SUCCESS) flag = 0;
  PMPI_Info_free(&info);
  return flag ? value : "";
}

// The sources read at MPI_Init, on one timeline (sources of the same clock share an origin).
Timeline place_sources(const Logger& g) {
  Timeline timeline;
  for (size_t i = 0; i < g.readings.size(); ++i) {
    const SourceReading& r = g.readings[i];
    if (!r.on_demand) continue;
    const int source = static_cast<int>(i);
    if (source == g.reference_source)
      timeline.set_reference(source, r.ticks_per_second, clock_of(source), r.ticks);
    else
      timeline.add_source(source, r.ticks_per_second, clock_of(source), r.before, r.ticks, r.after);
  }
  return timeline;
}

int publish_log(MPI_Comm, int, void*, void*);

// Before PMPI_Init: MPI_T, sources, types, handles on the predefined communicators.
void before_init(int thread_level) {
  Logger& g = logger();
  int provided = 0;
  if (MPI_T_init_thread(thread_level, &provided) != MPI_SUCCESS) return;
  g.mpit_initialized = true;
  const char* selection = std::getenv("MEL_EVENTS");
  g.wanted = parse_event_list(selection ? selection : "");

  // The timeline's origin is now (MPI_Init), on the first source that tells the time on
  // demand; every other such source is read between two readings of it. Sources without
  // on-demand timestamps are placed at their first event.
  int sources = 0;
  if (MPI_T_source_get_num(&sources) != MPI_SUCCESS) sources = 0;
  std::vector<SourceReading> readings(static_cast<size_t>(sources));
  std::vector<long long> ticks_per_second(static_cast<size_t>(sources), 1000000000);
  for (int i = 0; i < sources; ++i) {
    MPI_Count tps = 0;
    if (MPI_T_source_get_info(i, nullptr, nullptr, nullptr, nullptr, nullptr, &tps, nullptr, nullptr) == MPI_SUCCESS &&
        tps > 0)
      ticks_per_second[static_cast<size_t>(i)] = readings[static_cast<size_t>(i)].ticks_per_second = tps;
  }
  for (int i = 0; i < sources; ++i) {
    SourceReading& r = readings[static_cast<size_t>(i)];
    MPI_Count before = 0, ticks = 0, after = 0;
    if (g.reference_source < 0) {
      if (MPI_T_source_get_timestamp(i, &ticks) != MPI_SUCCESS) continue;
      g.reference_source = i;
      before = after = ticks;
    } else if (MPI_T_source_get_timestamp(g.reference_source, &before) != MPI_SUCCESS ||
               MPI_T_source_get_timestamp(i, &ticks) != MPI_SUCCESS ||
               MPI_T_source_get_timestamp(g.reference_source, &after) != MPI_SUCCESS) {
      continue;
    }
    r.on_demand = true;
    r.before = before;
    r.ticks = ticks;
    r.after = after;
  }
  g.readings = std::move(readings);

  add_new_types(g);
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.source_ticks_per_second = std::move(ticks_per_second);
  }
  g.attaching.store(true, std::memory_order_release);
  attach(g, MPI_T_BIND_NO_OBJECT, nullptr, MPI_COMM_NULL, MPI_WIN_NULL);
  const MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  communicator_created(&world);
  communicator_created(&self);
}

// After PMPI_Init: value names, warnings, the output; then what arrived meanwhile.
void after_init() {
  Logger& g = logger();
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
  const char* prefix = std::getenv("MEL_OUTPUT");
  if (prefix != nullptr && *prefix != '\0') {
    // Every rank publishes (collectively) at MPI_Finalize, whatever happens below.
    g.to_file = true;
    g.output_prefix = prefix;
    int keyval = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, publish_log, &keyval, nullptr) == MPI_SUCCESS)
      PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  }
  if (!g.mpit_initialized) {
    print_from_rank_zero(g, "mel: MPI_T_init_thread failed: no events logged");
    return;
  }
  // Types registered during MPI_Init (by components loaded then): handles on the objects
  // that exist so far (unbound, MPI_COMM_WORLD, MPI_COMM_SELF).
  const size_t first_new = g.types.size();
  add_new_types(g);
  if (g.types.size() > first_new) {
    std::lock_guard<std::mutex> lock(g.objects_mutex);
    for (auto& [key, object] : g.objects) allocate_handles(g, *object, first_new);
  }
  if (g.types.empty()) {
    print_from_rank_zero(g, "mel: the MPI_T events library reports no event types: nothing to log");
    disable(g);
    return;
  }
  std::vector<std::string> unknown;
  for (const std::string& name : g.wanted) {
    bool found = false;
    for (const auto& slot : g.types) found = found || slot->type.name == name;
    if (!found) unknown.push_back(name);
  }
  print_from_rank_zero(g, unknown_events_warning(unknown));

  attach_every_object(g);

  std::vector<EventType> completed;
  for (const auto& slot : g.types) completed.push_back(slot->selected ? complete_type(*slot) : slot->type);
  const Timeline timeline = place_sources(g);

  mpimon::NewFile file;
  if (g.to_file) {
    mpimon::FileError error;
    file = mpimon::NewFile::create(log_file_path(g.output_prefix, g.world_rank), error);
    if (error) {
      std::fprintf(stderr, "mel: rank %d: event log not written: %s; logging disabled\n", g.world_rank,
                   error.message.c_str());
      disable(g);
      return;
    }
  }

  std::lock_guard<std::mutex> lock(g.mutex);
  for (size_t i = 0; i < g.types.size(); ++i) g.types[i]->type = std::move(completed[i]);
  g.timeline = timeline;
  g.statistics.set_logged_events(g.wanted);
  g.file = std::move(file);
  g.line_prefix = "rank " + std::to_string(g.world_rank) + ": ";
  for (Pending& p : g.pending) {
    if (p.dropped >= 0)
      log_dropped(g, *p.slot, p.dropped);
    else
      log_instance(g, *p.slot, seconds_of(g, p.stamp), p.payload.data(), p.payload.size());
  }
  if (g.pending_overflow > 0)
    write_text(g, "mel: " + std::to_string(g.pending_overflow) + " events during MPI_Init not logged (buffer full)\n");
  g.pending.clear();
  g.pending.shrink_to_fit();
  g.ready = true;
}

void finish() {
  Logger& g = logger();
  if (!g.mpit_initialized) return;
  g.mpit_initialized = false;
  free_all_handles(g);
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.to_file) flush_buffer(g);
  }
  MPI_T_finalize();

  std::lock_guard<std::mutex> lock(g.mutex);
  if (g.closed) return;
  g.closed = true;
  if (!g.ready) return;
  write_text(g, g.statistics.report());
  if (!g.file.is_open()) return;
  flush_buffer(g);
  if (!g.file_error) g.file.finish(g.file_error);  // fsync and size check
  if (g.file_error) {
    std::fprintf(stderr, "mel: rank %d: event log not written: %s\n", g.world_rank, g.file_error.message.c_str());
    g.file.discard();
  }
  // Published by publish_log, inside PMPI_Finalize.
}

// MPI_COMM_SELF's attribute delete callback, at the start of PMPI_Finalize (after
// mpimon's end-of-job dump): every rank takes part, with or without a log to publish.
int publish_log(MPI_Comm, int, void*, void*) {
  Logger& g = logger();
  mpimon::NewFile file;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    file = std::move(g.file);
  }
  if (g.world_rank == 0) mpimon::remove_stale_temporaries(mpimon::folder_of(g.output_prefix));
  std::vector<mpimon::RunOutput> outputs(1);
  outputs[0].file = &file;
  outputs[0].name_for = [&](int n) { return log_file_path(mpimon::numbered_name(g.output_prefix, n), g.world_rank); };
  const int run = mpimon::publish_run_outputs(outputs, [](int mine) {
    int values[2] = {mine, -mine};
    PMPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return std::make_pair(values[0], -values[1]);
  });
  if (outputs[0].error)
    std::fprintf(stderr, "mel: rank %d: event log not written: %s\n", g.world_rank, outputs[0].error.message.c_str());
  if (run > 0 && g.world_rank == 0)
    std::fprintf(stderr,
                 "mel: event logs of an earlier run are in the way, and nothing is overwritten: this run's logs are "
                 "%s.<rank>.log\n",
                 mpimon::numbered_name(g.output_prefix, run).c_str());
  return MPI_SUCCESS;
}

// A process that exits without MPI_Finalize leaves no temporary file behind.
__attribute__((destructor)) void remove_unfinished_log() {
  Logger& g = logger();
  std::unique_lock<std::mutex> lock(g.mutex, std::try_to_lock);
  if (lock.owns_lock()) g.file.discard();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The intercepted MPI functions

MEL_EXPORT int MPI_Init(int* argc, char*** argv) {
  try {
    before_init(MPI_THREAD_SINGLE);
  } catch (...) {
  }
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    try {
      after_init();
    } catch (...) {
      disable(logger());
    }
  }
  return rc;
}

MEL_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  try {
    before_init(required);
  } catch (...) {
  }
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    try {
      after_init();
    } catch (...) {
      disable(logger());
    }
  }
  return rc;
}

MEL_EXPORT int MPI_Finalize(void) {
  try {
    finish();
  } catch (...) {
  }
  return PMPI_Finalize();
}

// Communicators: handles on the new one after it exists.
MEL_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_dup(comm, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  const int rc = PMPI_Comm_idup(comm, newcomm, request);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_create(comm, group, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Cart_create(MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,
                               MPI_Comm* comm_cart) {
  const int rc = PMPI_Cart_create(old_comm, ndims, dims, periods, reorder, comm_cart);
  if (rc == MPI_SUCCESS) communicator_created(comm_cart);
  return rc;
}

MEL_EXPORT int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                                MPI_Comm* comm_graph) {
  const int rc = PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph);
  if (rc == MPI_SUCCESS) communicator_created(comm_graph);
  return rc;
}

MEL_EXPORT int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int nodes[], const int degrees[],
                                     const int targets[], const int weights[], MPI_Info info, int reorder,
                                     MPI_Comm* newcomm) {
  const int rc = PMPI_Dist_graph_create(comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm);
  if (rc == MPI_SUCCESS) communicator_created(newcomm);
  return rc;
}

MEL_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                              const int sourceweights[], int outdegree, const int destinations[],
                                              const int destweights[], MPI_Info info, int reorder,
                                              MPI_Comm* comm_dist_graph) {
  const int rc = PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                                 destweights, info, reorder, comm_dist_graph);
  if (rc == MPI_SUCCESS) communicator_created(comm_dist_graph);
  return rc;
}

MEL_EXPORT int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader,
                                    int tag, MPI_Comm* newintercomm) {
  const int rc = PMPI_Intercomm_create(local_comm, local_leader, bridge_comm, remote_leader, tag, newintercomm);
  if (rc == MPI_SUCCESS) communicator_created(newintercomm);
  return rc;
}

MEL_EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const int rc = PMPI_Intercomm_merge(intercomm, high, newintracomm);
  if (rc == MPI_SUCCESS) communicator_created(newintracomm);
  return rc;
}

// Freed objects: handles first, while the object still exists.
MEL_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
  if (comm != nullptr) object_freed(*comm);
  return PMPI_Comm_free(comm);
}

MEL_EXPORT int MPI_Comm_disconnect(MPI_Comm* comm) {
  if (comm != nullptr) object_freed(*comm);
  return PMPI_Comm_disconnect(comm);
}

// Windows.
MEL_EXPORT int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
  if (rc == MPI_SUCCESS) window_created(win);
  return rc;
}

MEL_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                MPI_Win* win) {
  const int rc = PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  if (rc == MPI_SUCCESS) window_created(win);
  return rc;
}

MEL_EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                       MPI_Win* win) {
  const int rc = PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
  if (rc == MPI_SUCCESS) window_created(win);
  return rc;
}

MEL_EXPORT int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const int rc = PMPI_Win_create_dynamic(info, comm, win);
  if (rc == MPI_SUCCESS) window_created(win);
  return rc;
}

MEL_EXPORT int MPI_Win_free(MPI_Win* win) {
  if (win != nullptr) object_freed(*win);
  return PMPI_Win_free(win);
}
