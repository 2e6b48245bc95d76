#include "runtime/mca_values_ompi.h"

#include <cstdlib>
#include <cstring>

extern "C" {
#include <opal/mca/base/mca_base_var.h>
#include <opal/mca/base/mca_base_var_enum.h>
}

#include "runtime/component_version.h"
#include "runtime/mca_values.h"

namespace mpimon {
namespace {

// An enumerator that only parses: Open MPI hands it the text of the parameter during
// registration. Invalid text is kept (for one warning of ours) and read as the default,
// so Open MPI never prints its own message.
struct TextCheck {
  mca_base_var_enum_t base;  // first: Open MPI passes &base
  const IntParameter* parameter;
  std::string warning;
};

int value_from_text(mca_base_var_enum_t* self, const char* text, int* value) {
  auto* check = reinterpret_cast<TextCheck*>(self);
  const IntParameter& p = *check->parameter;
  check->warning.clear();
  *value = checked_level(p.full_name, text, p.default_value, p.default_value, p.valid_values, check->warning, p.max);
  return OPAL_SUCCESS;
}

int text_from_value(mca_base_var_enum_t*, const int value, char** text) {
  if (text != nullptr) *text = strdup(std::to_string(value).c_str());
  return OPAL_SUCCESS;
}

int no_items(mca_base_var_enum_t*, int* count) {
  *count = 0;
  return OPAL_SUCCESS;
}

int no_item(mca_base_var_enum_t*, int, int*, const char**) { return OPAL_ERR_VALUE_OUT_OF_BOUNDS; }

// 5.0 adds a dump-type argument; the template fits either signature.
template <typename... DumpType>
int describe(mca_base_var_enum_t* self, char** out, DumpType...) {
  *out = strdup(reinterpret_cast<TextCheck*>(self)->parameter->valid_values);
  return OPAL_SUCCESS;
}

}  // namespace

int register_monitoring_variable(const char* framework, const char* variable, const char* description,
                                 mca_base_var_type_t type, mca_base_var_enum_t* enumerator, int bind,
                                 mca_base_var_flag_t flags, mca_base_var_info_lvl_t info_level,
                                 mca_base_var_scope_t scope, void* storage) {
  // DWG, as mca_base_component_var_register sets: in the group <framework>_monitoring,
  // which only the closing of Open MPI's own "monitoring" component deregisters (jobs
  // exclude it; ompi_info, which loads both, then leaves no pointer into its storage).
  return mca_base_var_register("ompi", framework, MPIMON_VARIABLES_NAME, variable, description, type, enumerator, bind,
                               static_cast<mca_base_var_flag_t>(flags | MCA_BASE_VAR_FLAG_DWG), info_level, scope,
                               storage);
}

bool monitoring_variables_deregistered(const char* framework) {
  return mca_base_var_group_find("ompi", framework, MPIMON_VARIABLES_NAME) < 0;
}

int register_int_parameter(const char* framework, const IntParameter& parameter, int& storage, std::string& warning) {
  TextCheck check;
  OBJ_CONSTRUCT(&check.base, mca_base_var_enum_t);
  check.base.enum_is_static = true;  // ours: Open MPI neither retains nor releases it
  check.base.value_from_string = value_from_text;
  check.base.string_from_value = text_from_value;
  check.base.get_count = no_items;
  check.base.get_value = no_item;
  check.base.dump = describe;
  check.parameter = &parameter;
  storage = parameter.default_value;
  const int index = register_monitoring_variable(
      framework, parameter.variable, parameter.description, MCA_BASE_VAR_TYPE_INT, &check.base, 0,
      static_cast<mca_base_var_flag_t>(0), parameter.info_level, MCA_BASE_VAR_SCOPE_READONLY, &storage);
  // Detached: MPI_T and ompi_info see a plain integer, and nothing keeps a pointer to
  // this stack object.
  const mca_base_var_t* variable = nullptr;
  if (index >= 0 && mca_base_var_get(index, &variable) == OPAL_SUCCESS && variable != nullptr)
    const_cast<mca_base_var_t*>(variable)->mbv_enumerator = nullptr;
  OBJ_DESTRUCT(&check.base);
  warning = check.warning;
  return storage;
}

}  // namespace mpimon
