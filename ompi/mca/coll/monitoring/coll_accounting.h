// The COLL layer's accounting rules, written once. Every collective is recorded at the
// process that sends, before the real module's call returns, as the logical pattern (not
// the algorithm's): per peer (world rank, category coll) and per communicator class.
//
//   collective (and its i- form)          who records what, D = count x packed type size
//   ------------------------------------  ------------------------------------------------
//   allgather, allgatherv, allreduce,     D to every other member (intercommunicator:
//   alltoall, reduce_scatter_block          every member of the remote group)
//   alltoallv, alltoallw, reduce_scatter  counts[i] x size(type[i]) to member i (0 skipped)
//   barrier                               a 0-byte message to every other member
//   scan, exscan                          D to every higher rank
//   bcast, scatter                        root: D to every other member; others nothing
//   scatterv                              root: counts[i] x size to every other member i
//                                           (its own block is not a message)
//   gather, gatherv, reduce               every non-root: its D to the root; root nothing
//   neighbor_* (cart, graph, dist-graph)  to each out-neighbour k (MPI_PROC_NULL skipped,
//                                           counts indexed by neighbour position k)
//
// MPI_IN_PLACE: the receive count/type describe the data (allgather, alltoall(v,w)).
// Classes: bcast/scatter(v) one-to-all, gather(v)/reduce all-to-one, the rest
// all-to-all; a class counts a call in which this process sent at least one message.
// Intercommunicator roots: MPI_ROOT sends, MPI_PROC_NULL does nothing. Intercommunicator
// reduce_scatter(_block): the process's contribution (sum of counts) split evenly over
// the remote group. Persistent *_init collectives and reduce_local are not counted.
#pragma once

#include "runtime/ompi_glue.h"

#include <mpi.h>

#include <atomic>
#include <vector>

#include "analyses/communicator_classes.h"
#include "engine/engine.h"
#include "runtime/world_rank_ompi.h"

namespace mpimon::coll {

// What the accounting keeps from call to call for one communicator (in our COLL module):
// the topology's out-neighbours and, in a single-threaded process, the counters of every
// other member. Both are found at the first call that needs them; a communicator's
// members and topology never change, and counter blocks never move.
struct CommunicatorCache {
  CommunicatorCache() = default;
  CommunicatorCache(const CommunicatorCache&) = delete;
  CommunicatorCache& operator=(const CommunicatorCache&) = delete;
  ~CommunicatorCache() {
    delete out_neighbours.load(std::memory_order_relaxed);
    delete[] every_other;
  }

  // Out-neighbours, in the order neighbourhood collectives use (see out_neighbours()):
  // published once (a concurrent first call computes its own and the loser's is freed).
  std::atomic<const std::vector<int>*> out_neighbours{nullptr};

  // The coll-category counters of the members a process sends to in an all-to-all
  // collective (every member of the remote group but itself), in rank order: the
  // process talks to all of them, so their blocks exist anyway. Built at the first such
  // collective of a single-threaded process; never, when a member belongs to another job
  // (those are only totalled) or the process is multi-threaded (atomic increments).
  enum class EveryOther : uint8_t { unknown, ready, unusable };
  EveryOther every_other_state = EveryOther::unknown;
  int every_other_count = 0;
  Counters** every_other = nullptr;
};

// One collective call being accounted for on one communicator.
class Sends {
 public:
  Sends(Engine& engine, const LocalJob& job, ompi_communicator_t* comm, CommunicatorCache& cache)
      : engine_(engine), job_(job), comm_(comm), cache_(cache) {}
  // Totals only, nothing recorded: what a collective will send, for its MPI_T begin event.
  struct TotalsOnly {};
  Sends(TotalsOnly, Engine& engine, const LocalJob& job, ompi_communicator_t* comm, CommunicatorCache& cache)
      : engine_(engine), job_(job), comm_(comm), cache_(cache), record_(false) {}

