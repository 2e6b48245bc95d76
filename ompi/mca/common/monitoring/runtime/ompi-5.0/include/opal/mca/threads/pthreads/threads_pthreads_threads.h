/* mpimon's stand-in for a header Open MPI 5.0.x does not install (see
 * threads_pthreads_mutex.h here): what the installed threads.h expects of the pthreads
 * component (opal_thread_yield and the idle default). Open MPI's own opal_thread_t is
 * never touched by our code. */
#ifndef MPIMON_COMPAT_THREADS_PTHREADS_THREADS_H
#define MPIMON_COMPAT_THREADS_PTHREADS_THREADS_H

#include <sched.h>

#include "opal/mca/threads/threads.h"

#define OPAL_THREAD_YIELD_WHEN_IDLE_DEFAULT false

static inline void opal_thread_yield(void) { sched_yield(); }

#endif
