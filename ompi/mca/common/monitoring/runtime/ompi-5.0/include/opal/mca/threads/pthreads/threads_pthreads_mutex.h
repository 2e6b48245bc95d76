/* mpimon's stand-in for a header Open MPI 5.0.x does not install (opal_config.h names
 * it; docs/open-mpi-5.md, "Missing headers"). Open MPI's pthreads threads component
 * builds its mutexes and condition variables directly on POSIX threads; this declares
 * the same types (so every struct that embeds an opal_mutex_t keeps its layout, which
 * the test OpenMpi5Headers.LayoutsMatchDebianSource checks) and thin wrappers with the
 * behaviour of a release build (no error checking). */
#ifndef MPIMON_COMPAT_THREADS_PTHREADS_MUTEX_H
#define MPIMON_COMPAT_THREADS_PTHREADS_MUTEX_H

#include <pthread.h>
#include <stdbool.h>

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t* mutex, bool recursive) {
  pthread_mutexattr_t attributes;
  int rc = pthread_mutexattr_init(&attributes);
  if (rc != 0) return rc;
  if (recursive) pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
  rc = pthread_mutex_init(mutex, &attributes);
  pthread_mutexattr_destroy(&attributes);
  return rc;
}
static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t* mutex) { pthread_mutex_lock(mutex); }
static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t* mutex) {
  return pthread_mutex_trylock(mutex);
}
static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t* mutex) {
  pthread_mutex_unlock(mutex);
}
static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t* mutex) {
  pthread_mutex_destroy(mutex);
}

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t* cond) {
  return pthread_cond_init(cond, NULL);
}
static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t* cond,
                                                  opal_thread_internal_mutex_t* mutex) {
  pthread_cond_wait(cond, mutex);
}
static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t* cond) {
  pthread_cond_broadcast(cond);
}
static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t* cond) { pthread_cond_signal(cond); }
static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t* cond) { pthread_cond_destroy(cond); }

#endif
