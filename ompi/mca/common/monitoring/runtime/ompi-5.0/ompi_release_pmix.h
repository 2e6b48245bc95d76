// Open MPI 5.0 series: the PMIx lookups our code makes (the start-up check of the
// deployment, coll/splittree's host plan), through the PMIx v4 API of the external PMIx
// 5.0 uses (4.1's opal_pmix module, opal_value_t and OPAL_PMIX_* keys are gone).
// ompi-4.1/ompi_release_pmix.h declares the same names.
#pragma once

#include "runtime/ompi_glue.h"

#include <opal/mca/pmix/pmix-internal.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mpimon::ompi_release::pmix {

inline constexpr const char* kHostname = PMIX_HOSTNAME;
inline constexpr const char* kNumNodes = PMIX_NUM_NODES;
inline constexpr const char* kNodeList = PMIX_NODE_LIST;
inline constexpr const char* kLocalPeers = PMIX_LOCAL_PEERS;
inline constexpr const char* kCpuset = PMIX_CPUSET;
inline constexpr uint32_t kWildcardRank = OPAL_VPID_WILDCARD;

// A lookup of what `rank` of our job (or kWildcardRank: the job itself) has under a key.
// `optional`: answer from what this process's PMIx store already holds, never ask a
// server and never wait. on_node: node-level information of another node, given by its
// position in the job's node list (0 .. nodes-1) and its name there; 5.0 looks it up by
// name (PRRTE's PMIx node ids count the launcher's node too, even when it runs no rank).
class Query {
 public:
  explicit Query(bool optional) : optional_(optional) {}
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& on_node(uint32_t /*node*/, const std::string& name) {
    node_name_ = name;
    return *this;
  }

  std::optional<std::string> string(uint32_t rank, const char* key) {
    pmix_value_t* value = get(rank, key);
    if (value == nullptr) return std::nullopt;
    std::optional<std::string> text;
    if (value->type == PMIX_STRING && value->data.string != nullptr) text = value->data.string;
    PMIX_VALUE_RELEASE(value);
    return text;
  }

  std::optional<uint32_t> number(uint32_t rank, const char* key) {
    pmix_value_t* value = get(rank, key);
    if (value == nullptr) return std::nullopt;
    std::optional<uint32_t> n;
    if (value->type == PMIX_UINT32) n = value->data.uint32;
    PMIX_VALUE_RELEASE(value);
    return n;
  }

 private:
  bool optional_;
  std::optional<std::string> node_name_;

  pmix_value_t* get(uint32_t rank, const char* key) {
    opal_process_name_t name = ompi_proc_local_proc->super.proc_name;
    name.vpid = rank;
    pmix_proc_t who;
    OPAL_PMIX_CONVERT_NAME(&who, &name);
    pmix_info_t info[2];
    size_t count = 0;
    bool flag = true;
    if (optional_) PMIX_INFO_LOAD(&info[count++], PMIX_OPTIONAL, &flag, PMIX_BOOL);
    if (node_name_) PMIX_INFO_LOAD(&info[count++], PMIX_HOSTNAME, node_name_->c_str(), PMIX_STRING);
    pmix_value_t* value = nullptr;
    const pmix_status_t rc = PMIx_Get(&who, key, count ? info : nullptr, count, &value);
    for (size_t i = 0; i < count; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
      if (value != nullptr) PMIX_VALUE_RELEASE(value);
      return nullptr;
    }
    return value;
  }
};

// How long published_strings waits for a rank's key: a present key is answered at once
// (the fence, or the direct modex, has brought the rank's data to this host's server); a
// key the rank never published is never answered before this.
inline constexpr int kPublishedDataTimeoutSeconds = 5;

// What each of `ranks` of our job published under `key` with put_global_string, in the
// same order (nullopt: nothing, e.g. a rank without our components).
//
// 5.0's PMIx (v4 and later) keeps another host's data with this host's server, also when
// the fence collected it: a lookup that may not ask the server (PMIX_OPTIONAL) finds
// nothing there. And the server does not answer "not found" for a key that a rank which
// has committed its data lacks: it waits for that key to be committed (PMIx allows later
// commits). So every lookup asks, with a timeout, and all are asked at once: a job on
// hosts without our components waits kPublishedDataTimeoutSeconds once, not once per host.
inline std::vector<std::optional<std::string>> published_strings(const std::vector<uint32_t>& ranks, const char* key) {
  // Shared with PMIx's callbacks, which outlive this call if PMIx never answers.
  struct Batch {
    std::mutex mutex;
    std::condition_variable answered;
    size_t pending = 0;
    std::vector<std::optional<std::string>> texts;
    std::vector<pmix_proc_t> who;
    pmix_info_t timeout;
  };
  struct Answer {
    std::shared_ptr<Batch> batch;
    size_t index;
  };
  auto batch = std::make_shared<Batch>();
  batch->texts.resize(ranks.size());
  batch->who.resize(ranks.size());
  int seconds = kPublishedDataTimeoutSeconds;
  PMIX_INFO_LOAD(&batch->timeout, PMIX_TIMEOUT, &seconds, PMIX_INT);
  const pmix_value_cbfunc_t on_answer = [](pmix_status_t status, pmix_value_t* value, void* data) {
    const auto* answer = static_cast<Answer*>(data);
    Batch& b = *answer->batch;
    {
      std::lock_guard<std::mutex> lock(b.mutex);
      // The value belongs to PMIx: copied here.
      if (status == PMIX_SUCCESS && value != nullptr && value->type == PMIX_STRING && value->data.string != nullptr)
        b.texts[answer->index] = value->data.string;
      --b.pending;
    }
    b.answered.notify_all();
    delete answer;
  };
  for (size_t i = 0; i < ranks.size(); ++i) {
    opal_process_name_t name = ompi_proc_local_proc->super.proc_name;
    name.vpid = ranks[i];
    OPAL_PMIX_CONVERT_NAME(&batch->who[i], &name);
    {
      std::lock_guard<std::mutex> lock(batch->mutex);
      ++batch->pending;
    }
    auto* answer = new Answer{batch, i};
    if (PMIx_Get_nb(&batch->who[i], key, &batch->timeout, 1, on_answer, answer) != PMIX_SUCCESS) {
      delete answer;
      std::lock_guard<std::mutex> lock(batch->mutex);
      --batch->pending;
    }
  }
  std::unique_lock<std::mutex> lock(batch->mutex);
  // PMIx's own timeout ends every lookup; ours only guards against a PMIx that never calls back.
  batch->answered.wait_for(lock, std::chrono::seconds(2 * kPublishedDataTimeoutSeconds + 5),
                           [&] { return batch->pending == 0; });
  return batch->texts;
}

// Publishes `value` under `key` with global scope (committed by Open MPI's own modex
// fence in MPI_Init). Returns PMIx's status (0 = success).
inline int put_global_string(const char* key, const std::string& value) {
  pmix_value_t data;
  PMIX_VALUE_LOAD(&data, value.c_str(), PMIX_STRING);  // copies the string
  const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &data);
  PMIX_VALUE_DESTRUCT(&data);
  return rc;
}

}  // namespace mpimon::ompi_release::pmix
