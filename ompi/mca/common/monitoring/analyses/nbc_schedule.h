// Which of the application's nonblocking collectives are followed for their overlap
// (docs/nbc-overlap.md#cost-and-sampling). Pure: the COLL adapter keeps the state (per
// communicator: the exact calls left; per communicator and kind: a countdown to the next
// decision) and asks decide() when a countdown reaches zero.
//
//   - The first `exact_calls` calls of each communicator (its application calls, all kinds
//     together) are all followed: an application with few nonblocking collectives gets
//     exact figures with no setting.
//   - After them, `every` (coll_monitoring_nbc_sampling) rules: 0 none, 1 every call, N >= 2
//     one call in N on average per communicator and kind, the gaps drawn uniformly from 1
//     to 2N - 1 (no period of the application can always hit or always miss a call). A
//     decision follows its call and draws the gap to the next decision.
#pragma once

#include <cstdint>

namespace mpimon {

struct NbcSchedule {
  uint32_t exact_calls = 64;  // coll_monitoring_nbc_exact_calls
  uint32_t every = 128;       // coll_monitoring_nbc_sampling
};

struct NbcDecision {
  bool follow = false;
  // Calls of this kind after this one may go unfollowed (the decision declined, or drew a
  // gap above 1): the figures are no longer those of every call.
  bool unfollowed_after = false;
};

// The call whose countdown reached zero. `exact_left`: the communicator's exact calls left;
// `countdown` (this communicator and kind) is set to the calls until the next decision;
// `draw()` returns 64 random bits (called only when sampling).
template <typename Draw>
NbcDecision decide(const NbcSchedule& schedule, uint32_t& exact_left, uint64_t& countdown, Draw&& draw) {
  if (exact_left > 0) {
    --exact_left;
    countdown = 1;
    return {true, false};
  }
  const uint64_t every = schedule.every;
  if (every == 0) {
    countdown = UINT64_MAX;  // never again (2^64 calls)
    return {false, true};
  }
  countdown = every == 1 ? 1 : 1 + draw() % (2 * every - 1);
  return {true, countdown > 1};
}

}  // namespace mpimon
