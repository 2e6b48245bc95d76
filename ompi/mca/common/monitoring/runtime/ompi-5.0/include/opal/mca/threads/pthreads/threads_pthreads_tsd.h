/* mpimon's stand-in for a header Open MPI 5.0.x does not install (see
 * threads_pthreads_mutex.h here): thread-specific data keys are POSIX keys. */
#ifndef MPIMON_COMPAT_THREADS_PTHREADS_TSD_H
#define MPIMON_COMPAT_THREADS_PTHREADS_TSD_H

#include <pthread.h>

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key) { return pthread_key_delete(key); }
static inline int opal_tsd_set(opal_tsd_key_t key, void* value) { return pthread_setspecific(key, value); }
static inline int opal_tsd_get(opal_tsd_key_t key, void** value) {
  *value = pthread_getspecific(key);
  return 0;
}

#endif
