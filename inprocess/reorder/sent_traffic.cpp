#include "sent_traffic.h"

#include <map>
#include <memory>

namespace mpimon::reorder {

namespace {

constexpr const char* kExternalVariable = "pml_monitoring_messages_size";
constexpr const char* kInternalVariable = "pml_monitoring_internal_messages_size";

// One SIZE variable bound to `comm`: a value per rank of it. Empty with `problem` set when
// it cannot be read (monitoring off: the variable does not exist).
std::vector<unsigned long long> read_peer_variable(MPI_Comm comm, const char* name, std::string& problem) {
  std::vector<unsigned long long> values;
  int provided = 0, index = -1, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    problem = "MPI_T_init_thread failed";
    return values;
  }
  bool ok = MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_SIZE, &index) == MPI_SUCCESS;
  if (!ok) problem = std::string(name) + " is unavailable (run under mpimon with pml_monitoring_enable >= 1)";
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  if (ok && MPI_T_pvar_session_create(&session) == MPI_SUCCESS) {
    ok = MPI_T_pvar_handle_alloc(session, index, &comm, &handle, &count) == MPI_SUCCESS;
    if (ok) {
      values.assign(count, 0);
      ok = MPI_T_pvar_start(session, handle) == MPI_SUCCESS &&
           MPI_T_pvar_read(session, handle, values.data()) == MPI_SUCCESS;
      MPI_T_pvar_stop(session, handle);
      MPI_T_pvar_handle_free(session, &handle);
    }
    MPI_T_pvar_session_free(&session);
    if (!ok) {
      problem = std::string(name) + " could not be read on this communicator";
      values.clear();
    }
  } else if (ok) {
    problem = "MPI_T_pvar_session_create failed";
    ok = false;
  }
  MPI_T_finalize();
  return values;
}

// The totals a mark keeps: peer -> bytes, per kind, only non-zeros.
struct Mark {
  std::map<int, unsigned long long> external, internal;
};

int delete_mark(MPI_Comm, int, void* value, void*) {
  delete static_cast<Mark*>(value);
  return MPI_SUCCESS;
}

int mark_keyval() {
  static int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    // A duplicated communicator does not inherit the mark (MPI_COMM_NULL_COPY_FN).
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_mark, &k, nullptr);
    return k;
  }();
  return keyval;
}

const Mark* mark_of(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  if (MPI_Comm_get_attr(comm, mark_keyval(), &value, &found) != MPI_SUCCESS || !found) return nullptr;
  return static_cast<const Mark*>(value);
}

std::map<int, unsigned long long> non_zeros(const std::vector<unsigned long long>& values) {
  std::map<int, unsigned long long> sparse;
  for (size_t p = 0; p < values.size(); ++p)
    if (values[p] != 0) sparse.emplace(static_cast<int>(p), values[p]);
  return sparse;
}

}  // namespace

SentTraffic sent_traffic(MPI_Comm comm, TrafficKind kind) {
  SentTraffic result;
  int rank;
  MPI_Comm_rank(comm, &rank);
  const Mark* mark = mark_of(comm);
  std::vector<double> bytes;
  auto add = [&](const char* variable, const std::map<int, unsigned long long>* before) {
    std::string problem;
    const std::vector<unsigned long long> values = read_peer_variable(comm, variable, problem);
    if (!problem.empty()) {
      result.problem = problem;
      return false;
    }
    bytes.resize(values.size(), 0);
    for (size_t p = 0; p < values.size(); ++p) {
      unsigned long long since = values[p];
      if (before) {
        const auto it = before->find(static_cast<int>(p));
        if (it != before->end()) since = since >= it->second ? since - it->second : 0;
      }
      bytes[p] += static_cast<double>(since);
    }
    return true;
  };
  if (kind != TrafficKind::internal && !add(kExternalVariable, mark ? &mark->external : nullptr)) return result;
  if (kind != TrafficKind::external && !add(kInternalVariable, mark ? &mark->internal : nullptr)) return result;
  for (size_t p = 0; p < bytes.size(); ++p)
    if (bytes[p] != 0 && static_cast<int>(p) != rank) result.traffic.push_back({rank, static_cast<int>(p), bytes[p]});
  result.ok = true;
  return result;
}

int mark_sent_traffic(MPI_Comm comm) {
  std::string problem;
  auto mark = std::make_unique<Mark>();
  mark->external = non_zeros(read_peer_variable(comm, kExternalVariable, problem));
  if (problem.empty()) mark->internal = non_zeros(read_peer_variable(comm, kInternalVariable, problem));
  if (!problem.empty()) return MPI_ERR_OTHER;
  // Setting the attribute deletes an earlier mark through delete_mark.
  return MPI_Comm_set_attr(comm, mark_keyval(), mark.release());
}

}  // namespace mpimon::reorder
