/*
 * The catalogue of communication events our components raise: names, payload layouts,
 * enums. Registered by the events library when it loads (so tools see them right after
 * MPI_T_init_thread, before MPI_Init); raised by ompi/mca/{pml,coll,osc}/monitoring.
 * docs/events.md documents the same table for users.
 */
#ifndef MPIMON_COMMUNICATION_EVENTS_H
#define MPIMON_COMMUNICATION_EVENTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Point-to-point (source "mpimon_pml"), bound to the communicator. */
#define MPIMON_EVENT_PML_SEND_POSTED "mpimon_pml_send_posted"
#define MPIMON_EVENT_PML_RECV_POSTED "mpimon_pml_recv_posted"
#define MPIMON_EVENT_PML_SEND_COMPLETED "mpimon_pml_send_completed"
#define MPIMON_EVENT_PML_RECV_COMPLETED "mpimon_pml_recv_completed"
typedef struct mpimon_pml_event {
  int32_t comm_id;        /* communicator context id (MPI_INT) */
  int32_t peer;           /* peer's MPI_COMM_WORLD rank; -1 for MPI_ANY_SOURCE before completion */
  int32_t peer_comm_rank; /* peer's rank in the communicator (MPI_ANY_SOURCE as posted) */
  int32_t tag;            /* MPI_ANY_TAG as posted for receives; the matched tag at completion */
  uint64_t bytes;         /* packed bytes (posted: the buffer's size; completed: received) */
  uint64_t request;       /* the request's address: pairs posted with completed */
} mpimon_pml_event;

/* Collectives (source "mpimon_coll"), bound to the communicator. Blocking: begin at
 * entry, end on return. Nonblocking: begin at the call, end at request completion. */
#define MPIMON_EVENT_COLL_BEGIN "mpimon_coll_begin"
#define MPIMON_EVENT_COLL_END "mpimon_coll_end"
/* clang-format off */
#define MPIMON_COLL_KINDS(X)                                                                 \
  X(allgather) X(allgatherv) X(allreduce) X(alltoall) X(alltoallv) X(alltoallw) X(barrier)   \
  X(bcast) X(exscan) X(gather) X(gatherv) X(reduce) X(reduce_scatter)                        \
  X(reduce_scatter_block) X(scan) X(scatter) X(scatterv) X(iallgather) X(iallgatherv)        \
  X(iallreduce) X(ialltoall) X(ialltoallv) X(ialltoallw) X(ibarrier) X(ibcast) X(iexscan)    \
  X(igather) X(igatherv) X(ireduce) X(ireduce_scatter) X(ireduce_scatter_block) X(iscan)     \
  X(iscatter) X(iscatterv) X(neighbor_allgather) X(neighbor_allgatherv) X(neighbor_alltoall) \
  X(neighbor_alltoallv) X(neighbor_alltoallw) X(ineighbor_allgather)                         \
  X(ineighbor_allgatherv) X(ineighbor_alltoall) X(ineighbor_alltoallv)                       \
  X(ineighbor_alltoallw)
/* clang-format on */
#define MPIMON_COLL_KIND_ENUMERATOR(name) MPIMON_COLL_KIND_##name,
enum mpimon_coll_kind { MPIMON_COLL_KINDS(MPIMON_COLL_KIND_ENUMERATOR) MPIMON_COLL_KIND_COUNT };
#undef MPIMON_COLL_KIND_ENUMERATOR
typedef struct mpimon_coll_event {
  int32_t comm_id;  /* communicator context id */
  int32_t kind;     /* enum mpimon_coll_kind; names in the event info "mpimon_enum_kind" */
  int32_t root;     /* the root argument as given; -1 for rootless collectives */
  int32_t pad;      /* (not an element) */
  uint64_t bytes;   /* bytes this process sends in the collective (the COLL accounting rules) */
  uint64_t request; /* the request's address for nonblocking collectives, else 0 */
} mpimon_coll_event;

/* One-sided (source "mpimon_osc"), bound to the window. */
#define MPIMON_EVENT_OSC_OP_ISSUED "mpimon_osc_op_issued"
#define MPIMON_EVENT_OSC_SYNC_BEGIN "mpimon_osc_sync_begin"
#define MPIMON_EVENT_OSC_SYNC_END "mpimon_osc_sync_end"
/* clang-format off */
#define MPIMON_OSC_OP_KINDS(X)                                                                \
  X(put) X(rput) X(get) X(rget) X(accumulate) X(raccumulate) X(get_accumulate)                \
  X(rget_accumulate) X(fetch_and_op) X(compare_and_swap)
