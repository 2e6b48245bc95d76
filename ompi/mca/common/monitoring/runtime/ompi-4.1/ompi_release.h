// Open MPI 4.1 series: what differs from 5.0 in the internals our components touch
// (docs/open-mpi-5.md, "One source tree"). CMake puts this folder on the include path
// when it finds a 4.1.x Open MPI; ompi-5.0/ompi_release.h declares the same names.
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
#include <ompi/request/request.h>
#include <opal/util/info.h>

// Component structs and the version stamps of the frameworks' APIs (macros: they expand
// to several designated initializers).
#define MPIMON_PML_COMPONENT_TYPE mca_pml_base_component_2_0_0_t
#define MPIMON_PML_BASE_VERSION MCA_PML_BASE_VERSION_2_0_0
#define MPIMON_COLL_COMPONENT_TYPE mca_coll_base_component_2_0_0_t
#define MPIMON_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
#define MPIMON_OSC_BASE_VERSION OMPI_OSC_BASE_VERSION_3_0_0
// topo's component query: 4.1 calls it topoc_comm_query(comm, priority, type). `name`
// has that signature; the lambda adapts it to the series' member.
#define MPIMON_TOPO_COMPONENT_QUERY(name)                                                 \
  .topoc_comm_query = [](const ompi_communicator_t* comm, int* priority, uint32_t type) { \
    return name(comm, priority, type);                                                    \
  }

namespace mpimon::ompi_release {

inline constexpr const char* kName = "4.1";

// MPI_Info_create outside MPI_Init .. MPI_Finalize aborts in 4.1: objects made before
// MPI_Init are built by hand (opal/mca/mpit_events/ompi_bridge.cpp).
inline constexpr bool kInfoCreateBeforeMpiInit = false;

// A communicator's context id: small, unique among this process's live communicators
// (the index of Open MPI's communicator table).
inline uint32_t local_context_id(const ompi_communicator_t* comm) { return comm->c_contextid; }
// MPI_COMM_WORLD's: ompi_comm_init gives it c_contextid 0 (slot 0 of the table).
inline constexpr uint32_t kWorldLocalContextId = 0;

// What follows ompi_request_t in ompi_coll_base_nbc_request_t (coll_base_util.h, which
// C++ cannot include): the MPI bindings of nonblocking collectives write there after a
// coll module returned its request (ompi_coll_base_retain_op / _datatypes), so a
// module's own request type must start with ompi_request_t and these fields, zeroed.
struct NbcRequestFields {
  union {
    ompi_request_complete_fn_t req_complete_cb;
    ompi_request_free_fn_t req_free;
  } cb;
  void* req_complete_cb_data;
  void* refcounted[2];  // the user's op and datatype, or the send and receive types
};

// The value of `key` in an info object, as text into value[0 .. length - 1] (cut to fit,
// always terminated); *found tells whether the key exists.
inline int info_get(opal_info_t* info, const char* key, char* value, int length, int* found) {
  return opal_info_get(info, key, length - 1, value, found);
}

}  // namespace mpimon::ompi_release
