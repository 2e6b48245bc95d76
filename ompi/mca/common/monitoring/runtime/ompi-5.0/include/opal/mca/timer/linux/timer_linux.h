/* mpimon's stand-in for a header Open MPI 5.0.x does not install (see
 * opal/mca/threads/pthreads/threads_pthreads_mutex.h here): which timer services the
 * linux timer component provides natively. Open MPI's timer functions themselves are
 * in libopen-pal; our code keeps its own clock (opal/mca/mpit_events/clock.cpp). */
#ifndef MPIMON_COMPAT_TIMER_LINUX_H
#define MPIMON_COMPAT_TIMER_LINUX_H

#include "opal/sys/timer.h"
#include "opal_config.h"

#define OPAL_TIMER_CYCLE_NATIVE OPAL_HAVE_SYS_TIMER_GET_CYCLES
#define OPAL_TIMER_CYCLE_SUPPORTED OPAL_HAVE_SYS_TIMER_GET_CYCLES
#define OPAL_TIMER_USEC_NATIVE OPAL_HAVE_SYS_TIMER_GET_CYCLES
#define OPAL_TIMER_USEC_SUPPORTED OPAL_HAVE_SYS_TIMER_GET_CYCLES

#endif
