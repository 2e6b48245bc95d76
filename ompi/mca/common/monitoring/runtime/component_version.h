// The mca_base_component_t part every mpimon component shares: our name, mpimon's
// version, and its entry points. MPIMON_VERSION_* come from CMake (mpimon_add_plugin).
//
// Names (docs/open-mpi-5.md, "Loading"): our monitoring components load under a name of
// their own, "mpimon" (mca_pml_mpimon.so, mca_coll_mpimon.so, mca_osc_mpimon.so), so
// that they load beside Open MPI's built-in "monitoring" components (5.0 builds those
// into libmpi, where a same-named DSO is ignored), which whatever starts the job
// excludes. Their MCA variables and performance variables keep Open MPI's names
// (pml_monitoring_enable, coll_monitoring_messages_count, ...): MPIMON_VARIABLES_NAME.
#pragma once

// The name of our components in every framework. Plugins get it from CMake
// (mpimon_add_plugin's COMPONENT, default mpimon); the engine library uses this default.
#ifndef MPIMON_COMPONENT_NAME
#define MPIMON_COMPONENT_NAME "mpimon"
#endif
#define MPIMON_VARIABLES_NAME "monitoring"

#define MPIMON_COMPONENT_VERSION(type_version, open, close, register_params) \
  MPIMON_NAMED_COMPONENT_VERSION(MPIMON_COMPONENT_NAME, open, close, register_params, type_version)

// type_version last: it expands to several initializers.
#define MPIMON_NAMED_COMPONENT_VERSION(name, open, close, register_params, ...)                                      \
  {                                                                                                                  \
    __VA_ARGS__, .mca_component_name = name,                                                                         \
                 MCA_BASE_MAKE_VERSION(component, MPIMON_VERSION_MAJOR, MPIMON_VERSION_MINOR, MPIMON_VERSION_PATCH), \
                 .mca_open_component = open, .mca_close_component = close, .mca_query_component = nullptr,           \
                 .mca_register_component_params = register_params, .mca_component_flags = 0, .reserved = {}          \
  }