  // `bytes` to rank `peer` of the communicator's remote group (the group itself for an
  // intracommunicator).
  void to(int peer, uint64_t bytes) {
    total_ += bytes;
    ++messages_;
    if (!record_) return;
    int32_t world = peer;  // on MPI_COMM_WORLD the rank is the world rank
    if (comm_ != &ompi_mpi_comm_world.comm && !find_world_rank(comm_, peer, job_, world)) {
      engine_.record_other_job(Category::coll, bytes);
    } else {
      engine_.record(world, Category::coll, bytes);
    }
  }
  // The common all-to-all case, one histogram bucket for all: through the communicator's
  // cached counters when it has them (three increments per member), else the engine.
  [[gnu::always_inline]] void to_every_other(uint64_t bytes) {
    uint64_t sent;
    if (record_ && cache_.every_other_state == CommunicatorCache::EveryOther::ready) [[likely]] {
      const unsigned bucket = histogram_bucket(bytes);
      Counters* const* counters = cache_.every_other;
      const int count = cache_.every_other_count;
      for (int i = 0; i < count; ++i) {
        Counters& c = *counters[i];
        single_writer_add(c.messages, 1);
        single_writer_add(c.bytes, bytes);
        single_writer_add(c.histogram[bucket], 1);
      }
      sent = static_cast<uint64_t>(count);
    } else {
      sent = every_other_slow(engine_, job_, comm_, cache_, record_, bytes);
    }
    total_ += sent * bytes;
    messages_ += sent;
  }
  bool inter() const { return OMPI_COMM_IS_INTER(comm_); }
  int remote_size() const { return comm_->c_remote_group->grp_proc_count; }
  int my_rank() const { return comm_->c_my_rank; }
  ompi_communicator_t* comm() const { return comm_; }
  // The out-neighbours of the communicator's process topology (cached).
  const std::vector<int>& out_neighbours() const;
  uint64_t total() const { return total_; }
  uint64_t messages() const { return messages_; }

 private:
  // to_every_other without the cache (`record`: false for totals only), which it fills
  // the first time (or marks unusable); returns the messages.
  [[gnu::noinline]] static uint64_t every_other_slow(Engine& engine, const LocalJob& job, ompi_communicator_t* comm,
                                                     CommunicatorCache& cache, bool record, uint64_t bytes);

