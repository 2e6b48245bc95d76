// Nonblocking collectives: did they overlap? Pure C++ (no Open MPI header): the COLL
// adapter tells the tracker when a nonblocking collective starts and completes and when
// the application waits for it; the PML adapter hands it the point-to-point sends it
// sees while some collective is pending. Per call the tracker derives
//
//   duration  start (the MPI_I... call) to completion (its request completes)
//   blocked   time spent in wait calls (MPI_Wait, _Waitall, _Waitany, _Waitsome) whose
//             requests included it, up to its completion
//   overlap   the share of its own point-to-point bytes (sends posted by this process on
//             its communicator with its tags) posted before the application first waited
//             for it; 1 if it completed before any wait (0-byte messages only: the share
//             of messages; no message of its own and waited for - a bcast leaf, a gather
//             root -: nothing to measure, left out of the mean and the histogram)
//
// and adds the call to its communicator's totals, per kind (NbcTotals, kept in the
// communicator's CommunicatorClasses entry). Which calls are followed: nbc_schedule.h;
// a kind whose calls were all left unfollowed says so ("not followed"), never 0.
//
// Cost: nothing while no collective is pending. The tracker calls its switches when the
// first collective becomes pending and when the last completes: the adapters install
// their send and wait wrappers only in between.
//
// Thread safety: one mutex, taken only when set_threaded(true) (MPI_THREAD_MULTIPLE).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "analyses/nbc_schedule.h"
#include "analyses/window_sync.h"  // SyncClock

namespace mpimon {

class CommunicatorClasses;
class CommunicatorRegistry;

// The nonblocking collectives, in the order of their kind values (part of the dump
// formats only by name).
// clang-format off
#define MPIMON_NBC_KINDS(X)                                                                            \
  X(iallgather) X(iallgatherv) X(iallreduce) X(ialltoall) X(ialltoallv) X(ialltoallw) X(ibarrier)      \
  X(ibcast) X(iexscan) X(igather) X(igatherv) X(ireduce) X(ireduce_scatter) X(ireduce_scatter_block)   \
  X(iscan) X(iscatter) X(iscatterv) X(ineighbor_allgather) X(ineighbor_allgatherv) X(ineighbor_alltoall) \
  X(ineighbor_alltoallv) X(ineighbor_alltoallw)
// clang-format on
#define MPIMON_NBC_KIND_ENUMERATOR(name) name,
enum class NbcKind : uint8_t { MPIMON_NBC_KINDS(MPIMON_NBC_KIND_ENUMERATOR) };
#undef MPIMON_NBC_KIND_ENUMERATOR
inline constexpr int kNbcKindCount = 22;
const char* nbc_kind_name(NbcKind kind) noexcept;

// Overlap histogram: bucket k holds [k/10, (k+1)/10), the last one also 1.
inline constexpr int kOverlapBuckets = 10;
unsigned overlap_bucket(double overlap) noexcept;

// What one completed call contributes.
struct NbcCall {
  uint64_t duration_ticks = 0;
  uint64_t blocked_ticks = 0;
  uint64_t bytes = 0;
  uint64_t bytes_before_wait = 0;
  uint64_t messages = 0;
  uint64_t messages_before_wait = 0;
  bool waited = false;  // the application waited for it before it completed
  // False when it was waited for and posted no message of its own (no overlap to tell).
  bool measured() const noexcept { return !waited || messages > 0; }
  double overlap() const noexcept;  // meaningful when measured()
};

struct NbcKindTotals {
  uint64_t followed = 0;    // the application's calls followed (begun; `calls` of them completed)
  bool unfollowed = false;  // some of its calls went, or may go, unfollowed (NbcDecision)
  uint64_t calls = 0;
  uint64_t waited_calls = 0;
  uint64_t duration_ticks = 0;
  uint64_t blocked_ticks = 0;
  uint64_t bytes = 0;
  uint64_t bytes_before_wait = 0;
  uint64_t measured_calls = 0;               // calls with an overlap (see NbcCall::measured)
  double overlap_sum = 0;                    // their overlaps summed
  uint64_t histogram[kOverlapBuckets] = {};  // of those calls

