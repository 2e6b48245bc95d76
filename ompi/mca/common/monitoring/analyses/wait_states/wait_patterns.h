// The RMA wait-state patterns and their detection rules.
//
// Hermanns, Geimer, Mohr, Wolf, "Scalable Detection of MPI-2 Remote Memory Access
// Inefficiency Patterns" (EuroPVM/MPI 2009), section 4, define six patterns of one-sided
// communication and find them by replaying traces after the run; Lock Competition is
// Scalasca's later passive-target pattern. Here the same rules are pure functions of ONE
// closed epoch: this process's own call intervals plus the few timestamps the other
// processes sent it while the job ran (ompi/mca/osc/monitoring/wait_states/ gathers
// them). Epoch records in, waits out: no MPI, no clock, unit-testable with synthetic
// timestamps.
//
// All times are nanoseconds on the window's reference clock (each host's clock corrected
// by its measured offset, see analyses/wait_states/clock_offsets.h). An interval (enter, exit] is one MPI call
// as seen by our wrapper.
//
// Where the MPI implementation does not say which call blocks, the paper's heuristic
// decides: a call is taken to have blocked for a remote event (a post, a complete, a
// lock release) if and only if that event happened inside the call; the wait is then
// from the call's entry to the event. A call wrongly taken as blocking is short, so the
// error is small.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace mpimon::wait_states {

// In the order of the osc_monitoring_wait_time / _wait_count performance variables.
enum class Pattern : uint8_t {
  late_post = 0,     // origin blocked in MPI_Win_start/complete until the target posts
  early_transfer,    // origin blocked in an RMA operation until the target posts
  early_wait,        // target blocked in MPI_Win_wait/test until the origins complete
  late_complete,     // the part of early_wait after the origins' last operation
  wait_at_fence,     // a synchronising fence entered before the last process
  early_fence,       // the part of wait_at_fence spent waiting for remote operations
  lock_competition,  // an origin waiting for another origin's lock on the same target
};
inline constexpr int kPatternCount = 7;

// "late_post", ..., "lock_competition".
const char* pattern_name(Pattern pattern) noexcept;
std::optional<Pattern> pattern_of(std::string_view name) noexcept;

using Nanos = int64_t;

struct Interval {
  Nanos enter = 0;
  Nanos exit = 0;
  bool contains(Nanos t) const { return enter < t && t <= exit; }
  Nanos length() const { return exit > enter ? exit - enter : 0; }
};

// One detected wait state: `duration` > 0, `culprit` the window rank of the process that
// was late.
struct Wait {
  Pattern pattern;
  Nanos duration;
  int32_t culprit;
};

// ---------------------------------------------------------------------------------------
// General active target, origin side: an access epoch MPI_Win_start ... MPI_Win_complete.

struct AccessTarget {
  int32_t rank = -1;        // window rank
  bool post_known = false;  // the target's post entry time arrived
  Nanos post_enter = 0;
  bool has_op = false;
  Interval first_op;    // the first operation to this target in the epoch
  Interval longest_op;  // the longest one (an operation that blocked is the longest)
};

struct AccessEpoch {
  Interval start;
  Interval complete;
  std::span<const AccessTarget> targets;
};

// Late Post: the latest post among the targets (the culprit) fell inside MPI_Win_start
// (then start blocked) or else inside MPI_Win_complete; waited from that call's entry to
// the post. Early Transfer: a target's post fell inside an operation to that target (its
// first, else its longest); waited from the operation's entry to the post.
void detect_access_waits(const AccessEpoch& epoch, std::vector<Wait>& out);

// ---------------------------------------------------------------------------------------
// General active target, target side: an exposure epoch MPI_Win_post ... MPI_Win_wait
// (or the MPI_Win_test calls that end it).

struct ExposureOrigin {
  int32_t rank = -1;
  bool known = false;        // the origin's completion record arrived
  Nanos complete_enter = 0;  // when it entered MPI_Win_complete
  Nanos last_op_exit = 0;    // its last operation to us ended (its start's exit if none)
};

// The calls that closed the epoch: one MPI_Win_wait, or the MPI_Win_test calls (the
// last few kept exactly, older ones only as a total known to precede the latest
// completion).
struct ClosingCalls {
  std::span<const Interval> recent;
  Nanos earlier_total = 0;
};

struct ExposureEpoch {
  ClosingCalls closing;
  std::span<const ExposureOrigin> origins;
};

// Early Wait: the time inside the closing calls before the latest MPI_Win_complete entry
// (its origin is the culprit). Late Complete: the part of it after the origins' last
// operation ended (same culprit).
void detect_exposure_waits(const ExposureEpoch& epoch, std::vector<Wait>& out);

// ---------------------------------------------------------------------------------------
// Fence: one MPI_Win_fence of this process and what one allreduce and the remote
// accumulates told it.

struct FenceEpoch {
  Interval mine;
  Nanos latest_enter = 0;  // the last process's entry (all processes of the window)
  int32_t latest_rank = -1;
  Nanos earliest_exit = 0;  // the first process's exit
  bool remote_ops = false;  // some operation targeted this process since the last fence
  Nanos last_remote_op_exit = 0;
  int32_t last_op_origin = -1;
};

// Wait at Fence: only if the fence synchronised (every entry before any exit), from our
// entry to the last entry. Early Fence: from our entry to the end of the last operation
// that targeted us (its origin is the culprit); it is part of Wait at Fence, which
// therefore reports at least the Early Fence time even where the fence did not
// synchronise.
void detect_fence_waits(const FenceEpoch& epoch, std::vector<Wait>& out);

// ---------------------------------------------------------------------------------------
// Passive target: one MPI_Win_lock ... MPI_Win_unlock epoch of this process.

struct LockRelease {
  int32_t releaser = -1;  // window rank
  Nanos time = 0;         // when it released its lock on the same target
};

struct LockEpoch {
  int32_t self = -1;
  // The calls that may have blocked for the lock, in program order: MPI_Win_lock, the
  // first operation, MPI_Win_unlock (implementations acquire the lock in one of them).
  std::span<const Interval> candidates;
  std::span<const LockRelease> releases;  // recent releases of the target's lock
};

// Lock Competition: the first candidate call inside which another process released its
// lock on the target; waited from the call's entry to the latest such release (the
// releaser is the culprit).
void detect_lock_waits(const LockEpoch& epoch, std::vector<Wait>& out);

}  // namespace mpimon::wait_states
