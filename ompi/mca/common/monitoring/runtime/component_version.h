// The mca_base_component_t part every mpimon component shares: name "monitoring" (the
// name Open MPI's users and scripts know; other components give theirs), mpimon's
// version, and its entry points. MPIMON_VERSION_* come from CMake (mpimon_add_plugin).
#pragma once

// The name of our components in every framework (also what `mpimon run` adds to a user's
// component selection, tools/mpimon/launcher.h).
#define MPIMON_COMPONENT_NAME "monitoring"

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
