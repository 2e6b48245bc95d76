// Integer MCA parameters whose text we check ourselves.
//
// They are registered as Open MPI integers (MPI_T datatype MPI_INT, no enumeration:
// exactly as Debian's component registers pml_monitoring_enable, so MPI_T code that
// reads or writes them as integers works), but Open MPI's own parsing is never used on
// them: it silently turns "abc" into 0 and "1k" into 1024. An enumerator of ours parses
// the text while Open MPI registers the variable (whatever the source: environment,
// mpirun --mca, parameter files), and is detached afterwards, so MPI_T and ompi_info see
// a plain integer.
#pragma once

#include <climits>
#include <string>

#include "runtime/ompi_glue.h"

namespace mpimon {

struct IntParameter {
  const char* variable;      // the component's variable, e.g. "enable"
  const char* full_name;     // what the warning names, e.g. "pml_monitoring_enable"
  const char* description;   // ompi_info's help text
  const char* valid_values;  // for the warning, e.g. "0 or 1"
  int default_value = 0;     // also the value used for invalid text
  int max = INT_MAX;         // the largest valid value (the smallest is 0)
  mca_base_var_info_lvl_t info_level = OPAL_INFO_LVL_4;
};

// Registers <framework>_monitoring_<variable> (Open MPI's names, component_version.h),
// as mca_base_component_var_register would for a component named "monitoring", but not
// in our component's group: closing one of our components never deregisters it.
int register_monitoring_variable(const char* framework, const char* variable, const char* description,
                                 mca_base_var_type_t type, mca_base_var_enum_t* enumerator, int bind,
                                 mca_base_var_flag_t flags, mca_base_var_info_lvl_t info_level,
                                 mca_base_var_scope_t scope, void* storage);

// Whether <framework>_monitoring's variables are gone (never registered in this process,
// or deregistered since). When MPI_T is initialised before MPI_Init, Open MPI (4.1 and
// 5.0) registers every component, excluded ones included; MPI_Init then closes the
// excluded ones, its own "monitoring" components among them, which deregisters the
// <framework>_monitoring group and our variables with it (MPI_T_ERR_INVALID). Our
// components' open (after that close) registers them again: the same storage and value;
// performance variables get new indices (an index looked up before MPI_Init is stale,
// as for every Open MPI component that MPI_Init closes).
bool monitoring_variables_deregistered(const char* framework);

// Registers `parameter` for `framework` (as register_monitoring_variable) with `storage` (Open MPI keeps writing the
// registered value there) and returns the value. Invalid text (not a decimal integer in
// 0..max) gives the default and, in `warning`, one line naming the parameter, the text
// and the valid values.
int register_int_parameter(const char* framework, const IntParameter& parameter, int& storage, std::string& warning);

}  // namespace mpimon
