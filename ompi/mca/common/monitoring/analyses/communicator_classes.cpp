#include "analyses/communicator_classes.h"

#include <map>

#include "analyses/nbc_overlap.h"
#include "formats/checksum.h"
#include "formats/job_format.h"

namespace mpimon {

CommunicatorClasses::CommunicatorClasses(std::string name, std::vector<int32_t> world_ranks, uint32_t context_id)
    : name_(std::move(name)), world_ranks_(std::move(world_ranks)), context_id_(context_id) {}

CommunicatorClasses::~CommunicatorClasses() = default;

NbcTotals& CommunicatorClasses::nbc_totals() {
  if (!nbc_) nbc_ = std::make_unique<NbcTotals>();
  return *nbc_;
}

bool CommunicatorClasses::has_traffic() const noexcept {
  for (const Totals& t : totals_)
    if (t.count.load(std::memory_order_relaxed) != 0) return true;
  return nbc_ != nullptr && nbc_->has_lines();  // a nonblocking collective completed, or went unfollowed
}

uint64_t members_hash(const std::vector<int32_t>& world_ranks) {
  uint64_t hash = kFnvOffset;
  for (const int32_t rank : world_ranks) hash = fnv1a64(std::to_string(rank) + ",", hash);
  return hash;
}

std::string CommunicatorClasses::identity() const {
  return std::to_string(context_id_) + "-" + to_hex(members_hash(world_ranks_), 16);
}

CommunicatorClasses* CommunicatorRegistry::open(std::string name, std::vector<int32_t> world_ranks,
                                                uint32_t context_id) {
  std::lock_guard lock(mutex_);
  entries_.emplace_back(std::move(name), std::move(world_ranks), context_id);
  return &entries_.back();
}

void CommunicatorRegistry::close(CommunicatorClasses* entry, std::string final_name, int32_t me) {
  std::lock_guard lock(mutex_);
  entry->name_ = std::move(final_name);
  entry->open_ = false;
  auto self = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (&*it == entry) self = it;
  if (self == entries_.end()) return;
  const bool lists_members = entry->world_ranks_.size() > 1 && entry->world_ranks_.front() == me;
  if (!entry->has_traffic() && !lists_members) {
    entries_.erase(self);
    return;
  }
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it == self || it->open_ || it->name_ != entry->name_ || it->world_ranks_ != entry->world_ranks_ ||
        it->context_id_ != entry->context_id_)
      continue;
    for (int c = 0; c < kCollectiveClassCount; ++c) {
      it->totals_[c].count.fetch_add(entry->totals_[c].count.load(std::memory_order_relaxed));
      it->totals_[c].bytes.fetch_add(entry->totals_[c].bytes.load(std::memory_order_relaxed));
    }
    if (entry->nbc_) it->nbc_totals().merge(*entry->nbc_);
    entries_.erase(self);
    return;
  }
}

size_t CommunicatorRegistry::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

namespace {

const char* const kProfClass[kCollectiveClassCount] = {"O2A", "A2O", "A2A"};

std::string join_ranks(const std::vector<int32_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(ranks[i]);
  }
  return out;
}

}  // namespace

std::string format_prof_communicators(int me, const CommunicatorRegistry& registry) {
  std::string out;
  registry.for_each([&](const CommunicatorClasses& e) {
    if (!e.is_open() && !e.has_traffic()) return;  // kept only for the job file's member list
    out += "D\t" + e.name() + "\tprocs: " + join_ranks(e.world_ranks()) + "\n";
    for (int c = 0; c < kCollectiveClassCount; ++c) {
      const ClassTotals t = e.totals(static_cast<CollectiveClass>(c));
      out += std::string(kProfClass[c]) + "\t" + std::to_string(me) + "\t" + std::to_string(t.bytes) + " bytes\t" +
             std::to_string(t.count) + " msgs sent\n";
    }
  });
  return out;
}

std::string format_job_communicators(int me, const CommunicatorRegistry& registry) {
  struct Identity {
    std::string name;
    std::vector<int32_t> members;
    ClassTotals totals[kCollectiveClassCount];
    bool traffic = false;
  };
  std::vector<std::string> order;  // identities in registry order
  std::map<std::string, Identity> identities;
  registry.for_each([&](const CommunicatorClasses& e) {
    const std::string id = e.identity();
    auto [it, added] = identities.try_emplace(id);
    if (added) {
      order.push_back(id);
      it->second.name = e.name();
      it->second.members = e.world_ranks();
    }
    for (int c = 0; c < kCollectiveClassCount; ++c) {
      const ClassTotals t = e.totals(static_cast<CollectiveClass>(c));
      it->second.totals[c].count += t.count;
      it->second.totals[c].bytes += t.bytes;
    }
    it->second.traffic = it->second.traffic || e.has_traffic();
  });
  std::string out;
  for (const std::string& id : order) {
    const Identity& i = identities[id];
    if (i.traffic) {
      out += "collectives " + std::to_string(me) + " " + id;
      for (const ClassTotals& t : i.totals) out += " " + std::to_string(t.count) + " " + std::to_string(t.bytes);
      out += '\n';
    }
    if (!i.members.empty() && i.members.front() == me && (i.members.size() > 1 || i.traffic))
      out += "communicator " + id + " " + escape_name(i.name, true) + " " + join_ranks(i.members) + "\n";
  }
  return out;
}

}  // namespace mpimon
