// Prints the sizes and field offsets of the Open MPI structs mpimon's components embed,
// allocate or read (one "name value" line each), under whichever Open MPI headers it is
// compiled with. Built twice by test/ompi_layout: once with the headers
// cmake/OpenMPIFromSource.cmake made from a source tree, once with the installation's own
// devel headers (Debian's libopenmpi-dev); the test requires both outputs to be equal.
#include "ompi_glue.h"

#include <cstddef>
#include <cstdio>

#include <ompi/mca/coll/coll.h>
#include <ompi/mca/osc/osc.h>
#include <ompi/mca/pml/base/pml_base_request.h>
#include <ompi/mca/pml/pml.h>
#include <ompi/mca/topo/topo.h>
#include <ompi/win/win.h>
#include <opal/mca/base/mca_base_var_enum.h>
#include <opal/util/info.h>

#define SIZE(type) std::printf("sizeof(%s) %zu\n", #type, sizeof(type))
#define OFFSET(type, field) std::printf("offsetof(%s, %s) %zu\n", #type, #field, offsetof(type, field))

int main() {
  std::printf("OPAL_ENABLE_DEBUG %d\n", OPAL_ENABLE_DEBUG);
  std::printf("OMPI_VERSION %d.%d.%d\n", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
  SIZE(opal_object_t);
  OFFSET(opal_object_t, obj_class);
  OFFSET(opal_object_t, obj_reference_count);
  SIZE(opal_class_t);
  OFFSET(opal_class_t, cls_name);
  OFFSET(opal_class_t, cls_sizeof);
  SIZE(opal_list_t);
  SIZE(opal_list_item_t);
  SIZE(opal_mutex_t);
  SIZE(opal_info_t);
  SIZE(mca_base_var_enum_t);
  SIZE(mca_base_component_t);
  OFFSET(mca_base_component_t, mca_component_name);
  OFFSET(mca_base_component_t, mca_register_component_params);
  SIZE(ompi_communicator_t);
  OFFSET(ompi_communicator_t, c_name);
  OFFSET(ompi_communicator_t, c_contextid);
  OFFSET(ompi_communicator_t, c_my_rank);
  OFFSET(ompi_communicator_t, c_flags);
  OFFSET(ompi_communicator_t, c_local_group);
  OFFSET(ompi_communicator_t, c_topo);
  OFFSET(ompi_communicator_t, c_coll);
  SIZE(ompi_group_t);
  OFFSET(ompi_group_t, grp_proc_count);
  OFFSET(ompi_group_t, grp_proc_pointers);
  SIZE(ompi_datatype_t);
  SIZE(ompi_proc_t);
  OFFSET(ompi_proc_t, super.proc_name);
  SIZE(ompi_request_t);
  OFFSET(ompi_request_t, req_type);
  OFFSET(ompi_request_t, req_status);
  OFFSET(ompi_request_t, req_complete);
  OFFSET(ompi_request_t, req_state);
  OFFSET(ompi_request_t, req_start);
  OFFSET(ompi_request_t, req_complete_cb);
  OFFSET(ompi_request_t, req_complete_cb_data);
  SIZE(mca_pml_base_request_t);
  OFFSET(mca_pml_base_request_t, req_addr);
  OFFSET(mca_pml_base_request_t, req_count);
  OFFSET(mca_pml_base_request_t, req_peer);
  OFFSET(mca_pml_base_request_t, req_tag);
  OFFSET(mca_pml_base_request_t, req_comm);
  OFFSET(mca_pml_base_request_t, req_datatype);
  SIZE(mca_pml_base_module_t);
  OFFSET(mca_pml_base_module_t, pml_isend_init);
  OFFSET(mca_pml_base_module_t, pml_isend);
  OFFSET(mca_pml_base_module_t, pml_send);
  OFFSET(mca_pml_base_module_t, pml_max_contextid);
  OFFSET(mca_pml_base_module_t, pml_max_tag);
  SIZE(MPIMON_PML_COMPONENT_TYPE);
  SIZE(mca_coll_base_module_t);
  OFFSET(mca_coll_base_module_t, coll_module_enable);
  OFFSET(mca_coll_base_module_t, coll_allreduce);
  OFFSET(mca_coll_base_module_t, coll_ireduce);
  SIZE(MPIMON_COLL_COMPONENT_TYPE);
  SIZE(ompi_osc_base_module_t);
  OFFSET(ompi_osc_base_module_t, osc_put);
  OFFSET(ompi_osc_base_module_t, osc_free);
  SIZE(ompi_osc_base_component_t);
  SIZE(ompi_win_t);
  OFFSET(ompi_win_t, w_osc_module);
  SIZE(mca_topo_base_module_t);
  SIZE(mca_topo_base_component_t);
  return 0;
}
