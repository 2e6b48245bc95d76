// Per-communicator totals of the COLL layer, by collective class: one-to-all (bcast,
// scatter), all-to-one (gather, reduce) and all-to-all (everything else). Pure C++.
//
// Entries are created when a communicator gets our COLL module and closed when it is
// freed. A closed entry with traffic is kept for the end-of-job dump, merged with an
// earlier closed entry of the same name, members and context id (so 10 000 dup/free
// cycles keep memory flat); one without traffic is dropped, unless this process is the
// communicator's first member (it lists the members in the job file).
//
// Identity. Open MPI reuses context ids and default names ("MPI_COMMUNICATOR 4 SPLIT
// FROM 0" twice, with other members), and names are local (MPI_Comm_set_name). What
// every member agrees on without communicating is the context id and the members, so a
// communicator's job-file identity is `<context id>-<FNV-1a 64 of the members' world
// ranks, 16 hex digits>`: the same on every member, distinct for distinct member lists
// (a 64-bit hash: the reader refuses a file where one identity has two member lists).
// Two communicators with the same context id and members (one freed, then an
// equivalent one created) share an identity; their totals add up.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mpimon {

struct NbcTotals;  // analyses/nbc_overlap.h

enum class CollectiveClass : uint8_t { one_to_all = 0, all_to_one = 1, all_to_all = 2 };
inline constexpr int kCollectiveClassCount = 3;

struct ClassTotals {
  uint64_t count = 0;  // collective calls of that class
  uint64_t bytes = 0;  // bytes this process sent in them
};

// FNV-1a 64 over "<rank>," for each world rank in rank order: the member part of a
// communicator's identity (below), also of a file's (mpi_io/file_record.h).
uint64_t members_hash(const std::vector<int32_t>& world_ranks);

class CommunicatorClasses {
 public:
  CommunicatorClasses(std::string name, std::vector<int32_t> world_ranks, uint32_t context_id = 0);
  ~CommunicatorClasses();

  void add(CollectiveClass c, uint64_t bytes) noexcept {
    Totals& t = totals_[static_cast<int>(c)];
    t.count.fetch_add(1, std::memory_order_relaxed);
    t.bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  ClassTotals totals(CollectiveClass c) const noexcept {
    const Totals& t = totals_[static_cast<int>(c)];
    return {t.count.load(std::memory_order_relaxed), t.bytes.load(std::memory_order_relaxed)};
  }
  bool has_traffic() const noexcept;
  const std::string& name() const { return name_; }
  void rename(std::string name) { name_ = std::move(name); }
  const std::vector<int32_t>& world_ranks() const { return world_ranks_; }
  uint32_t context_id() const { return context_id_; }
  bool is_open() const { return open_; }
  // The job-file identity (see above).
  std::string identity() const;

  // The nonblocking collectives followed (or left unfollowed) on this communicator
  // (analyses/nbc_overlap.h): null until the first; nbc_totals() creates them. Written and
  // read under the NbcTracker's lock.
  const NbcTotals* nbc() const { return nbc_.get(); }
  NbcTotals& nbc_totals();

 private:
  friend class CommunicatorRegistry;
  struct Totals {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> bytes{0};
  };
  std::string name_;
  std::vector<int32_t> world_ranks_;  // the members (local group), in rank order
  uint32_t context_id_ = 0;
  Totals totals_[kCollectiveClassCount];
  std::unique_ptr<NbcTotals> nbc_;
  bool open_ = true;
};

class CommunicatorRegistry {
 public:
  // A new entry for a communicator (stable address until close()).
  CommunicatorClasses* open(std::string name, std::vector<int32_t> world_ranks, uint32_t context_id = 0);
  // The communicator is freed: keep its totals if it had traffic (merged with an earlier
  // closed twin), else forget it (unless `me` is its first member).
  void close(CommunicatorClasses* entry, std::string final_name, int32_t me = -1);

  // Every entry (open first as created, then closed ones), for dumps.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    std::lock_guard lock(mutex_);
    for (const CommunicatorClasses& e : entries_) visit(e);
  }
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::list<CommunicatorClasses> entries_;  // std::list: addresses stay valid
};

// The .prof lines of Open MPI's COLL component for every open entry and every closed one
// with traffic:
//   D <name> procs: <world ranks, comma-separated>
//   O2A <me> <B> bytes <n> msgs sent   (and A2O, A2A)
std::string format_prof_communicators(int me, const CommunicatorRegistry& registry);

// Job-file annotations (version 2), one per identity (entries sharing one are summed):
//   collectives <me> <identity> <o2a n> <o2a B> <a2o n> <a2o B> <a2a n> <a2a B>
//     when this process sent in a collective of the communicator;
//   communicator <identity> <name> <world ranks, comma-separated>
//     written only by the communicator's first member (members listed once per job),
//     for every communicator of more than one process, and for one-process ones with
//     traffic.
// Names are escaped with escape_name (formats/job_format.h): space -> %20, % -> %25.
std::string format_job_communicators(int me, const CommunicatorRegistry& registry);

}  // namespace mpimon
