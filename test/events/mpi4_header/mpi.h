/* A stand-in for a future MPI 4.0 mpi.h: Open MPI 4.1's header, then what MPI 4.0 adds
 * for events, declared the standard's way. mpit_events.h must compile next to it
 * (events_header_with_an_mpi4_mpi_h). */
#ifndef MPIMON_TEST_MPI4_MPI_H
#define MPIMON_TEST_MPI4_MPI_H
#include_next <mpi.h>
#undef MPI_VERSION
#define MPI_VERSION 4
#define MPI_T_ERR_NOT_ACCESSIBLE 81
#define MPI_T_ERR_NOT_SUPPORTED 82
typedef struct ompi_mpi4_event_instance* MPI_T_event_instance;
typedef struct ompi_mpi4_event_registration* MPI_T_event_registration;
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED,
  MPI_T_CB_REQUIRE_THREAD_SAFE,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void*);
int MPI_T_event_get_num(int* num_events);
#endif
