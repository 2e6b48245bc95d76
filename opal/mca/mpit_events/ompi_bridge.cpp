// Everything that needs Open MPI internals (4.1 and 5.0: ompi_release.h): the MPI_T init count, our MPI_T category
// (an MCA variable group), element enums (MCA enums, which MPI_T_enum_* understands)
// and info objects usable before MPI_Init.
#include <ompi_config.h>
#include <atomic>
#include <cstring>
#include "ompi_release.h"
extern "C" {
#include <ompi/info/info.h>
#include <opal/mca/base/mca_base_var.h>
#include <opal/mca/base/mca_base_var_enum.h>
#include <opal/util/info.h>
}

#include <cstdlib>
#include <mutex>

#include "events_internal.h"

// Exported by libmpi (ompi/mpi/tool/mpit-internal.h): MPI_T's init reference count and
// the lock every MPI_T function of Open MPI takes (hidden in 6.0, where our category
// belongs to the public API we do not build: events_internal.h).
extern "C" volatile uint32_t ompi_mpit_init_count;
#if MPIMON_EVENTS_PUBLIC_API
extern "C" void ompi_mpit_lock(void);
extern "C" void ompi_mpit_unlock(void);
#endif

namespace mpimon::events {

bool mpit_initialized() { return ompi_mpit_init_count != 0; }

#if MPIMON_EVENTS_PUBLIC_API
namespace {

constexpr const char* kCategory = "mpimon_events";
constexpr const char* kCategoryDescription = "mpimon communication events (MPI_T events interface)";

struct MpitLock {
  MpitLock() { ompi_mpit_lock(); }
  ~MpitLock() { ompi_mpit_unlock(); }
};

}  // namespace

int category_index() {
  if (!mpit_initialized()) return -1;
  // Open MPI frees its groups when MPI_T is finalized: look the group up every time and
  // register it again when it is gone. (Framework "mpimon_events", no component: the
  // category's name is exactly "mpimon_events".)
  // The index found last is checked first: an array lookup and a name compare, where
  // mca_base_var_group_find builds the full name in a fresh allocation (this runs in
  // MPI_T_event_get_num, which tools may call often).
  static std::atomic<int> cached{-1};
  MpitLock lock;
  int index = cached.load(std::memory_order_relaxed);
  const mca_base_var_group_t* group = nullptr;
  if (index >= 0 && mca_base_var_group_get(index, &group) == OPAL_SUCCESS && group != nullptr &&
      group->group_full_name != nullptr && std::strcmp(group->group_full_name, kCategory) == 0)
    return index;
  index = mca_base_var_group_find(nullptr, kCategory, nullptr);
  if (index < 0) index = mca_base_var_group_register(nullptr, kCategory, nullptr, kCategoryDescription);
  cached.store(index < 0 ? -1 : index, std::memory_order_relaxed);
  return index < 0 ? -1 : index;
}

int category_lookup(int cat_index, bool* ours) {
  const int mine = category_index();
  MpitLock lock;
  const mca_base_var_group_t* group = nullptr;
  if (cat_index < 0 || mca_base_var_group_get(cat_index, &group) != OPAL_SUCCESS) return MPI_T_ERR_INVALID_INDEX;
  *ours = cat_index == mine;
  return MPI_SUCCESS;
}
#endif

namespace {

// Whether MPI_Info_create / MPI_Info_free may be called now: between MPI_Init and
// MPI_Finalize, and on 5.0 before MPI_Init too (ompi_release.h).
bool info_calls_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return !finalized && (initialized || mpimon::ompi_release::kInfoCreateBeforeMpiInit);
}

}  // namespace

