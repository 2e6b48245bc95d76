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

// Registers `parameter` for `component` with `storage` (Open MPI keeps writing the
// registered value there) and returns the value. Invalid text (not a decimal integer in
// 0..max) gives the default and, in `warning`, one line naming the parameter, the text
// and the valid values.
int register_int_parameter(const mca_base_component_t* component, const IntParameter& parameter, int& storage,
                           std::string& warning);

}  // namespace mpimon
