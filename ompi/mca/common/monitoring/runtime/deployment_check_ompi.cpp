#include "runtime/deployment_check_ompi.h"

#include "runtime/ompi_glue.h"

#include <opal/mca/pmix/pmix.h>

#include <cstdlib>
#include <optional>

namespace mpimon {

namespace {

// An info list for opal_pmix.get. `optional`: answer from what this process's PMIx
// store already holds, never ask a server and never wait.
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

  // Node-level information of another node: its PMIx node id (0 .. nodes-1, in the
  // order of the job's node list).
  Query& on_node(uint32_t node) {
    opal_value_t* id = OBJ_NEW(opal_value_t);
    id->key = strdup(OPAL_PMIX_NODEID);
    id->type = OPAL_UINT32;
    id->data.uint32 = node;
    opal_list_append(&list_, &id->super);
    return *this;
  }

  std::optional<std::string> string(const opal_process_name_t& who, const char* key) {
    opal_value_t* value = nullptr;
    if (opal_pmix.get(&who, key, &list_, &value) != OPAL_SUCCESS || value == nullptr) return std::nullopt;
    std::optional<std::string> text;
    if (value->type == OPAL_STRING && value->data.string != nullptr) text = value->data.string;
    OBJ_RELEASE(value);
    return text;
  }

  std::optional<uint32_t> number(const opal_process_name_t& who, const char* key) {
    opal_value_t* value = nullptr;
    if (opal_pmix.get(&who, key, &list_, &value) != OPAL_SUCCESS || value == nullptr) return std::nullopt;
    std::optional<uint32_t> n;
    if (value->type == OPAL_UINT32) n = value->data.uint32;
    OBJ_RELEASE(value);
    return n;
  }

 private:
  opal_list_t list_;
};

opal_process_name_t rank_name(int rank) {
  opal_process_name_t name = ompi_proc_local_proc->super.proc_name;
  name.vpid = static_cast<opal_vpid_t>(rank);
  return name;
}

// What `rank` published under our key. When the fence collected everyone's data (Open
// MPI's default) it is in our store; otherwise PMIx fetches it from the rank's host
// (direct modex: that rank has committed its data in its own MPI_Init).
std::optional<std::string> published_tag(int rank) {
  return Query(opal_pmix_collect_all_data).string(rank_name(rank), kComponentsKey);
}

std::string hostname_of(int rank) {
  const auto name = Query(true).string(rank_name(rank), OPAL_PMIX_HOSTNAME);
  return name ? *name : "the host of rank " + std::to_string(rank);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// The lowest rank in "3,1,7"; nullopt if the list is empty or malformed.
std::optional<int> lowest_rank(const std::string& peers) {
  std::optional<int> lowest;
  for (const std::string& p : split_commas(peers)) {
    char* end = nullptr;
    const long rank = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || rank < 0) return std::nullopt;
    if (!lowest || rank < *lowest) lowest = static_cast<int>(rank);
  }
  return lowest;
}

}  // namespace

std::string publish_components_tag(const std::string& tag) {
  int rc = OPAL_SUCCESS;
  // The macro takes mutable pointers; opal_value_load copies the string.
  OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, const_cast<char*>(kComponentsKey), const_cast<char*>(tag.c_str()),
                        OPAL_STRING);
  return rc == OPAL_SUCCESS
             ? ""
             : "cannot publish this rank's components in the PMIx modex (error " + std::to_string(rc) + ")";
}

std::vector<HostReport> probe_hosts(int world_size) {
  std::vector<HostReport> reports;
  const opal_process_name_t job = rank_name(0);
  opal_process_name_t wildcard = job;
  wildcard.vpid = OPAL_VPID_WILDCARD;
  const auto nodes = Query(true).number(wildcard, OPAL_PMIX_NUM_NODES);
  const auto node_list = Query(true).string(wildcard, OPAL_PMIX_NODE_LIST);
  const std::vector<std::string> names = node_list ? split_commas(*node_list) : std::vector<std::string>{};
  if (nodes && *nodes > 0) {
    for (uint32_t n = 0; n < *nodes; ++n) {
      const auto peers = Query(true).on_node(n).string(wildcard, OPAL_PMIX_LOCAL_PEERS);
      const auto lowest = peers ? lowest_rank(*peers) : std::nullopt;
      if (!lowest || *lowest >= world_size) {
        reports.clear();  // no usable node map: look at every rank below
        break;
      }
      reports.push_back({names.size() == *nodes ? names[n] : hostname_of(*lowest), *lowest, published_tag(*lowest)});
    }
  }
  if (reports.empty())
    for (int r = 0; r < world_size; ++r) reports.push_back({hostname_of(r), r, published_tag(r)});
  return reports;
}

}  // namespace mpimon
