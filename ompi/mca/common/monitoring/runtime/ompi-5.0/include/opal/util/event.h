/* Open MPI 5.0.x's opal/util/event.h opens `extern "C" {` twice and closes it once
 * (fixed upstream after 5.0: commit f8c15c5df0), so every C++ file that includes it
 * would continue in C linkage. This wrapper includes the real header and closes the
 * block it leaves open. */
#ifndef MPIMON_COMPAT_OPAL_UTIL_EVENT_H
#define MPIMON_COMPAT_OPAL_UTIL_EVENT_H
#include_next <opal/util/event.h>
#ifdef __cplusplus
}
#endif
#endif
