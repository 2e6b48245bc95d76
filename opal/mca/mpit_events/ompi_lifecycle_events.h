/*
 * Open MPI main's own MPI_T events (main/6.0: ompi/runtime/ompi_mpit_register_events.c,
 * specs/mpi-t-events/spec.md section 7), under main's names and element layouts, for the
 * moments our components already see: the end of MPI_Init and the start of MPI_Finalize
 * (our runtime's hooks), a communicator our COLL layer is enabled on or released from, a
 * window our OSC layer selects or frees. A tool written against main's
 * events then works on 4.1 and 5.0 with mpimon. Registered with the rest of our
 * catalogue when the events library loads; raised by ompi/mca/{coll,osc}/monitoring and
 * the runtime (common/monitoring/runtime/lifecycle_events_ompi.cpp).
 * docs/events.md ("Open MPI main's lifecycle events") documents them for users;
 * docs/open-mpi-5.md ("Open MPI 6.0 / main") says what differs from main.
 */
#ifndef MPIMON_OMPI_LIFECYCLE_EVENTS_H
#define MPIMON_OMPI_LIFECYCLE_EVENTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The source main raises them on (ORDERED) and the full names tools see there: main's
 * mca_base_event_register prefixes "ompi." to the names its producers register
 * ("mpi.communicator_created" ...). All NO_OBJECT, as in main. */
#define MPIMON_OMPI_SOURCE "ompi"
#define MPIMON_EVENT_OMPI_INITIALIZATION "ompi.mpi.initialization"
#define MPIMON_EVENT_OMPI_FINALIZATION "ompi.mpi.finalization"
#define MPIMON_EVENT_OMPI_COMM_CREATED "ompi.mpi.communicator_created"
#define MPIMON_EVENT_OMPI_COMM_FREED "ompi.mpi.communicator_freed"
#define MPIMON_EVENT_OMPI_WIN_CREATED "ompi.mpi.win_created"
#define MPIMON_EVENT_OMPI_WIN_FREED "ompi.mpi.win_freed"

/* The payloads, element for element main's (MPI_INT32_T, MPI_INT64_T, MPI_UINT64_T at
 * the same displacements; handles are the MPI handle's value, an opaque token pairing
 * created with freed). */
/* The "model" element: main's OMPI_T_MODEL_WORLD (its mpi.h); 4.1 and 5.0 have only the
 * world model for us (5.0's sessions do not start our layers). */
#define MPIMON_OMPI_T_MODEL_WORLD 0
typedef struct mpimon_ompi_initialization_event {
  int32_t model;        /* MPIMON_OMPI_T_MODEL_WORLD */
  int32_t thread_level; /* the thread support MPI_Init_thread provides */
  int32_t world_rank;
  int32_t world_size;
  uint64_t instance_id; /* a token pairing initialization with finalization */
} mpimon_ompi_initialization_event;
typedef struct mpimon_ompi_finalization_event {
  int32_t model;
  int32_t world_rank;
  uint64_t instance_id; /* as at initialization */
} mpimon_ompi_finalization_event;
typedef struct mpimon_ompi_comm_created_event {
  int32_t size;    /* the communicator's (local group's) size */
  int32_t pad;     /* (not an element) */
  uint64_t handle; /* the MPI_Comm */
} mpimon_ompi_comm_created_event;
typedef struct mpimon_ompi_comm_freed_event {
  uint64_t handle; /* the MPI_Comm */
} mpimon_ompi_comm_freed_event;
typedef struct mpimon_ompi_win_created_event {
  int64_t size;      /* this process's window size in bytes (0 for dynamic windows) */
  int32_t disp_unit; /* as given (1 for dynamic windows) */
  int32_t flavor;    /* MPI_WIN_FLAVOR_CREATE, _ALLOCATE, _DYNAMIC, _SHARED */
  uint64_t handle;   /* the MPI_Win */
} mpimon_ompi_win_created_event;
typedef struct mpimon_ompi_win_freed_event {
  int32_t flavor;  /* as at creation */
  uint32_t pad;    /* (not an element) */
  uint64_t handle; /* the MPI_Win */
} mpimon_ompi_win_freed_event;

/* Register the source and the six event types (idempotent). */
void mpimon_register_ompi_lifecycle_events(void);

#ifdef __cplusplus
}
#endif

#endif
