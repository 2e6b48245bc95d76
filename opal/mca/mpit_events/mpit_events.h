/*
 * mpimon MPI_T events: the MPI 4.0 "Events" interface of the tool information
 * interface (MPI 4.0, section 15.3.8), for Open MPI 4.1 (an MPI 3.1 library that has
 * none of it). Tools include this header and link libmpimon_mpit_events before -lmpi.
 *
 * Every function returns MPI_SUCCESS or an MPI_T error class, and every one of them
 * returns MPI_T_ERR_NOT_INITIALIZED outside MPI_T_init_thread ... MPI_T_finalize (the
 * interface works before MPI_Init and after MPI_Finalize as long as MPI_T is
 * initialized).
 *
 * Library-specific choices (the standard leaves them open):
 * - Inside an event, dropped or free callback, only MPI_T_event_read, _copy,
 *   _get_timestamp, _get_source, MPI_T_source_get_timestamp, MPI_T_source_get_num,
 *   MPI_T_event_get_num, MPI_T_event_get_index and MPI_T_event_handle_free may be
 *   called; every other function of this header returns MPI_T_ERR_NOT_ACCESSIBLE.
 * - Info arguments: one hint is defined, MPIMON_EVENTS_EVERY_OBJECT (below); other keys
 *   are accepted and ignored. The info_used outputs are new info objects holding the
 *   hints in use. Before MPI_Init (and after MPI_Finalize) Open
 *   MPI 4.1 forbids MPI_Info_create, so info outputs made then are built directly on
 *   Open MPI's info class: MPI_Info_get/_free work on them once MPI is initialised, but
 *   they have no Fortran handle (MPI_Info_c2f).
 * - All sources share one clock (rdtsc on x86-64 with an invariant TSC, else
 *   CLOCK_MONOTONIC nanoseconds); timestamps of an ORDERED source never decrease in
 *   delivery order (an observation older than the previous delivered one is raised to it).
 * - Event types are listed in the MPI_T category "mpimon_events".
 */
#ifndef MPIMON_MPIT_EVENTS_H
#define MPIMON_MPIT_EVENTS_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if MPI_VERSION < 4
/* Error classes MPI 4.0 adds (values as in later Open MPI releases). MPI_Error_string
 * and MPI_Error_class of this library name and classify them. */
#ifndef MPI_T_ERR_NOT_ACCESSIBLE
#define MPI_T_ERR_NOT_ACCESSIBLE 81
#endif
#ifndef MPI_T_ERR_NOT_SUPPORTED
#define MPI_T_ERR_NOT_SUPPORTED 82
#endif
/* Binding to an MPI session (MPI 4.0); Open MPI 4.1's bind enum ends at
 * MPI_T_BIND_MPI_INFO (10). */
#define MPI_T_BIND_MPI_SESSION 11

/* Everything below is declared by an MPI 4.0 mpi.h itself: with one, this header adds
 * nothing (the #if above covers the whole file). */

/* An event instance: valid only inside the event callback that received it. */
typedef struct mpimon_mpit_event_instance* MPI_T_event_instance;
/* A registration (handle) for one event type, possibly bound to one MPI object. */
typedef struct mpimon_mpit_event_registration* MPI_T_event_registration;

/* What a calling context requires of a callback, in increasing strictness. */
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
  MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;

/* Whether successive events of a source have monotonic timestamps. */
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED = 1 } MPI_T_source_order;

/* Called for each delivered instance; `cb_safety` is what the current context requires. */
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance, MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void* user_data);
/* Called once when a freed registration can no longer receive callbacks. */
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          void* user_data);
/* Called with the number of instances a registration missed (saturating at the largest
 * MPI_Count) before the next instance of `source_index` is delivered to it. */
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void* user_data);

/* ---- Sources ---------------------------------------------------------------------- */

/* Number of event sources (grows only; indices are stable for the process).
 * MPI_T_ERR_INVALID if num_sources is NULL. */
int MPI_T_source_get_num(int* num_sources);

/* Describe a source. NULL outputs are ignored. name/desc lengths are in/out as in
 * MPI_T_pvar_get_info (at most *len bytes written including the NUL, *len set to the
 * length written or, when 0 or name NULL, to the length needed). `info` receives a new
 * info object the caller frees, with the key MPIMON_EVENTS_CLOCK. MPI_T_ERR_INVALID_INDEX
 * for a bad index. */
/* The source info key naming the clock the source's timestamps count ("tsc" or
 * "monotonic"): timestamps of sources naming the same clock, with the same ticks per
 * second, compare directly (MPI_T alone promises that only within one source). */
#define MPIMON_EVENTS_CLOCK "mpimon_clock"

int MPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                          MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                          MPI_Info* info);

/* The source's current time. MPI_T_ERR_INVALID_INDEX for a bad index,
 * MPI_T_ERR_NOT_SUPPORTED if the source cannot give a timestamp on demand,
 * MPI_T_ERR_INVALID if timestamp is NULL. */
int MPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp);

/* ---- Event types ------------------------------------------------------------------ */

/* Number of event types (grows only; indices are stable for the process). */
int MPI_T_event_get_num(int* num_events);