  Engine& engine_;
  const LocalJob& job_;
  ompi_communicator_t* comm_;
  CommunicatorCache& cache_;
  uint64_t total_ = 0;
  uint64_t messages_ = 0;
  bool record_ = true;
};

inline uint64_t packed(int count, const ompi_datatype_t* type) {
  return count <= 0 || type == nullptr ? 0 : static_cast<uint64_t>(count) * type->super.size;
}

// Out-neighbours of a process topology communicator, in the order neighbourhood
// collectives use (Cartesian: per dimension the -1 then the +1 neighbour; may be
// MPI_PROC_NULL at non-periodic borders). Sends::out_neighbours caches it.
std::vector<int> out_neighbours(ompi_communicator_t* comm);

// ---------------------------------------------------------------------------------------
// The rules, one per argument shape; each takes the collective's arguments (trailing
// comm/request/module arguments are ignored) and records into `s`. Inlined into each
// wrapper: the common ones are a few instructions there.

struct Rules {
  // allgather, alltoall (and i-forms)
  template <typename... Rest>
  [[gnu::always_inline]] static void same_to_all(Sends& s, const void* sbuf, int scount, ompi_datatype_t* sdtype, void*,
                                                 int rcount, ompi_datatype_t* rdtype, Rest&&...) {
    s.to_every_other(sbuf == MPI_IN_PLACE ? packed(rcount, rdtype) : packed(scount, sdtype));
  }
  // allgatherv (and i-form): the process sends its own block to everyone
  template <typename... Rest>
  [[gnu::always_inline]] static void allgatherv(Sends& s, const void* sbuf, int scount, ompi_datatype_t* sdtype, void*,
                                                const int* rcounts, const int*, ompi_datatype_t* rdtype, Rest&&...) {
    const int me = s.inter() ? 0 : s.my_rank();
    s.to_every_other(sbuf == MPI_IN_PLACE ? packed(rcounts[me], rdtype) : packed(scount, sdtype));
  }
  // allreduce (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void allreduce(Sends& s, const void*, void*, int count, ompi_datatype_t* dtype,
                                               ompi_op_t*, Rest&&...) {
    s.to_every_other(packed(count, dtype));
  }
  // alltoallv (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void alltoallv(Sends& s, const void* sbuf, const int* scounts, const int*,
                                               ompi_datatype_t* sdtype, void*, const int* rcounts, const int*,
                                               ompi_datatype_t* rdtype, Rest&&...) {
    const bool in_place = sbuf == MPI_IN_PLACE;
    per_peer(s, [&](int i) { return in_place ? packed(rcounts[i], rdtype) : packed(scounts[i], sdtype); });
  }
  // alltoallw (and i-form)
  template <typename Displacement, typename... Rest>
  [[gnu::always_inline]] static void alltoallw(Sends& s, const void* sbuf, const int* scounts, const Displacement*,
                                               ompi_datatype_t* const* sdtypes, void*, const int* rcounts,
                                               const Displacement*, ompi_datatype_t* const* rdtypes, Rest&&...) {
    const bool in_place = sbuf == MPI_IN_PLACE;
    per_peer(s, [&](int i) { return in_place ? packed(rcounts[i], rdtypes[i]) : packed(scounts[i], sdtypes[i]); });
  }
  // barrier (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void barrier(Sends& s, Rest&&...) {
    s.to_every_other(0);
  }
  // bcast (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void bcast(Sends& s, void*, int count, ompi_datatype_t* dtype, int root, Rest&&...) {
    if (is_root(s, root)) s.to_every_other(packed(count, dtype));
  }
  // scan, exscan (and i-forms)
  template <typename... Rest>
  [[gnu::always_inline]] static void prefix(Sends& s, const void*, void*, int count, ompi_datatype_t* dtype, ompi_op_t*,
                                            Rest&&...) {
    for (int i = s.my_rank() + 1; i < s.remote_size(); ++i) s.to(i, packed(count, dtype));
  }
  // gather (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void gather(Sends& s, const void*, int scount, ompi_datatype_t* sdtype, void*, int,
                                            ompi_datatype_t*, int root, Rest&&...) {
    to_root(s, root, packed(scount, sdtype));
  }
  // gatherv (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void gatherv(Sends& s, const void*, int scount, ompi_datatype_t* sdtype, void*,
                                             const int*, const int*, ompi_datatype_t*, int root, Rest&&...) {
    to_root(s, root, packed(scount, sdtype));
  }
  // reduce (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void reduce(Sends& s, const void*, void*, int count, ompi_datatype_t* dtype, ompi_op_t*,
                                            int root, Rest&&...) {
    to_root(s, root, packed(count, dtype));
  }
  // reduce_scatter (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void reduce_scatter(Sends& s, const void*, void*, const int* rcounts,
                                                    ompi_datatype_t* dtype, ompi_op_t*, Rest&&...) {
    if (s.inter()) {
      uint64_t sum = 0;
      for (int i = 0; i < local_size(s); ++i) sum += packed(rcounts[i], dtype);
      s.to_every_other(sum / s.remote_size());
      return;
    }
    per_peer(s, [&](int i) { return packed(rcounts[i], dtype); });
  }
  // reduce_scatter_block (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void reduce_scatter_block(Sends& s, const void*, void*, int rcount,
                                                          ompi_datatype_t* dtype, ompi_op_t*, Rest&&...) {
    if (s.inter()) {
      s.to_every_other(packed(rcount, dtype) * local_size(s) / s.remote_size());
      return;
    }
    s.to_every_other(packed(rcount, dtype));
  }
  // scatter (and i-form)
  template <typename... Rest>
  [[gnu::always_inline]] static void scatter(Sends& s, const void*, int scount, ompi_datatype_t* sdtype, void*, int,
                                             ompi_datatype_t*, int root, Rest&&...) {
    if (is_root(s, root)) s.to_every_other(packed(scount, sdtype));
  }
  // scatterv (and i-form): the root's own block is not a message
  template <typename... Rest>
  [[gnu::always_inline]] static void scatterv(Sends& s, const void*, const int* scounts, const int*,
                                              ompi_datatype_t* sdtype, void*, int, ompi_datatype_t*, int root,
                                              Rest&&...) {
    if (is_root(s, root)) per_peer(s, [&](int i) { return packed(scounts[i], sdtype); });
  }

  // <rule>_silent: the call sends nothing here, whatever the rest of its arguments (a
  // non-root of a one-to-all collective, the root of an all-to-one).
  template <typename... Rest>
  [[gnu::always_inline]] static bool bcast_silent(const Sends& s, void*, int, ompi_datatype_t*, int root, Rest&&...) {
    return !is_root(s, root);
  }
  template <typename... Rest>
  [[gnu::always_inline]] static bool scatter_silent(const Sends& s, const void*, int, ompi_datatype_t*, void*, int,
                                                    ompi_datatype_t*, int root, Rest&&...) {
    return !is_root(s, root);
  }
  template <typename... Rest>
  [[gnu::always_inline]] static bool scatterv_silent(const Sends& s, const void*, const int*, const int*,
                                                     ompi_datatype_t*, void*, int, ompi_datatype_t*, int root,
                                                     Rest&&...) {
    return !is_root(s, root);
  }
  template <typename... Rest>
  [[gnu::always_inline]] static bool gather_silent(const Sends& s, const void*, int, ompi_datatype_t*, void*, int,
                                                   ompi_datatype_t*, int root, Rest&&...) {
    return !sends_to_root(s, root);
  }
  template <typename... Rest>
  [[gnu::always_inline]] static bool gatherv_silent(const Sends& s, const void*, int, ompi_datatype_t*, void*,
                                                    const int*, const int*, ompi_datatype_t*, int root, Rest&&...) {
    return !sends_to_root(s, root);
  }
  template <typename... Rest>
  [[gnu::always_inline]] static bool reduce_silent(const Sends& s, const void*, void*, int, ompi_datatype_t*,
                                                   ompi_op_t*, int root, Rest&&...) {
    return !sends_to_root(s, root);
  }

  // Neighbourhood collectives
  template <typename... Rest>
  [[gnu::always_inline]] static void neighbor_same(Sends& s, const void*, int scount, ompi_datatype_t* sdtype,
                                                   Rest&&...) {
    const std::vector<int>& out = s.out_neighbours();
    for (int n : out)
      if (n != MPI_PROC_NULL) s.to(n, packed(scount, sdtype));
  }
  template <typename... Rest>
  [[gnu::always_inline]] static void neighbor_alltoallv(Sends& s, const void*, const int* scounts, const int*,
                                                        ompi_datatype_t* sdtype, Rest&&...) {
    const std::vector<int>& out = s.out_neighbours();
    for (size_t k = 0; k < out.size(); ++k)
      if (out[k] != MPI_PROC_NULL && scounts[k] > 0) s.to(out[k], packed(scounts[k], sdtype));
  }
  template <typename... Rest>
  [[gnu::always_inline]] static void neighbor_alltoallw(Sends& s, const void*, const int* scounts, const MPI_Aint*,
                                                        ompi_datatype_t* const* sdtypes, Rest&&...) {
    const std::vector<int>& out = s.out_neighbours();
    for (size_t k = 0; k < out.size(); ++k)
      if (out[k] != MPI_PROC_NULL && scounts[k] > 0) s.to(out[k], packed(scounts[k], sdtypes[k]));
  }

 private:
  static int local_size(const Sends& s) { return s.comm()->c_local_group->grp_proc_count; }
  // Intercommunicator: the root passes MPI_ROOT; intracommunicator: its own rank.
  [[gnu::always_inline]] static bool is_root(const Sends& s, int root) {
    return s.inter() ? root == MPI_ROOT : root == s.my_rank();
  }
  // Intercommunicator: the processes of the non-root group (root >= 0) send; an
  // intracommunicator: every process but the root.
  [[gnu::always_inline]] static bool sends_to_root(const Sends& s, int root) {
    return s.inter() ? root >= 0 : root != s.my_rank();
  }
  [[gnu::always_inline]] static void to_root(Sends& s, int root, uint64_t bytes) {
    if (sends_to_root(s, root)) s.to(root, bytes);
  }
  template <typename Bytes>
  [[gnu::always_inline]] static void per_peer(Sends& s, Bytes&& bytes_to) {
    const int n = s.remote_size(), me = s.inter() ? -1 : s.my_rank();
    for (int i = 0; i < n; ++i) {
      if (i == me) continue;
      const uint64_t b = bytes_to(i);
      if (b > 0) s.to(i, b);
    }
  }
};

}  // namespace mpimon::coll
