// Open MPI 4.1 series: what differs from 5.0 in the internals our components touch
// (docs/open-mpi-5.md, "One source tree"). CMake puts this folder on the include path
// when it finds a 4.1.x Open MPI; ompi-5.0/ompi_series.h declares the same names.
// Included by ompi_glue.h, first (ompi_config.h must precede every Open MPI header).
#pragma once

#include <ompi_config.h>

#include <cstdint>

// These opal/mca/base headers lack extern "C" (in 4.1.4 and 5.0.7); the first inclusion
// decides the linkage, so they come first, here.
extern "C" {
#include <opal/mca/base/mca_base_framework.h>
#include <opal/mca/base/mca_base_pvar.h>
#include <opal/mca/base/mca_base_var_enum.h>
#include <opal/mca/base/mca_base_var_group.h>
}
#include <opal/threads/thread_usage.h>
// 4.1.4's request.h passes a void** through this macro as void*, which C++ rejects.
#undef OPAL_THREAD_COMPARE_EXCHANGE_STRONG_PTR
#undef OPAL_ATOMIC_COMPARE_EXCHANGE_STRONG_PTR
#define OPAL_THREAD_COMPARE_EXCHANGE_STRONG_PTR(x, y, z) \
  opal_thread_compare_exchange_strong_ptr((volatile intptr_t*)(x), (void**)(y), (void*)(z))
#define OPAL_ATOMIC_COMPARE_EXCHANGE_STRONG_PTR OPAL_THREAD_COMPARE_EXCHANGE_STRONG_PTR

#include <ompi/communicator/communicator.h>
#include <opal/util/info.h>

// Component structs and the version stamps of the frameworks' APIs (macros: they expand
// to several designated initializers).
#define MPIMON_PML_COMPONENT_TYPE mca_pml_base_component_2_0_0_t
#define MPIMON_PML_BASE_VERSION MCA_PML_BASE_VERSION_2_0_0
#define MPIMON_COLL_COMPONENT_TYPE mca_coll_base_component_2_0_0_t
#define MPIMON_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
#define MPIMON_OSC_BASE_VERSION OMPI_OSC_BASE_VERSION_3_0_0

namespace mpimon::ompi_series {

inline constexpr const char* kName = "4.1";

// A communicator's context id: small, unique among this process's live communicators
// (the index of Open MPI's communicator table).
inline uint32_t local_context_id(const ompi_communicator_t* comm) { return comm->c_contextid; }

// The value of `key` in an info object, as text into value[0 .. length - 1] (cut to fit,
// always terminated); *found tells whether the key exists.
inline int info_get(opal_info_t* info, const char* key, char* value, int length, int* found) {
  return opal_info_get(info, key, length - 1, value, found);
}

}  // namespace mpimon::ompi_series
