#include "communicator_classes.h"

#include "job_format.h"

namespace mpimon {

bool CommunicatorClasses::has_traffic() const noexcept {
  for (const Totals& t : totals_)
    if (t.count.load(std::memory_order_relaxed) != 0) return true;
  return false;
}

CommunicatorClasses* CommunicatorRegistry::open(std::string name, std::vector<int32_t> world_ranks) {
  std::lock_guard lock(mutex_);
  entries_.emplace_back(std::move(name), std::move(world_ranks));
  return &entries_.back();
}

void CommunicatorRegistry::close(CommunicatorClasses* entry, std::string final_name) {
  std::lock_guard lock(mutex_);
  entry->name_ = std::move(final_name);
  entry->open_ = false;
  auto self = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (&*it == entry) self = it;
  if (self == entries_.end()) return;
  if (!entry->has_traffic()) {
    entries_.erase(self);
    return;
  }
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it == self || it->open_ || it->name_ != entry->name_ || it->world_ranks_ != entry->world_ranks_) continue;
    for (int c = 0; c < kCollectiveClassCount; ++c) {
      it->totals_[c].count.fetch_add(entry->totals_[c].count.load(std::memory_order_relaxed));
      it->totals_[c].bytes.fetch_add(entry->totals_[c].bytes.load(std::memory_order_relaxed));
    }
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
  std::string out;
  registry.for_each([&](const CommunicatorClasses& e) {
    if (!e.has_traffic()) return;
    const std::string name = escape_name(e.name(), true);
    out += "collectives " + std::to_string(me) + " " + name;
    for (int c = 0; c < kCollectiveClassCount; ++c) {
      const ClassTotals t = e.totals(static_cast<CollectiveClass>(c));
      out += " " + std::to_string(t.count) + " " + std::to_string(t.bytes);
    }
    out += '\n';
    if (!e.world_ranks().empty() && e.world_ranks().front() == me)
      out += "communicator " + name + " " + join_ranks(e.world_ranks()) + "\n";
  });
  return out;
}

}  // namespace mpimon
