/*
 * Internal hooks of the events library for its own tests (not installed; components do
 * not use them). Exported by libmpimon_mpit_events.
 */
#ifndef MPIMON_MPIT_EVENTS_TESTING_H
#define MPIMON_MPIT_EVENTS_TESTING_H

#include "mpit_events_producer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Source flags for mpimon_events_register_source_ex. */
enum { MPIMON_EVENTS_SOURCE_NO_TIMESTAMP = 1 /* MPI_T_source_get_timestamp: NOT_SUPPORTED */ };

/* mpimon_events_register_source with flags (0 = the same as the plain call). */
int mpimon_events_register_source_ex(const char* name, const char* description, MPI_T_source_order ordering, int flags,
                                     int* source_index);

/* Preset a registration's dropped-instance counter (to test saturation). */
int mpimon_events_test_set_dropped(MPI_T_event_registration registration, MPI_Count count);

/* Read one key of an info object returned by this library (works before MPI_Init, where
 * MPI_Info_get may not be called): 1 and the value if present, 0 if absent. */
int mpimon_events_test_info_get(MPI_Info info, const char* key, char* value, int value_len);

/* A new info object holding `key` = `value`, made like this library's info outputs (also
 * before MPI_Init, where MPI_Info_create may not be called); free it with the next one. */
MPI_Info mpimon_events_test_info_make(const char* key, const char* value);

/* Free an info object returned by this library (also before MPI_Init). */
void mpimon_events_test_info_free(MPI_Info* info);

/* Capacity of a source's buffer of pending instances. */
int mpimon_events_test_ring_capacity(void);

#ifdef __cplusplus
}
#endif

#endif
