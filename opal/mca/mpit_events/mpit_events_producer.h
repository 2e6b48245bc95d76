/*
 * mpimon MPI_T events: the producer side, used by our own components (PML, COLL, OSC)
 * to declare and raise events. Tools never include this; they use mpit_events.h.
 *
 * Contract (the library implements it, the components rely on it):
 *
 * - Sources and event types are registered once per process and never removed:
 *   indices are stable for the life of the process, across MPI_T init/finalize cycles.
 *   Registering a name again returns the existing index (so a component loaded,
 *   unloaded and loaded again gets the same index).
 *
 * - Listening flags. A producer keeps one byte per event type in its OWN shared object
 *   (a hidden static: reachable RIP-relative, no GOT load) and hands its address to
 *   mpimon_events_watch(). The library keeps that byte nonzero exactly while at least
 *   one live registration of the type has at least one callback. The raise fast path is
 *       if (__builtin_expect(__atomic_load_n(&flag, __ATOMIC_RELAXED), 0)) { build payload; raise }
 *   A component that may be unloaded calls mpimon_events_unwatch() before dlclose.
 *
 * - Raising. mpimon_events_raise() delivers to every live registration of the type whose
 *   bound object equals `object`, and to those bound to every object (unbound types
 *   ignore it). `context` is the callback safety the raising context requires
 *   (MPI_T_cb_safety). Per registration:
 *     a callback registered at the lowest level L >= context exists -> invoked now, unless
 *       older instances of the same source still wait for this registration (then this
 *       one waits behind them, so each registration's events stay in order);
 *     otherwise, if the registration has some callback at a lower level -> the instance
 *       (payload copied) waits in the registration's own bounded backlog and is delivered
 *       by a later raise or mpimon_events_drain() whose context that callback satisfies;
 *       other registrations are not held up;
 *     otherwise, or when the backlog is full -> dropped and counted for that
 *       registration's dropped handler.
 *   No user callback runs with a library lock held. The payload is read during the call
 *   only (copied when queued).
 *
 * - Timestamps. `timestamp` is the observation time in library clock ticks
 *   (mpimon_events_now()), or MPIMON_EVENTS_NOW: the library stamps the instance itself
 *   with the clock, at the raise (once it may deliver the source's instances, or when it
 *   queues the instance) — cheaper than calling mpimon_events_now() first, and the
 *   natural order of an ORDERED source. An ORDERED source's delivered timestamps never
 *   decrease: an instance observed earlier than one already delivered gets the later
 *   timestamp.
 *
 * - Safe points. Producers call mpimon_events_drain(context) where user callbacks may
 *   run at `context` (our wrappers' entry, the MPI_Finalize hook); the library also
 *   drains inside its own MPI_T_event_* entry points. A drain inside a callback is a no-op.
 *
 * - Objects. When an MPI object a type can be bound to is freed, the producer calls
 *   mpimon_events_object_freed(bind, object): registrations bound to it receive nothing
 *   more (a new object at the same address does not revive them).
 */
#ifndef MPIMON_MPIT_EVENTS_PRODUCER_H
#define MPIMON_MPIT_EVENTS_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "mpit_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One element of an event's payload: its name (an item of the event type's element
 * enum), a basic MPI datatype and its byte displacement in the payload. */
typedef struct mpimon_event_element {
  const char* name;
  MPI_Datatype datatype;
  MPI_Aint displacement;
} mpimon_event_element;

typedef struct mpimon_event_type_desc {
  const char* name;        /* unique, e.g. "mpimon_pml_send_posted" */
  const char* description; /* may be "" */
  int verbosity;           /* MPI_T_VERBOSITY_* */
  int bind;                /* MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_WIN ... */
  int source_index;
  const mpimon_event_element* elements;
  int num_elements;      /* elements ascending by displacement, first at 0 */
  size_t payload_extent; /* bytes MPI_T_event_copy writes */
  /* Optional NULL-terminated key, value, key, value, ..., NULL list copied into the info
   * object MPI_T_event_get_info returns (e.g. "mpimon_enum_kind" -> "put,get,..."). */
  const char* const* info;
} mpimon_event_type_desc;

/* Register (or find by name) a source. All sources share the library clock
 * (mpimon_events_now()); `ordering` is what the source promises. 0 or an MPI_T error. */
int mpimon_events_register_source(const char* name, const char* description, MPI_T_source_order ordering,
                                  int* source_index);

/* Register (or find by name) an event type. 0 or an MPI_T error. */
int mpimon_events_register_type(const mpimon_event_type_desc* type, int* event_index);

/* Index of a registered event type by name, or -1. */
int mpimon_events_find_type(const char* name);

/* Mirror "type has a listener" into a producer-owned byte (see above). */
void mpimon_events_watch(int event_index, unsigned char* flag);
void mpimon_events_unwatch(int event_index, unsigned char* flag);

/* The same, and `changed(arg)` is called right after the byte changes (and once now), so
 * that a producer can install or remove wrappers that exist only for listeners. It runs
 * with the library's control lock held, on the thread that changed the registrations:
 * it must be short and must not call this library. Unwatch with mpimon_events_unwatch. */
typedef void mpimon_events_changed_fn(void* arg);
void mpimon_events_watch_notify(int event_index, unsigned char* flag, mpimon_events_changed_fn* changed, void* arg);

/* The library clock, in ticks of every source (cheap: safe to call on the raise path). */
MPI_Count mpimon_events_now(void);

/* A timestamp for mpimon_events_raise: "now", read by the library (see above). */
#define MPIMON_EVENTS_NOW ((MPI_Count)-1)

/* Deliver (or queue, or drop) one instance. `timestamp` is the observation time
 * (mpimon_events_now() when the event happened) or MPIMON_EVENTS_NOW. Not checked (this
 * is the hot path): `event_index` is an index this API returned, `context` a valid
 * MPI_T_cb_safety. */
void mpimon_events_raise(int event_index, const void* object, const void* payload, MPI_Count timestamp,
                         MPI_T_cb_safety context);

/* Deliver queued instances whose callbacks accept `context`. */
void mpimon_events_drain(MPI_T_cb_safety context);

/* Objects of kind `bind` at `object` (the handle value, e.g. (const void *)comm) are gone. */
void mpimon_events_object_freed(int bind, const void* object);

/* The objects MPI_T handle allocations name (our performance variables use them too).
 * mpimon_mpi_object_is_live: `object` is a live communicator (bind MPI_T_BIND_MPI_COMM;
 * MPI_COMM_NULL is not), window (MPI_T_BIND_MPI_WIN; MPI_WIN_NULL is not) or file
 * (MPI_T_BIND_MPI_FILE; MPI_FILE_NULL is not) of this process, judged by Open MPI's tables of live objects: `object`'s
 * memory is never read. Other kinds: any non-NULL object. O(live objects of the kind). mpimon_mpi_object_named: the
 * live object of kind `bind` that `obj_handle` names, the address of a variable holding its handle (the standard's
 * form) or the handle itself (what Open MPI's own monitoring tests pass), else NULL. Never faults, whatever
 * `obj_handle` points to. */
int mpimon_mpi_object_is_live(int bind, const void* object);
const void* mpimon_mpi_object_named(int bind, const void* obj_handle);

#ifdef __cplusplus
}
#endif

#endif
