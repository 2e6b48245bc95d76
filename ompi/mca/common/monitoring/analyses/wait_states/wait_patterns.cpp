#include "analyses/wait_states/wait_patterns.h"

#include <algorithm>

namespace mpimon::wait_states {

namespace {

constexpr const char* kNames[kPatternCount] = {"late_post",     "early_transfer", "early_wait",      "late_complete",
                                               "wait_at_fence", "early_fence",    "lock_competition"};

void add(std::vector<Wait>& out, Pattern pattern, Nanos duration, int32_t culprit) {
  if (duration > 0) out.push_back(Wait{pattern, duration, culprit});
}

// The time the calls spent inside (from, to].
Nanos inside(const ClosingCalls& calls, Nanos from, Nanos to) {
  Nanos total = 0;
  for (const Interval& c : calls.recent) {
    const Nanos a = std::max(c.enter, from), b = std::min(c.exit, to);
    if (b > a) total += b - a;
  }
  return total;
}

}  // namespace

const char* pattern_name(Pattern pattern) noexcept {
  const auto i = static_cast<unsigned>(pattern);
  return i < kPatternCount ? kNames[i] : "unknown";
}

std::optional<Pattern> pattern_of(std::string_view name) noexcept {
  for (int i = 0; i < kPatternCount; ++i)
    if (name == kNames[i]) return static_cast<Pattern>(i);
  return std::nullopt;
}

void detect_access_waits(const AccessEpoch& epoch, std::vector<Wait>& out) {
  const AccessTarget* latest = nullptr;
  for (const AccessTarget& t : epoch.targets) {
    if (!t.post_known) continue;
    if (latest == nullptr || t.post_enter > latest->post_enter) latest = &t;
    if (!t.has_op) continue;
    if (t.first_op.contains(t.post_enter)) {
      add(out, Pattern::early_transfer, t.post_enter - t.first_op.enter, t.rank);
    } else if (t.longest_op.contains(t.post_enter)) {
      add(out, Pattern::early_transfer, t.post_enter - t.longest_op.enter, t.rank);
    }
  }
  if (latest == nullptr) return;
  if (epoch.start.contains(latest->post_enter)) {
    add(out, Pattern::late_post, latest->post_enter - epoch.start.enter, latest->rank);
  } else if (epoch.complete.contains(latest->post_enter)) {
    add(out, Pattern::late_post, latest->post_enter - epoch.complete.enter, latest->rank);
  }
}

void detect_exposure_waits(const ExposureEpoch& epoch, std::vector<Wait>& out) {
  const ExposureOrigin* latest = nullptr;
  Nanos last_op = 0;
  bool any_op = false;
  for (const ExposureOrigin& o : epoch.origins) {
    if (!o.known) continue;
    if (latest == nullptr || o.complete_enter > latest->complete_enter) latest = &o;
    last_op = any_op ? std::max(last_op, o.last_op_exit) : o.last_op_exit;
    any_op = true;
  }
  if (latest == nullptr) return;
  const Nanos completed = latest->complete_enter;
  constexpr Nanos kDawn = INT64_MIN / 2;
  const Nanos early_wait = epoch.closing.earlier_total + inside(epoch.closing, kDawn, completed);
  add(out, Pattern::early_wait, early_wait, latest->rank);
  // Late Complete is a part of Early Wait: the older MPI_Win_test calls (known only as a
  // total) are counted in Early Wait alone.
  add(out, Pattern::late_complete, std::min(early_wait, inside(epoch.closing, last_op, completed)), latest->rank);
}

void detect_fence_waits(const FenceEpoch& epoch, std::vector<Wait>& out) {
  const Nanos length = epoch.mine.length();
  Nanos wait_at_fence = 0;
  if (epoch.latest_enter < epoch.earliest_exit)  // every process entered before any left
    wait_at_fence = std::clamp(epoch.latest_enter - epoch.mine.enter, Nanos{0}, length);
  Nanos early_fence = 0;
  if (epoch.remote_ops) early_fence = std::clamp(epoch.last_remote_op_exit - epoch.mine.enter, Nanos{0}, length);
  if (early_fence > wait_at_fence) {
    add(out, Pattern::wait_at_fence, early_fence, epoch.last_op_origin);
  } else {
    add(out, Pattern::wait_at_fence, wait_at_fence, epoch.latest_rank);
  }
  add(out, Pattern::early_fence, early_fence, epoch.last_op_origin);
}

void detect_lock_waits(const LockEpoch& epoch, std::vector<Wait>& out) {
  for (const Interval& call : epoch.candidates) {
    const LockRelease* latest = nullptr;
    for (const LockRelease& r : epoch.releases) {
      if (r.releaser == epoch.self || !call.contains(r.time)) continue;
      if (latest == nullptr || r.time > latest->time) latest = &r;
    }
    if (latest != nullptr) {
      add(out, Pattern::lock_competition, latest->time - call.enter, latest->releaser);
      return;
    }
  }
}

}  // namespace mpimon::wait_states