  double mean_overlap() const noexcept {
    return measured_calls ? overlap_sum / static_cast<double>(measured_calls) : 0;
  }

  // Calls were made and none was followed: nothing measured ("not followed" in the dumps).
  bool not_followed() const noexcept { return followed == 0 && unfollowed; }
  // What the dumps have a line for: completed followed calls, or "not followed".
  bool has_line() const noexcept { return calls > 0 || not_followed(); }

  void add(const NbcCall& call) noexcept;
  void merge(const NbcKindTotals& other) noexcept;
};

// One communicator's nonblocking collectives.
struct NbcTotals {
  NbcKindTotals kinds[kNbcKindCount];

  NbcKindTotals& operator[](NbcKind kind) noexcept { return kinds[static_cast<int>(kind)]; }
  const NbcKindTotals& operator[](NbcKind kind) const noexcept { return kinds[static_cast<int>(kind)]; }
  NbcKindTotals sum() const noexcept;
  void merge(const NbcTotals& other) noexcept;
  bool has_lines() const noexcept;  // some kind has_line()
  // Bytes posted before the wait / bytes, over every call; the mean per-call overlap when
  // no call moved a byte; NaN when nothing was measured (no call followed, or only calls
  // without a message of their own): not measured is never a number.
  double byte_weighted_overlap() const noexcept;
};

class NbcTracker {
 public:
  explicit NbcTracker(SyncClock::Source source = SyncClock::best_source());
  ~NbcTracker();
  NbcTracker(const NbcTracker&) = delete;
  NbcTracker& operator=(const NbcTracker&) = delete;

  const SyncClock& clock() const { return clock_; }
  uint64_t now() const noexcept { return clock_.now(); }
  void set_threaded(bool threaded) { threaded_ = threaded; }

  // Called with true when the first collective becomes pending, with false when the last
  // one completes (under the tracker's lock: they must only swap function pointers).
  using Switch = void (*)(bool active);
  void add_switch(Switch activity_switch);

  struct Pending;

  // A collective of `kind` starts on `comm` (addresses are only compared; `local_comm`:
  // the local communicator of an intercommunicator, or null); its module will take tags
  // from `first_tag` downwards. Until started() or abandon(), every send with a negative
  // tag this thread posts on either communicator is its. Its totals go to `destination`.
  Pending* begin(const void* comm, const void* local_comm, int32_t first_tag, NbcKind kind,
                 CommunicatorClasses* destination, uint64_t now);
  // The application's call of `kind` on `destination` was not followed, or later calls of
  // its kind may not be (NbcDecision::unfollowed_after).
  void note_unfollowed(CommunicatorClasses* destination, NbcKind kind);
  // The call returned: it reserved the tags [lowest_tag, first_tag] (none when
  // lowest_tag > first_tag) and waits will name `request`.
  void started(Pending* pending, int32_t lowest_tag, const void* request);
  // The call failed: forget it.
  void abandon(Pending* pending);
  // It completed (its request's completion callback).
  void completed(Pending* pending, uint64_t now);

  // A send with a negative tag was posted; false if it belongs to no pending collective.
  bool attribute_send(const void* comm, int32_t tag, uint64_t bytes);

  // One wait call (MPI_Wait, _Waitall, _Waitany, _Waitsome) of the application: the
  // pending collectives among its requests (a few inline, no allocation).
  class Wait {
   public:
    uint64_t begin = 0;
    size_t size() const { return count_; }
    Pending* operator[](size_t i) const { return i < kInline ? inline_[i] : more_[i - kInline]; }
    void add(Pending* p);
    bool contains(const Pending* p) const;
    void clear();

