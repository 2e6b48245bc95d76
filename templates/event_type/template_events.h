/* TEMPLATE: a new event type (docs/extending.md, "A new event type").
 *
 * An MPI_T event type tools can register callbacks for (MPI 4.0, chapter 15.3.8), raised
 * by one of our layers. This template registers one source and one type and raises it
 * with the listening flag's one-compare fast path. In the product:
 *   - the payload struct and the name go in the catalogue's header, which tools include to
 *     read payloads (opal/mca/mpit_events/communication_events.h: one struct per type, C);
 *   - the registration goes in the catalogue (communication_events.cpp: one function per
 *     layer, after the existing ones: indices stay stable for tools that cache them);
 *   - the raise goes in the layer's events file (ompi/mca/<fw>/monitoring/<fw>_monitoring_events.cpp);
 *   - the type is documented in docs/events.md and tested in test/events/conformance/
 *     (catalogue_test.cpp) and by an MPI test that sees it raised (test/mpi/events_test.cpp).
 * C: tools written in C include catalogue headers. */
#ifndef MPIMON_TEMPLATE_EVENTS_H
#define MPIMON_TEMPLATE_EVENTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIMON_EVENT_TEMPLATE_HAPPENED "mpimon_template_happened"

/* The payload, as MPI_T_event_copy writes it: elements at fixed displacements, no
 * pointers (a payload is copied when an instance is queued). */
typedef struct mpimon_template_event {
  int32_t peer;   /* element "peer": a world rank */
  int32_t pad;    /* not an element (alignment) */
  uint64_t bytes; /* element "bytes" */
} mpimon_template_event;

/* Registers the source "mpimon_template" and the type (once; later calls do nothing), and
 * watches its listening flag. Real catalogues run from the layer component's open. */
void mpimon_register_template_events(void);

/* Raises the event if a tool listens: one relaxed load when nobody does. */
void mpimon_template_raise(int32_t peer, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif
