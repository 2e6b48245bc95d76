// Open MPI 5.0 series: what differs from 4.1 in the internals our components touch
// (docs/open-mpi-5.md, "One source tree"). CMake puts this folder on the include path
// when it finds a 5.0.x Open MPI, and include/ here (only the headers that installation
// lacks, plus event.h's wrapper) before Open MPI's own. ompi-4.1/ompi_release.h declares
// the same names. Included by ompi_glue.h, first.
#pragma once

#include <ompi_config.h>

#include <cstddef>
#include <cstdint>

// These opal/mca/base headers lack extern "C" (in 4.1.4 and 5.0.7); the first inclusion
// decides the linkage, so they come first, here.
extern "C" {
#include <opal/mca/base/mca_base_framework.h>
#include <opal/mca/base/mca_base_pvar.h>
#include <opal/mca/base/mca_base_var_enum.h>
#include <opal/mca/base/mca_base_var_group.h>
}
#include <opal/class/opal_hash_table.h>
#include <opal/mca/threads/thread_usage.h>

// 5.0.x's communicator.h (ompi_comm_lookup_cid) passes a void* where this function takes
// a void**, which C++ rejects; this overload (C++ linkage, so no clash with Open MPI's C
// function) takes the void* and calls the real one.
inline int opal_hash_table_get_value_ptr(opal_hash_table_t* table, const void* key, size_t key_size, void* value) {
  return opal_hash_table_get_value_ptr(table, key, key_size, static_cast<void**>(value));
}

#include <ompi/communicator/communicator.h>
#include <ompi/request/request.h>
#include <opal/util/info.h>

#include <cstring>

// Component structs and the version stamps of the frameworks' APIs (macros: they expand
// to several designated initializers). 5.0: PML 2.1.0 (revoke_comm, get_transports),
// COLL 2.4.0 (agree/iagree, checked exactly by coll base), OSC unchanged.
#define MPIMON_PML_COMPONENT_TYPE mca_pml_base_component_2_1_0_t
#define MPIMON_PML_BASE_VERSION MCA_PML_BASE_VERSION_2_1_0
#define MPIMON_COLL_COMPONENT_TYPE mca_coll_base_component_2_4_0_t
#define MPIMON_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
#define MPIMON_OSC_BASE_VERSION OMPI_OSC_BASE_VERSION_3_0_0
// topo's component query: 5.0 calls it topoc_query and adds the new communicator's group
// (for MPI_Comm_create_from_group); `name` has 4.1's signature (comm, priority, type),
// the lambda adapts it.
#define MPIMON_TOPO_COMPONENT_QUERY(name)                                                                 \
  .topoc_query = [](const ompi_communicator_t* comm, const ompi_group_t*, int* priority, uint32_t type) { \
    return name(comm, priority, type);                                                                    \
  }

namespace mpimon::ompi_release {

inline constexpr const char* kName = "5.0";

// MPI 4.0: MPI_Info_create works before MPI_Init. Its object holds a reference on the
// MPI instance, which MPI_Info_free drops: an object made by hand would make that release
// unbalanced (MPI_Finalize then frees the predefined error handlers: free(): invalid
// pointer).
inline constexpr bool kInfoCreateBeforeMpiInit = true;

// A communicator's context id: small, unique among this process's live communicators.
// 5.0's c_contextid is a 128-bit extended id; c_index is the index of the communicator
// table (what 4.1's c_contextid was, and what the PMLs use locally).
inline uint32_t local_context_id(const ompi_communicator_t* comm) { return comm->c_index; }
// MPI_COMM_WORLD's: ompi_comm_init puts it in slot 0 of the table (c_index 0).
inline constexpr uint32_t kWorldLocalContextId = 0;

// What follows ompi_request_t in ompi_coll_base_nbc_request_t (coll_base_util.h, which
// C++ cannot include): the MPI bindings of nonblocking collectives write there after a
// coll module returned its request (ompi_coll_base_retain_op / _datatypes), so a
// module's own request type must start with ompi_request_t and these fields, zeroed.
// 5.0 adds the arrays its Fortran bindings convert, freed at completion up to the first
// NULL: without them completion frees whatever follows the request.
struct NbcRequestFields {
  union {
    ompi_request_complete_fn_t req_complete_cb;
    ompi_request_free_fn_t req_free;
  } cb;
  void* req_complete_cb_data;
  struct {
    union {
      void* objects[2];  // the user's op and datatype, or the send and receive types
      struct {
        void* types[2];
        int counts[2];
      } vectors;  // ialltoallw's type arrays
    } refcounted;
    void* release_arrays[7];  // OMPI_REQ_NB_RELEASE_ARRAYS
  } data;
};

// The value of `key` in an info object, as text into value[0 .. length - 1] (cut to fit,
// always terminated); *found tells whether the key exists. 5.0 hands out a reference
// counted string instead of filling a buffer.
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
