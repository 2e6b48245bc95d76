#include "live/pvars.h"

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "runtime/ompi_glue.h"

#include <mpi.h>
#include "formats/prof_format.h"
#include "live/flush_phases.h"
#include "live/pvar_handle_check.h"
#include "mpit_events_producer.h"
#include "runtime/component_version.h"
#include "runtime/runtime.h"
#include "runtime/world_rank_ompi.h"

namespace mpimon::pvars {
namespace {

struct PeerVariable {
  Category category;
  Metric metric;
};

// Communicators that have bound handles, tracked until they are freed: each gets an
// attribute whose delete callback (run by MPI_Comm_free) forgets it. A handle whose
// communicator was freed therefore reads an error, even when a new communicator later
// takes the same address.
std::mutex bound_mutex;
std::set<const void*> bound_communicators;
int liveness_keyval = MPI_KEYVAL_INVALID;

int forget_communicator(MPI_Comm comm, int, void*, void*) {
  std::lock_guard lock(bound_mutex);
  bound_communicators.erase(comm);
  return MPI_SUCCESS;
}

int values_of(const ompi_communicator_t* comm) { return comm->c_remote_group->grp_proc_count; }

// The smallest count among the handles bound to `obj`: a read never writes past the
// buffer of any handle on that address, even if a new communicator took it.
int smallest_bound_count(const mca_base_pvar_t* pvar, const void* obj, int fallback) {
  int smallest = fallback;
  auto* handles = const_cast<opal_list_t*>(&pvar->bound_handles);
  for (const opal_list_item_t* item = opal_list_get_first(handles); item != opal_list_get_end(handles);
       item = opal_list_get_next(item)) {
    const auto* handle = reinterpret_cast<const mca_base_pvar_handle_t*>(reinterpret_cast<const char*>(item) -
                                                                         offsetof(mca_base_pvar_handle_t, list2));
    if (handle->obj_handle == obj && handle->count < smallest) smallest = handle->count;
  }
  return smallest;
}

int read_peer_variable(const mca_base_pvar_t* pvar, void* value, void* obj) {
  const auto* variable = static_cast<const PeerVariable*>(pvar->ctx);
  // Our PML not running (pml_monitoring_enable 0, or a pml selection without it): its
  // variables are unavailable, as Open MPI's own were once it closed its idle component
  // (mpimon_reorder says "unavailable" then). The COLL and OSC ones read zeros, as before.
  if (variable->category == Category::external && !Runtime::instance().started()) return OMPI_ERR_NOT_AVAILABLE;
  if (!communicator_still_bound(obj)) return OMPI_ERR_NOT_FOUND;  // freed (or never valid)
  const auto* comm = static_cast<const ompi_communicator_t*>(obj);
  const Engine& engine = Runtime::instance().engine;
  const LocalJob job = LocalJob::of_this_process();
  const int count = smallest_bound_count(pvar, obj, values_of(comm));
  auto* values = static_cast<unsigned long long*>(value);
  for (int i = 0; i < count && i < values_of(comm); ++i) {
    const int32_t peer = world_rank_of(comm, i, job);
    values[i] = peer < 0                               ? 0
                : variable->metric == Metric::messages ? engine.messages(peer, variable->category)
                                                       : engine.bytes(peer, variable->category);
  }
  return OMPI_SUCCESS;
}

int notify_peer_variable(mca_base_pvar_t*, mca_base_pvar_event_t event, void* obj, int* count) {
  if (event != MCA_BASE_PVAR_HANDLE_BIND) return OMPI_SUCCESS;
  // Never an error here: Open MPI's core crashes on one (see live/pvar_handle_check.h). An
  // object that is not a live communicator (only possible where the check could not be
  // installed) gets a handle with no values, whose reads fail.
  *count = bind_communicator(obj) ? values_of(static_cast<const ompi_communicator_t*>(obj)) : 0;
  return OMPI_SUCCESS;
}

// ---------------------------------------------------------------------------------------
// Flush (phases): live/flush_phases.h says how a failed flush returns an error and loses
// nothing.

FlushPhases& flush_phases() {
  static FlushPhases* phases = new FlushPhases();  // used until process exit
  return *phases;
}

// The MPI error class closest to a file error: what MPI_T_pvar_stop / _write return.
int mpi_error_class(int code) {
  switch (code) {
    case ENOSPC:
    case EDQUOT:
      return MPI_ERR_NO_SPACE;
    case ENOENT:
    case ENOTDIR:
      return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case ENAMETOOLONG:
    case EISDIR:
    case EINVAL:
      return MPI_ERR_BAD_FILE;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    default:
      return MPI_ERR_IO;
  }
}

int report_flush_error(const FileError& error) {
  warn("rank " + std::to_string(Runtime::instance().world_rank()) + ": flush not written: " + error.message +
       " (nothing is lost: the next flush or the finalize dump includes this phase)");
  return mpi_error_class(error.code);
}

int write_flush_prefix(mca_base_pvar_t*, const void* value, void*) {
  // Open MPI's test/monitoring/monitoring_test.c writes a pointer to NULL to mean "no
  // file": its bytes read as an empty string, as does "".
  flush_phases().set_prefix(value == nullptr ? "" : static_cast<const char*>(value));
  return OMPI_SUCCESS;
}

// The core reads a started handle before stopping it: the phase file is written here.
int read_flush_prefix(const mca_base_pvar_t*, void*, void*) {
  Runtime& runtime = Runtime::instance();
  const FileError error =
      flush_phases().prepare(runtime.engine.snapshot(), runtime.world_rank(), runtime.settings.split_internal());
  return error ? report_flush_error(error) : OMPI_SUCCESS;
}

int notify_flush(mca_base_pvar_t*, mca_base_pvar_event_t event, void*, int* count) {
  switch (event) {
    case MCA_BASE_PVAR_HANDLE_BIND:
      *count = 0;  // the core copies count values on write: nothing for a string
      return OMPI_SUCCESS;
    case MCA_BASE_PVAR_HANDLE_STOP:
      if (const FileError error = flush_phases().commit()) report_flush_error(error);  // the core ignores our result
      return OMPI_SUCCESS;
    case MCA_BASE_PVAR_HANDLE_UNBIND:
      flush_phases().drop_prepared();
      return OMPI_SUCCESS;
    default:
      return OMPI_SUCCESS;
  }
}

}  // namespace

bool bind_communicator(const void* obj) {
  if (!mpimon_mpi_object_is_live(MPI_T_BIND_MPI_COMM, obj)) return false;  // nothing read before this
  auto* comm = static_cast<ompi_communicator_t*>(const_cast<void*>(obj));
  {
    std::lock_guard lock(bound_mutex);
    if (!bound_communicators.insert(obj).second) return true;
  }
  if (liveness_keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, forget_communicator, &liveness_keyval, nullptr);
  PMPI_Comm_set_attr(comm, liveness_keyval, nullptr);
  return true;
}

bool communicator_still_bound(const void* obj) {
  std::lock_guard lock(bound_mutex);
  return obj != nullptr && bound_communicators.count(obj) != 0;
}

int register_peer_variable(const char* framework, const char* name, const char* description, Category category,
                           Metric metric) {
  check_bound_objects();
  auto* variable = new PeerVariable{category, metric};  // lives as long as the pvar
  return mca_base_pvar_register("ompi", framework, MPIMON_VARIABLES_NAME, name, description, OPAL_INFO_LVL_4,
                                MCA_BASE_PVAR_CLASS_SIZE, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, nullptr,
                                MPI_T_BIND_MPI_COMM,
                                static_cast<mca_base_pvar_flag_t>(MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_IWG),
                                read_peer_variable, nullptr, notify_peer_variable, variable);
}

void register_peer_variables(const char* framework, const char* name, const char* traffic, Category category) {
  const std::string base(name);
  const std::string count_description = std::string("Number of ") + traffic + " per peer of a communicator (mpimon)";
  const std::string size_description = std::string("Bytes of ") + traffic + " per peer of a communicator (mpimon)";
  register_peer_variable(framework, (base + "_count").c_str(), count_description.c_str(), category, Metric::messages);
  register_peer_variable(framework, (base + "_size").c_str(), size_description.c_str(), category, Metric::bytes);
}

int register_flush_variable() {
  return mca_base_pvar_register(
      "ompi", "pml", MPIMON_VARIABLES_NAME, "flush",
      "Write a file prefix, then stop the handle: writes <prefix>.<world rank>.prof with "
      "the traffic since the previous flush; an empty prefix writes nothing and ends no phase; "
      "a flush that cannot be written makes the stop fail and loses nothing (mpimon)",
      OPAL_INFO_LVL_1, MCA_BASE_PVAR_CLASS_GENERIC, MCA_BASE_VAR_TYPE_STRING, nullptr, MPI_T_BIND_NO_OBJECT,
      MCA_BASE_PVAR_FLAG_IWG, read_flush_prefix, write_flush_prefix, notify_flush, nullptr);
}

}  // namespace mpimon::pvars
