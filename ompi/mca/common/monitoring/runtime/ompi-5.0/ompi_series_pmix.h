// Open MPI 5.0 series: the PMIx lookups our code makes (the start-up check of the
// deployment, coll/splittree's host plan), through the PMIx v4 API of the external PMIx
// 5.0 uses (4.1's opal_pmix module, opal_value_t and OPAL_PMIX_* keys are gone).
// ompi-4.1/ompi_series_pmix.h declares the same names.
#pragma once

#include "runtime/ompi_glue.h"

#include <opal/mca/pmix/pmix-internal.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpimon::ompi_series::pmix {

inline constexpr const char* kHostname = PMIX_HOSTNAME;
inline constexpr const char* kNumNodes = PMIX_NUM_NODES;
inline constexpr const char* kNodeList = PMIX_NODE_LIST;
inline constexpr const char* kLocalPeers = PMIX_LOCAL_PEERS;
inline constexpr const char* kCpuset = PMIX_CPUSET;
inline constexpr uint32_t kWildcardRank = OPAL_VPID_WILDCARD;

// Whether the modex fence brings every rank's published data into this process.
inline bool collects_all_data() { return opal_pmix_collect_all_data; }

// A lookup of what `rank` of our job (or kWildcardRank: the job itself) has under a key.
// `optional`: answer from what this process's PMIx store already holds, never ask a
// server and never wait. on_node: node-level information of another node (its PMIx node
// id, 0 .. nodes-1 in the order of the job's node list).
class Query {
 public:
  explicit Query(bool optional) : optional_(optional) {}
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& on_node(uint32_t node) {
    node_ = node;
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
  std::optional<uint32_t> node_;

  pmix_value_t* get(uint32_t rank, const char* key) {
    opal_process_name_t name = ompi_proc_local_proc->super.proc_name;
    name.vpid = rank;
    pmix_proc_t who;
    OPAL_PMIX_CONVERT_NAME(&who, &name);
    pmix_info_t info[2];
    size_t count = 0;
    bool flag = true;
    uint32_t node = node_.value_or(0);
    if (optional_) PMIX_INFO_LOAD(&info[count++], PMIX_OPTIONAL, &flag, PMIX_BOOL);
    if (node_) PMIX_INFO_LOAD(&info[count++], PMIX_NODEID, &node, PMIX_UINT32);
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

// Publishes `value` under `key` with global scope (committed by Open MPI's own modex
// fence in MPI_Init). Returns PMIx's status (0 = success).
inline int put_global_string(const char* key, const std::string& value) {
  pmix_value_t data;
  PMIX_VALUE_LOAD(&data, value.c_str(), PMIX_STRING);  // copies the string
  const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &data);
  PMIX_VALUE_DESTRUCT(&data);
  return rc;
}

}  // namespace mpimon::ompi_series::pmix