int make_info(const std::vector<std::pair<std::string, std::string>>& keys, MPI_Info* out) {
  if (info_calls_usable()) {
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
    // opal_info_set, not MPI_Info_set: values may exceed MPI_MAX_INFO_VAL (the
    // collective kinds list does), which MPI_Info_set refuses with a fatal error.
    // MPI_Info_get_valuelen / MPI_Info_get read them whole.
    for (const auto& [key, value] : keys) {
      if (opal_info_set(&reinterpret_cast<ompi_info_t*>(info)->super, key.c_str(), value.c_str()) != OPAL_SUCCESS) {
        MPI_Info_free(&info);
        return MPI_T_ERR_MEMORY;
      }
    }
    *out = info;
    return MPI_SUCCESS;
  }
  // Open MPI 4.1 aborts in MPI_Info_create outside MPI_Init..MPI_Finalize. Build the
  // object as MPI_Info_create would, but with the plain opal_info_t class: the
  // ompi_info_t constructor would register it in the Fortran table, which does not
  // exist yet. MPI_Info_get/_free work on it once MPI is initialised.
  auto* info = static_cast<ompi_info_t*>(std::calloc(1, sizeof(ompi_info_t)));
  if (info == nullptr) return MPI_T_ERR_MEMORY;
  OBJ_CONSTRUCT_INTERNAL(info, OBJ_CLASS(opal_info_t));
  info->i_f_to_c_index = MPI_UNDEFINED;
  info->i_freed = false;
  for (const auto& [key, value] : keys) {
    if (opal_info_set(&info->super, key.c_str(), value.c_str()) != OPAL_SUCCESS) {
      OBJ_RELEASE(info);
      return MPI_T_ERR_MEMORY;
    }
  }
  *out = reinterpret_cast<MPI_Info>(info);
  return MPI_SUCCESS;
}

int every_object_hint(MPI_Info info, bool* every) {
  *every = false;
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  // opal_info_get: the object may come from MPI_Info_create or from make_info.
  char value[8] = {};
  int flag = 0;
  if (mpimon::ompi_release::info_get(&reinterpret_cast<ompi_info_t*>(info)->super, MPIMON_EVENTS_EVERY_OBJECT, value,
                                     sizeof value, &flag) != OPAL_SUCCESS)
    return MPI_T_ERR_INVALID;
  *every = flag && std::strcmp(value, "true") == 0;
  return MPI_SUCCESS;
}

int element_enum(EventType& type, MPI_T_enum* out) {
  void* existing = type.element_enum.load(std::memory_order_acquire);
  if (existing == nullptr) {
    static std::mutex creating;
    std::lock_guard guard(creating);
    existing = type.element_enum.load(std::memory_order_acquire);
    if (existing == nullptr) {
      std::vector<mca_base_var_enum_value_t> values;
      for (std::size_t i = 0; i < type.elements.size(); ++i)
        values.push_back({static_cast<int>(i), type.elements[i].name.c_str()});
      values.push_back({0, nullptr});
      mca_base_var_enum_t* created = nullptr;
      if (mca_base_var_enum_create(type.name.c_str(), values.data(), &created) != OPAL_SUCCESS) return MPI_T_ERR_MEMORY;
      // Kept for the life of the process (copies the strings), like the type itself.
      type.element_enum.store(created, std::memory_order_release);
      existing = created;
    }
  }
  *out = static_cast<MPI_T_enum>(existing);
  return MPI_SUCCESS;
}

}  // namespace mpimon::events

using namespace mpimon::events;

extern "C" {

// Interposed (when the application links this library before libmpi) so that our
// category exists as soon as MPI_T is initialised, before any MPI_T_category_* call.
#if MPIMON_EVENTS_PUBLIC_API
int MPI_T_init_thread(int required, int* provided) {
  const int rc = PMPI_T_init_thread(required, provided);
  if (rc == MPI_SUCCESS) category_index();
  return rc;
}
#endif

int mpimon_events_test_info_get(MPI_Info info, const char* key, char* value, int value_len) {
  if (info == MPI_INFO_NULL || key == nullptr || value == nullptr || value_len < 1) return 0;
  int flag = 0;
  auto* object = reinterpret_cast<ompi_info_t*>(info);
  if (mpimon::ompi_release::info_get(&object->super, key, value, value_len, &flag) != OPAL_SUCCESS) return 0;
  return flag ? 1 : 0;
}

MPI_Info mpimon_events_test_info_make(const char* key, const char* value) {
  MPI_Info info = MPI_INFO_NULL;
  if (key == nullptr || value == nullptr || make_info({{key, value}}, &info) != MPI_SUCCESS) return MPI_INFO_NULL;
  return info;
}

void mpimon_events_test_info_free(MPI_Info* info) {
  if (info == nullptr || *info == MPI_INFO_NULL) return;
  if (info_calls_usable()) {
    MPI_Info_free(info);
    return;
  }
  auto* object = reinterpret_cast<ompi_info_t*>(*info);
  OBJ_RELEASE(object);
  *info = MPI_INFO_NULL;
}

}  // extern "C"
