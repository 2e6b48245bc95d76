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
//
// This header: the logger's state and what its parts call each other (hidden: only the
// MPI_* functions are exported, event_logger.map). The parts: event_types.cpp (type
// decoding), log_output.cpp (output and the event callbacks), handle_table.cpp (the
// objects' registrations), lifecycle.cpp (MPI_Init, MPI_Finalize, publishing the log),
// pmpi_wrappers.cpp (the intercepted MPI functions, as tables).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "event_log.h"
#include "files/atomic_file.h"
#include "mpit_events.h"
#include "otf2_output.h"

namespace mpimon::mel {

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
  int reference_source = -1;  // the timeline's reference (on-demand timestamps)
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
  // MEL_FORMAT (otf2_output.h): event lines in the text log, records for the OTF2 archive.
  OutputFormats formats;
  std::unique_ptr<Trace> trace;

  // --- guarded by objects_mutex
  std::mutex objects_mutex;
  std::map<const void*, std::unique_ptr<BoundObject>> objects;  // key: the handle's value; nullptr: unbound
  std::atomic<long> live_handles{0};
};

// Leaked on purpose: callbacks may run after static destructors.
inline Logger& logger() {
  static Logger* instance = new Logger;
  return *instance;
}

constexpr size_t kMaxPending = 100000;

// --- type decoding (event_types.cpp)
std::unique_ptr<TypeSlot> describe_type(int index);
EventType complete_type(TypeSlot& slot);
void add_new_types(Logger& g);

// --- output (log_output.cpp; callers hold g.mutex)
void flush_buffer(Logger& g);
void write_text(Logger& g, const std::string& text);
double seconds_of(Logger& g, const Stamp& stamp);
void log_instance(Logger& g, TypeSlot& slot, double seconds, const unsigned char* payload, size_t size);
void log_dropped(Logger& g, TypeSlot& slot, long long count);
// The callbacks the events library calls (any thread; never throw).
void on_event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* user_data) noexcept;
void on_dropped(MPI_Count count, MPI_T_event_registration, int, MPI_T_cb_safety, void* user_data) noexcept;
void on_handle_freed(MPI_T_event_registration, MPI_T_cb_safety, void*) noexcept;

// --- registrations (handle_table.cpp)
bool allocate_handles(Logger& g, BoundObject& object, size_t first = 0, MPI_Info hint = MPI_INFO_NULL);
void free_handles(BoundObject& object);
void attach(Logger& g, int bind, const void* key, MPI_Comm comm, MPI_Win win);
void detach(Logger& g, const void* key);
void communicator_created(const MPI_Comm* comm) noexcept;
void window_created(const MPI_Win* win) noexcept;
void object_freed(const void* key) noexcept;
bool attach_every_object(Logger& g);
void free_all_handles(Logger& g);

// --- MPI_Init and MPI_Finalize (lifecycle.cpp)
void before_init(int thread_level);
void after_init();
void finish();
void disable(Logger& g);

}  // namespace mpimon::mel