/* clang-format on */
#define MPIMON_OSC_OP_ENUMERATOR(name) MPIMON_OSC_OP_##name,
enum mpimon_osc_op_kind { MPIMON_OSC_OP_KINDS(MPIMON_OSC_OP_ENUMERATOR) MPIMON_OSC_OP_COUNT };
#undef MPIMON_OSC_OP_ENUMERATOR
/* Same order as mpimon::SyncKind (analyses/window_sync.h). */
/* clang-format off */
#define MPIMON_OSC_SYNC_KINDS(X)                                                              \
  X(fence) X(start) X(complete) X(post) X(wait) X(test) X(lock) X(unlock) X(lock_all)         \
  X(unlock_all) X(sync) X(flush) X(flush_all) X(flush_local) X(flush_local_all)
/* clang-format on */
typedef struct mpimon_osc_op_event {
  int32_t win_id;      /* the window's index (MPI_Win_c2f) */
  int32_t kind;        /* enum mpimon_osc_op_kind; names in the event info "mpimon_enum_kind" */
  int32_t target;      /* target's MPI_COMM_WORLD rank */
  int32_t target_rank; /* target's rank in the window's group */
  uint64_t bytes_sent; /* origin data sent */
  uint64_t bytes_recv; /* data received back (get, get_accumulate, fetch_and_op, cas) */
} mpimon_osc_op_event;
typedef struct mpimon_osc_sync_event {
  int32_t win_id;
  int32_t kind;   /* sync kind in MPIMON_OSC_SYNC_KINDS order; names in "mpimon_enum_kind" */
  int32_t target; /* lock/unlock/flush target's window rank; -1 otherwise */
  int32_t result; /* end only: the call's MPI return code (0 at begin) */
} mpimon_osc_sync_event;

/* One-sided wait states (source "mpimon_osc"), bound to the window; raised when
 * osc_monitoring_wait_states is 1 and a wait state is detected, at the end of the
 * synchronisation call that closed the epoch. Patterns in the order of the
 * osc_monitoring_wait_time performance variable. */
#define MPIMON_EVENT_OSC_WAIT_STATE "mpimon_osc_wait_state"
/* clang-format off */
#define MPIMON_OSC_WAIT_PATTERNS(X)                                                          \
  X(late_post) X(early_transfer) X(early_wait) X(late_complete) X(wait_at_fence)              \
  X(early_fence) X(lock_competition)
/* clang-format on */
typedef struct mpimon_osc_wait_event {
  int32_t win_id;  /* the window's index (MPI_Win_c2f) */
  int32_t pattern; /* in MPIMON_OSC_WAIT_PATTERNS order; names in "mpimon_enum_pattern" */
  int32_t waiter;  /* MPI_COMM_WORLD rank of the process that waited (this one) */
  int32_t culprit; /* MPI_COMM_WORLD rank of the process it waited for */
  double seconds;  /* how long */
} mpimon_osc_wait_event;

/* MPI-IO (source "mpimon_io"), bound to the file (MPI_T_BIND_MPI_FILE). Access: raised
 * when a data-access call returns (its time is the call's); file-system operation:
 * ompio handed an operation to the file's fbtl (ompio only). */
#define MPIMON_EVENT_IO_ACCESS "mpimon_io_access"
#define MPIMON_EVENT_IO_FS_OPERATION "mpimon_io_fs_operation"
/* Same order as mpimon::mpi_io::Access (file_record.h). */
/* clang-format off */
#define MPIMON_IO_ACCESS_KINDS_C(X)                                                          \
  X(read_at) X(read_at_all) X(read) X(read_all) X(read_shared) X(read_ordered)               \
  X(write_at) X(write_at_all) X(write) X(write_all) X(write_shared) X(write_ordered)
/* clang-format on */
#define MPIMON_IO_CALLS(X) X(blocking) X(nonblocking) X(split)
typedef struct mpimon_io_access_event {
  int32_t file_id; /* MPI_File_c2f of the file */
  int32_t kind;    /* in MPIMON_IO_ACCESS_KINDS_C order; names in "mpimon_enum_kind" */
  int32_t call;    /* blocking, nonblocking (MPI_File_i...), split (..._begin); "mpimon_enum_call" */
  int32_t result;  /* the call's MPI return code */
  int64_t offset;  /* _at: the explicit offset; individual pointer: the pointer before the
                      call (both in etypes of the view); shared pointer: -1 */
  uint64_t bytes;  /* asked: count x type size */
  double seconds;  /* time inside the call */
} mpimon_io_access_event;
typedef struct mpimon_io_fs_event {
  int32_t file_id;   /* MPI_File_c2f of the file */
  int32_t direction; /* 0 read, 1 write */
  int64_t offset;    /* byte offset of the first entry in the file */
  uint64_t bytes;    /* the entries' lengths, summed */
  uint64_t entries;  /* (offset, length) pieces of the operation */
} mpimon_io_fs_event;

/* Register the sources and event types above (idempotent). The library calls it when it
 * is loaded, before any component can; the components look the indices up by name. */
void mpimon_register_communication_events(void);

#ifdef __cplusplus
}
#endif

#endif
