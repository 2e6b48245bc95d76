// Open MPI 4.1 series: the PMIx lookups our code makes (the start-up check of the
// deployment, coll/splittree's host plan), through 4.1's opal_pmix module.
// ompi-5.0/ompi_release_pmix.h declares the same names over the PMIx v4 API.
#pragma once

#include "runtime/ompi_glue.h"

#include <opal/mca/pmix/pmix.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace mpimon::ompi_release::pmix {

inline constexpr const char* kHostname = OPAL_PMIX_HOSTNAME;
inline constexpr const char* kNumNodes = OPAL_PMIX_NUM_NODES;
inline constexpr const char* kNodeList = OPAL_PMIX_NODE_LIST;
inline constexpr const char* kLocalPeers = OPAL_PMIX_LOCAL_PEERS;
inline constexpr const char* kCpuset = OPAL_PMIX_CPUSET;
inline constexpr uint32_t kWildcardRank = OPAL_VPID_WILDCARD;

// A lookup of what `rank` of our job (or kWildcardRank: the job itself) has under a key.
// `optional`: answer from what this process's PMIx store already holds, never ask a
// server and never wait. on_node: node-level information of another node, given by its
// position in the job's node list (0 .. nodes-1) and its name there; 4.1 looks it up by
// position (its PMIx node ids are those positions).
class Query {
 public:
  explicit Query(bool optional) {
    OBJ_CONSTRUCT(&list_, opal_list_t);
    if (optional) {
      opal_value_t* flag = OBJ_NEW(opal_value_t);
      flag->key = strdup(OPAL_PMIX_OPTIONAL);
      flag->type = OPAL_BOOL;
      flag->data.flag = true;
      opal_list_append(&list_, &flag->super);
    }
  }
  ~Query() { OPAL_LIST_DESTRUCT(&list_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& on_node(uint32_t node, const std::string& /*name*/) {
    opal_value_t* id = OBJ_NEW(opal_value_t);
    id->key = strdup(OPAL_PMIX_NODEID);
    id->type = OPAL_UINT32;
    id->data.uint32 = node;
    opal_list_append(&list_, &id->super);
    return *this;
  }

  std::optional<std::string> string(uint32_t rank, const char* key) {
    opal_value_t* value = get(rank, key);
    if (value == nullptr) return std::nullopt;
    std::optional<std::string> text;
    if (value->type == OPAL_STRING && value->data.string != nullptr) text = value->data.string;
    OBJ_RELEASE(value);
    return text;
  }

  std::optional<uint32_t> number(uint32_t rank, const char* key) {
    opal_value_t* value = get(rank, key);
    if (value == nullptr) return std::nullopt;
    std::optional<uint32_t> n;
    if (value->type == OPAL_UINT32) n = value->data.uint32;
    OBJ_RELEASE(value);
    return n;
  }

 private:
  opal_list_t list_;

  opal_value_t* get(uint32_t rank, const char* key) {
    opal_process_name_t who = ompi_proc_local_proc->super.proc_name;
    who.vpid = rank;
    opal_value_t* value = nullptr;
    if (opal_pmix.get(&who, key, &list_, &value) != OPAL_SUCCESS) return nullptr;
    return value;
  }
};

// What each of `ranks` of our job published under `key` with put_global_string, in the
// same order (nullopt: nothing, e.g. a rank without our components). When the modex fence
// collected the data (Open MPI's default) it reached this process and is looked up here
// only; otherwise (direct modex) PMIx fetches it from the rank's host, whose rank has
// committed its data in its own MPI_Init, and answers "not found" for a key it lacks.
inline std::vector<std::optional<std::string>> published_strings(const std::vector<uint32_t>& ranks, const char* key) {
  std::vector<std::optional<std::string>> texts;
  texts.reserve(ranks.size());
  for (const uint32_t rank : ranks) texts.push_back(Query(opal_pmix_collect_all_data).string(rank, key));
  return texts;
}

// Publishes `value` under `key` with global scope (committed by Open MPI's own modex
// fence in MPI_Init). Returns Open MPI's status.
inline int put_global_string(const char* key, const std::string& value) {
  int rc = OPAL_SUCCESS;
  // The macro takes mutable pointers; opal_value_load copies the string.
  OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, const_cast<char*>(key), const_cast<char*>(value.c_str()), OPAL_STRING);
  return rc;
}

}  // namespace mpimon::ompi_release::pmix