/* Describe an event type. Any NULL output is ignored; if num_elements is NULL both
 * arrays are ignored. *num_elements is in/out: at most that many datatypes and
 * displacements (bytes, ascending from 0) are written, and the true count is returned.
 * `enumtype` receives an MPI_T_enum whose items name the elements (use
 * MPI_T_enum_get_info / MPI_T_enum_get_item). `info` receives a new info object with the
 * type's descriptive keys. `bind` is an MPI_T_BIND_* constant. An empty description is
 * returned as "" with *desc_len 1. MPI_T_ERR_INVALID_INDEX for a bad index. */
int MPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity, MPI_Datatype array_of_datatypes[],
                         MPI_Aint array_of_displacements[], int* num_elements, MPI_T_enum* enumtype, MPI_Info* info,
                         char* desc, int* desc_len, int* bind);

/* Index of the event type called `name`: MPI_T_ERR_INVALID_NAME if none,
 * MPI_T_ERR_INVALID if an argument is NULL. */
int MPI_T_event_get_index(const char* name, int* event_index);

/* ---- Registrations ---------------------------------------------------------------- */

/* Allocate a registration for an event type. For a bound type, obj_handle is the
 * ADDRESS of a variable holding the object's handle (e.g. &comm; the handle itself is
 * accepted too) and only events of that object are delivered. The object must be a live
 * object of the type's kind (MPI_COMM_WORLD and MPI_COMM_SELF also before MPI_Init):
 * NULL, MPI_COMM_NULL, MPI_WIN_NULL, a freed object or one of another kind gives
 * MPI_T_ERR_INVALID_HANDLE. Unbound types ignore obj_handle. With the hint
 * MPIMON_EVENTS_EVERY_OBJECT = "true" in `info`, a bound type's registration receives
 * the events of every object of its kind, also Open MPI's internal communicators that
 * the application never sees, and obj_handle is ignored. Nothing is delivered until a
 * callback is registered. */
int MPI_T_event_handle_alloc(int event_index, void* obj_handle, MPI_Info info,
                             MPI_T_event_registration* event_registration);

/* Hints for a registration after its allocation: accepted and ignored. */
int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);

/* The hints in use: a new info object the caller frees (MPIMON_EVENTS_EVERY_OBJECT =
 * "true" for a registration allocated with it, else empty). */
int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info* info_used);

/* Set the callback of a registration for one safety level (at most one per level:
 * registering again replaces it, a NULL function removes it). An instance raised where
 * level C is required goes to the callback of the lowest level >= C; if only callbacks
 * of lower levels exist it is buffered and delivered at the next point that allows one
 * of them (the library's safe points and its own MPI_T_event_* calls); the buffer is the
 * registration's own, so it never costs another registration its instances; if it is
 * full the instance is dropped for this registration and counted. MPI_T_ERR_INVALID for
 * a bad cb_safety. */
int MPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info,
                                  void* user_data, MPI_T_event_cb_function event_cb_function);

/* Hints for one callback (none are defined: accepted and ignored). */
int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info info);

/* The hints in use for one callback: a new (empty) info object the caller frees. */
int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                  MPI_Info* info_used);

/* Start freeing a registration: no callback starts after this returns, and
 * free_cb_function (if not NULL) runs exactly once after the last callback of the
 * registration returned -- immediately, or when a callback in progress returns (also when
 * a callback frees its own registration). The handle is invalid afterwards. */
int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data,
                            MPI_T_event_free_cb_function free_cb_function);

/* Set (replace; NULL removes) the handler told how many instances the registration
 * missed since the handler was set or last called. It is called before the next
 * instance of the same source is delivered to the registration, with the user_data of
 * the callback selected for that delivery. */
int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                    MPI_T_event_dropped_cb_function dropped_cb_function);

/* ---- Instances (inside an event callback) ------------------------------------------- */

/* Copy element `element_index` of the instance into buffer (the element's datatype
 * size). MPI_T_ERR_INVALID_INDEX for an index outside 0..num_elements-1,
 * MPI_T_ERR_INVALID_HANDLE for an instance that is not being delivered. */
int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer);

/* Copy every element to buffer at its advertised displacement (nothing at or past the
 * type's extent is written). */
int MPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer);

/* The observation time of the instance, in ticks of its source. */
int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp);

/* The index of the source that raised the instance. */
int MPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index);

/* ---- Categories ------------------------------------------------------------------- */

/* Number of event types in an MPI_T category (Open MPI's category indices; our types are
 * in "mpimon_events", every other category has none). MPI_T_ERR_INVALID_INDEX for a bad
 * index. */
int MPI_T_category_get_num_events(int cat_index, int* num_events);

/* The first min(len, number) event indices of a category. */
int MPI_T_category_get_events(int cat_index, int len, int indices[]);

#endif /* MPI_VERSION < 4 */

/* The hint (an info key of MPI_T_event_handle_alloc, value "true") that binds a
 * registration to every object of its type's kind. */
#define MPIMON_EVENTS_EVERY_OBJECT "mpimon_every_object"

#ifdef __cplusplus
}
#endif

#endif
