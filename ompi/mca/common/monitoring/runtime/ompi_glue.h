// The Open MPI internal headers our adapters need, made to compile as C++20.
// Include this first (ompi_config.h must come before any other Open MPI header).
#pragma once

#include <ompi_config.h>

#include <opal/threads/thread_usage.h>
// 4.1.4's request.h passes a void** through this macro as void*, which C++ rejects.
#undef OPAL_THREAD_COMPARE_EXCHANGE_STRONG_PTR
#undef OPAL_ATOMIC_COMPARE_EXCHANGE_STRONG_PTR
#define OPAL_THREAD_COMPARE_EXCHANGE_STRONG_PTR(x, y, z) \
  opal_thread_compare_exchange_strong_ptr((volatile intptr_t*)(x), (void**)(y), (void*)(z))
#define OPAL_ATOMIC_COMPARE_EXCHANGE_STRONG_PTR OPAL_THREAD_COMPARE_EXCHANGE_STRONG_PTR

#include <ompi/communicator/communicator.h>
#include <ompi/datatype/ompi_datatype.h>
#include <ompi/group/group.h>
#include <ompi/proc/proc.h>
#include <ompi/request/request.h>

// 4.1.4's pvar header lacks extern "C".
extern "C" {
#include <opal/mca/base/mca_base_pvar.h>
}