   private:
    static constexpr size_t kInline = 8;
    Pending* inline_[kInline] = {};
    std::vector<Pending*> more_;
    size_t count_ = 0;
  };
  // The wait call on `count` requests begins / returns. `all_completed`: the call returned
  // with every one of its requests complete (MPI_Wait, MPI_Waitall succeeded), so a
  // collective whose completion callback has not run completed now (a safety net for the
  // instant between the module's return and the callback's installation).
  void wait_begin(const void* const* requests, size_t count, uint64_t now, Wait& wait);
  void wait_end(Wait& wait, uint64_t now, bool all_completed = false);

  // `destination` is going away (its communicator was freed): calls still pending on it
  // will record nowhere.
  void detach(const CommunicatorClasses* destination);

  size_t pending() const;
  // Runs `read` under the tracker's lock (totals are written under it).
  template <typename Read>
  void read(Read&& read) const {
    Guard guard(*this);
    read();
  }

 private:
  struct Guard {
    explicit Guard(const NbcTracker& t) : tracker(t) {
      if (tracker.threaded_) tracker.mutex_.lock();
    }
    ~Guard() {
      if (tracker.threaded_) tracker.mutex_.unlock();
    }
    const NbcTracker& tracker;
  };
  // Lookups without allocation: intrusive chains in fixed hash slots (collectives that
  // took one tag, the common case, by that tag; by request), a list for the rare module
  // that takes several tags per call.
  static constexpr int kSlots = 256;
  static unsigned tag_slot(int32_t tag) { return (static_cast<uint32_t>(tag) * 2654435761u) >> 24; }
  static unsigned request_slot(const void* request) {
    return static_cast<unsigned>(((reinterpret_cast<uintptr_t>(request) >> 4) * 0x9E3779B97F4A7C15ull) >> 56);
  }
  void index_tags(Pending* p);
  void unindex_tags(Pending* p);
  void unindex_request(Pending* p);
  Pending* find_by_tag(const void* comm, int32_t tag) const;
  void mark_completed(Pending* p, uint64_t now);
  void finish(Pending* p);  // adds the call to its destination and recycles p
  void set_pending_count(size_t count);

  SyncClock clock_;
  bool threaded_ = false;
  mutable std::mutex mutex_;
  std::vector<Switch> switches_;
  size_t pending_ = 0;
  Pending* by_tag_[kSlots] = {};
  Pending* by_request_[kSlots] = {};
  std::vector<Pending*> ranged_;
  Pending* live_ = nullptr;  // begun and not finished (doubly linked; for detach)
  Pending* free_ = nullptr;  // recycled
};

// Dump lines (docs/formats.md), one per communicator and kind with completed followed
// calls, or whose calls were all left unfollowed (then "not followed"). The .prof line
// names the communicator as its D block (escape_name, spaces kept); the job file by its
// identity, as the `collectives` lines (CommunicatorClasses::identity; entries sharing
// one are summed), whose `communicator` line gives the name.
//   .prof: "# NBC\t<me>\t<name>\t<kind>\t<calls> calls\t<waited> waited\t<duration> s\t<blocked> s blocked\t
//           <bytes> bytes\t<before> bytes before wait\t<mean overlap>\t<h0>,...,<h9>"
//   job:   "nbc_overlap <me> <identity> <kind> <calls> <waited> <duration s> <blocked s> <bytes> <before>
//           <mean overlap> <h0>,...,<h9>"
//   not followed: "# NBC\t<me>\t<name>\t<kind>\tnot followed", "nbc_overlap <me> <identity> <kind> not followed"
// The mean is "-" when no call was measured (the histogram then sums to 0). When some
// calls went unfollowed (a kind's unfollowed flag), the schedule follows the lines:
//   .prof: "# NBC sampling\t<me>\t<N>\t<exact calls>", job: "nbc_sampling <me> <N> <exact calls>"
std::string format_prof_nbc(int me, const CommunicatorRegistry& registry, double seconds_per_tick,
                            const NbcSchedule& schedule);
std::string format_job_nbc(int me, const CommunicatorRegistry& registry, double seconds_per_tick,
                           const NbcSchedule& schedule);

}  // namespace mpimon
