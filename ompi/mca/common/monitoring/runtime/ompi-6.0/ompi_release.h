// Open MPI 6.0 release line: what differs from 5.0 in the internals our components touch
// (docs/open-mpi-6.md). CMake puts this folder on the include path when it finds a 6.0.x
// Open MPI (6.0.0~rc2 in Debian sid), and 5.0's stand-ins for the three headers 6.0's
// devel package lacks as well (unchanged layouts) before Open MPI's own.
// ompi-5.0/ompi_release.h declares the same names. Included by ompi_glue.h, first.
#pragma once

#include <ompi_config.h>

#include <cstddef>
#include <cstdint>

// These opal/mca/base headers lack extern "C" (still in 6.0); the first inclusion decides
// the linkage, so they come first, here.
extern "C" {
#include <opal/mca/base/mca_base_framework.h>
#include <opal/mca/base/mca_base_pvar.h>
#include <opal/mca/base/mca_base_var_enum.h>
#include <opal/mca/base/mca_base_var_group.h>
}
#include <opal/class/opal_hash_table.h>
#include <opal/mca/threads/thread_usage.h>
// 6.0's communicator.h casts to void** itself (5.0's needed an overload here).
#include <ompi/communicator/communicator.h>
#include <ompi/request/request.h>
#include <opal/util/info.h>

#include <cstring>

// Component structs and the version stamps of the frameworks' APIs. 6.0: PML 2.1.0 and
// topo 2.2.0 as in 5.0; COLL 3.0.0 (size_t counts, count/displacement arrays, modules
// install their own functions when enabled; checked exactly by coll base); OSC 4.0.0
// (size_t counts, ptrdiff_t disp_unit); IO 3.0.0 (size_t counts).
#define MPIMON_PML_COMPONENT_TYPE mca_pml_base_component_2_1_0_t
#define MPIMON_PML_BASE_VERSION MCA_PML_BASE_VERSION_2_1_0
#define MPIMON_COLL_COMPONENT_TYPE mca_coll_base_component_3_0_0_t
#define MPIMON_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_3_0_0
#define MPIMON_OSC_BASE_VERSION OMPI_OSC_BASE_VERSION_4_0_0
#define MPIMON_IO_COMPONENT_TYPE mca_io_base_component_3_0_0_t
#define MPIMON_IO_MODULE_TYPE mca_io_base_module_3_0_0_t
#define MPIMON_IO_BASE_VERSION MCA_IO_BASE_VERSION_3_0_0
// topo's component query: as 5.0 (topoc_query with the new communicator's group).
#define MPIMON_TOPO_COMPONENT_QUERY(name)                                                                 \
  .topoc_query = [](const ompi_communicator_t* comm, const ompi_group_t*, int* priority, uint32_t type) { \
    return name(comm, priority, type);                                                                    \
  }

namespace mpimon::ompi_release {

inline constexpr const char* kName = "6.0";

// Element counts in the coll, osc and io module interfaces (MPI 4.0 "big count"): size_t
// from 6.0 on (int before).
using Count = size_t;

// MPI 4.0: MPI_Info_create works before MPI_Init (as in 5.0).
inline constexpr bool kInfoCreateBeforeMpiInit = true;

// A communicator's context id: small, unique among this process's live communicators
// (c_index, as in 5.0: c_contextid is the 128-bit extended id).
inline uint32_t local_context_id(const ompi_communicator_t* comm) { return comm->c_index; }
inline constexpr uint32_t kWorldLocalContextId = 0;

// What follows ompi_request_t in ompi_coll_base_nbc_request_t (coll_base_util.h, which
// C++ cannot include): unchanged from 5.0 (v6.0.x coll_base_util.h:51-80).
struct NbcRequestFields {
  union {
    ompi_request_complete_fn_t req_complete_cb;
    ompi_request_free_fn_t req_free;
  } cb;
  void* req_complete_cb_data;
  struct {
    union {
      void* objects[2];
      struct {
        void* types[2];
        int counts[2];
      } vectors;
    } refcounted;
    void* release_arrays[7];  // OMPI_REQ_NB_RELEASE_ARRAYS
  } data;
};

// The value of `key` in an info object (as 5.0: a reference counted string).
inline int info_get(opal_info_t* info, const char* key, char* value, int length, int* found) {
  opal_cstring_t* text = nullptr;
  const int rc = opal_info_get(info, key, &text, found);
  if (rc != OPAL_SUCCESS || !*found || text == nullptr) return rc;
  std::strncpy(value, text->string, static_cast<size_t>(length) - 1);
  value[length - 1] = '\0';
  OBJ_RELEASE(text);
  return rc;
}

}  // namespace mpimon::ompi_release
