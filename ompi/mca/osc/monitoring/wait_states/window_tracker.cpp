// The open epochs of one window, the timestamps exchanged through its shadow window,
// and the hand-over of each closed epoch to the detection rules (see window_tracker.h).
#include "wait_states/window_tracker.h"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <unordered_map>
#include <vector>

#include "analyses/wait_states/shadow_layout.h"
#include "osc_monitoring_events.h"
#include "runtime/runtime.h"
#include "runtime/world_rank_ompi.h"
#include "wait_states/shadow_setup.h"

namespace mpimon::osc::wait_states {

using namespace mpimon::wait_states;

namespace {

Settings settings_;
Nanos testing_shift = 0;  // applied to this process's clock (testing only)

}  // namespace

void configure(const Settings& settings) {
  settings_ = settings;
  testing_shift =
      settings.testing_shift.applies_to(settings.world_rank, settings.host_name) ? settings.testing_shift.shift : 0;
}

const Settings& current_settings() { return settings_; }
bool enabled() { return settings_.enabled; }

WaitStateRegistry& registry() {
  static WaitStateRegistry* r = new WaitStateRegistry();  // used until process exit
  return *r;
}

Nanos host_now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<Nanos>(t.tv_sec) * 1'000'000'000 + t.tv_nsec + testing_shift;
}

// ---------------------------------------------------------------------------------------

struct WindowTracker::Impl {
  ompi_win_t* win = nullptr;
  uint64_t id = 0;
  Shadow shadow;  // private communicator, shadow window, its memory (shadow_setup.h)
  ShadowLayout layout{1};
  int rank = 0;
  LocalJob job;
  bool world_order = false;

  // Pair epochs: the k-th post of a target including us matches our k-th start
  // including it (MPI's matching rule), so each side counts per partner.
  std::unordered_map<int32_t, uint32_t> access_epochs, exposure_epochs;
  uint32_t releases = 0;
  uint64_t fences = 0;

  Nanos enter = 0;          // entry of the synchronisation call in progress
  Nanos op_time = 0;        // time inside operations, not yet handed to the registry
  std::vector<Wait> waits;  // reused

  // Access epoch (start .. complete)
  bool access_open = false;
  Interval start;
  struct Target {
    uint32_t epoch = 0;
    Nanos last_op_exit = 0;
    AccessTarget data;
  };
  std::vector<Target> targets;
  std::unordered_map<int32_t, size_t> target_index;
  std::vector<AccessTarget> access_view;

  // Exposure epoch (post .. wait/test)
  std::vector<std::pair<int32_t, uint32_t>> origins;  // window rank, pair epoch
  // The post records sent to each origin (send buffers: one per pair epoch parity), and
  // those to ourselves.
  std::unordered_map<int32_t, std::array<PostRecord, 2>> post_records;
  std::array<PostRecord, 2> own_post_records{};
  static constexpr int kRecentTests = 16;
  std::array<Interval, kRecentTests> tests{};
  int test_count = 0;  // kept in `tests` (the most recent ones)
  int test_next = 0;
  Nanos earlier_tests = 0;
  std::vector<ExposureOrigin> exposure_view;

  // Fence epoch: end of the last operation to each target since the last fence
  std::unordered_map<int32_t, Nanos> fence_ops;

  // Passive target
  struct Lock {
    Interval lock;
    bool nocheck = false;
    bool has_op = false;
    Interval first_op;
  };
  std::unordered_map<int32_t, Lock> locks;
  bool lock_all = false;

  int32_t world_of(int32_t window_rank) const {
    return world_order ? window_rank : world_rank_in_group(win->w_group, window_rank, job);
  }

  // Window ranks of a group's members.
  std::vector<int32_t> window_ranks(ompi_group_t* group) const {
    int n = 0;
    PMPI_Group_size(group, &n);
    std::vector<int> in(n), out(n, MPI_UNDEFINED);
    for (int i = 0; i < n; ++i) in[i] = i;
    if (n > 0) PMPI_Group_translate_ranks(group, n, in.data(), win->w_group, out.data());
    std::vector<int32_t> ranks;
    for (int r : out)
      if (r != MPI_UNDEFINED) ranks.push_back(r);
    return ranks;
  }

  void close_exposure(const ClosingCalls& closing);

  void report() {
    const int32_t me = settings_.world_rank;
    for (const Wait& w : waits) {
      const int32_t culprit = world_of(w.culprit);
      registry().add(id, w.pattern, w.duration, culprit);
      raise_wait_state(win, static_cast<int>(w.pattern), me, culprit, static_cast<double>(w.duration) * 1e-9);
    }
    waits.clear();
    if (op_time != 0) {
      registry().add_op_time(id, op_time);
      op_time = 0;
    }
  }
};

// ---------------------------------------------------------------------------------------

WindowTracker::WindowTracker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WindowTracker::~WindowTracker() = default;

std::unique_ptr<WindowTracker> WindowTracker::create(ompi_win_t* win, ompi_communicator_t* comm, uint64_t registry_id) {
  auto impl = std::make_unique<Impl>();
  impl->win = win;
  impl->id = registry_id;
  impl->job = LocalJob::of_this_process();
  impl->world_order = win->w_group == ompi_mpi_comm_world.comm.c_local_group;
  PMPI_Comm_rank(comm, &impl->rank);
  int size = 1;
  PMPI_Comm_size(comm, &size);
  impl->layout = ShadowLayout(size);
  // Everything collective happens in this one call (shadow_setup.cpp).
  const auto clock = set_up_shadow(comm, impl->layout, impl->shadow);
  if (!clock) return nullptr;
  registry().open(registry_id);
  registry().set_clock(registry_id, clock->offset, clock->uncertainty);
  auto tracker = std::unique_ptr<WindowTracker>(new WindowTracker(std::move(impl)));
  tracker->offset_ = clock->offset;
  return tracker;
}

void WindowTracker::destroy() {
  Impl& s = *impl_;
  s.report();
  if (const auto drift = tear_down_shadow(s.shadow, offset_)) registry().set_drift(s.id, *drift);
}

void WindowTracker::operation(int target, Nanos enter, Nanos exit) {
  Impl& s = *impl_;
  s.op_time += exit - enter;
  if (s.access_open) {
    const auto it = s.target_index.find(target);
    if (it == s.target_index.end()) return;  // not in the start group: erroneous, ignored
    Impl::Target& t = s.targets[it->second];
    const Interval op{enter, exit};
    if (!t.data.has_op) {
      t.data.has_op = true;
      t.data.first_op = t.data.longest_op = op;
    } else if (op.length() > t.data.longest_op.length()) {
      t.data.longest_op = op;
    }
    t.last_op_exit = std::max(t.last_op_exit, exit);
    return;
  }
  if (const auto lock = s.locks.find(target); lock != s.locks.end()) {
    if (!lock->second.has_op) {
      lock->second.has_op = true;
      lock->second.first_op = {enter, exit};
    }
    return;
  }
  if (s.lock_all) return;
  Nanos& last = s.fence_ops[target];
  last = std::max(last, exit);
}

// --- fence ---------------------------------------------------------------------------------

void WindowTracker::before_fence() { impl_->enter = now(); }

void WindowTracker::after_fence(int rc) {
  Impl& s = *impl_;
  const Interval mine{s.enter, now()};
  // Every origin tells each of its targets when its last operation to it ended.
  for (const auto& [target, last_exit] : s.fence_ops)
    if (target != s.rank)
      s.shadow.accumulate_max(make_fence_record(last_exit, s.shadow.created, s.rank), target,
                              s.layout.fence_record(s.fences));
  s.fence_ops.clear();
  // Once every process has done so: the latest entry and the earliest exit.
  const auto extremes = s.shadow.fence_extremes(mine);
  const FenceRecord last_op = s.shadow.take_fence_record(s.layout.fence_record(s.fences));
  ++s.fences;
  if (rc != OMPI_SUCCESS || !extremes) return;
  FenceEpoch e;
  e.mine = mine;
  e.latest_enter = extremes->latest_enter;
  e.latest_rank = extremes->latest_rank;
  e.earliest_exit = extremes->earliest_exit;
  e.remote_ops = last_op != 0;
  e.last_remote_op_exit = fence_record_time(last_op, s.shadow.created);
  e.last_op_origin = fence_record_rank(last_op);
  detect_fence_waits(e, s.waits);
  s.report();
}

// --- general active target, origin side ---------------------------------------------------

void WindowTracker::before_start() { impl_->enter = now(); }

void WindowTracker::after_start(ompi_group_t* group, int, int rc) {
  Impl& s = *impl_;
  const Nanos exit = now();
  if (rc != OMPI_SUCCESS) return;
  s.access_open = true;
  s.start = {s.enter, exit};
  s.targets.clear();
  s.target_index.clear();
  for (int32_t t : s.window_ranks(group)) {
    Impl::Target target;
    target.epoch = ++s.access_epochs[t];
    target.last_op_exit = exit;  // no operation: the start's exit (the paper's rule)
    target.data.rank = t;
    s.target_index[t] = s.targets.size();
    s.targets.push_back(target);
  }
}

void WindowTracker::before_complete() {
  Impl& s = *impl_;
  s.enter = now();
  if (!s.access_open) return;
  for (const Impl::Target& t : s.targets)
    s.shadow.put(make_complete_record(s.rank, t.epoch, s.enter, t.last_op_exit), t.data.rank,
                 s.layout.complete_record(s.rank, t.epoch));
}

void WindowTracker::after_complete(int rc) {
  Impl& s = *impl_;
  const Nanos exit = now();
  if (!s.access_open) return;
  s.access_open = false;
  s.access_view.clear();
  bool unmatched = false;
  for (Impl::Target& t : s.targets) {
    const PostRecord r =
        t.data.rank == s.rank ? s.own_post_records[t.epoch & 1] : s.shadow.receive_post_record(t.data.rank);
    t.data.post_known = valid(r, t.data.rank, t.epoch);
    t.data.post_enter = r.post_enter;
    unmatched = unmatched || !t.data.post_known;
    s.access_view.push_back(t.data);
  }
  if (rc != OMPI_SUCCESS) return;  // (the records were received all the same: the channel stays in step)
  if (unmatched) registry().add_unmatched(s.id, 1);
  detect_access_waits(AccessEpoch{s.start, Interval{s.enter, exit}, s.access_view}, s.waits);
  s.report();
}

// --- general active target, target side ---------------------------------------------------

void WindowTracker::before_post(ompi_group_t* group, int) {
  Impl& s = *impl_;
  s.enter = now();
  s.origins.clear();
  s.test_count = s.test_next = 0;
  s.earlier_tests = 0;
  for (int32_t o : s.window_ranks(group)) {
    const uint32_t epoch = ++s.exposure_epochs[o];
    s.origins.emplace_back(o, epoch);
    // Before the real post: it reaches the origin no later than the post itself.
    PostRecord& record = o == s.rank ? s.own_post_records[epoch & 1] : s.post_records[o][epoch & 1];
    record = make_post_record(s.rank, epoch, s.enter);
    if (o != s.rank) s.shadow.send_post_record(record, o);
  }
}

void WindowTracker::after_post(int rc) {
  if (rc != OMPI_SUCCESS) impl_->origins.clear();
}

void WindowTracker::Impl::close_exposure(const ClosingCalls& closing) {
  Impl& s = *this;
  s.shadow.sync();
  s.exposure_view.clear();
  bool unmatched = false;
  for (const auto& [o, epoch] : s.origins) {
    const CompleteRecord r = s.shadow.read<CompleteRecord>(s.layout.complete_record(o, epoch));
    ExposureOrigin origin;
    origin.rank = o;
    origin.known = valid(r, o, epoch);
    origin.complete_enter = r.complete_enter;
    origin.last_op_exit = r.last_op_exit;
    unmatched = unmatched || !origin.known;
    s.exposure_view.push_back(origin);
  }
  s.origins.clear();
  if (unmatched) registry().add_unmatched(s.id, 1);
  detect_exposure_waits(ExposureEpoch{closing, s.exposure_view}, s.waits);
  s.report();
}

void WindowTracker::before_wait() { impl_->enter = now(); }

void WindowTracker::after_wait(int rc) {
  Impl& s = *impl_;
  const Interval call{s.enter, now()};
  if (rc != OMPI_SUCCESS) return;
  s.close_exposure(ClosingCalls{std::span<const Interval>(&call, 1), 0});
}

void WindowTracker::before_test() { impl_->enter = now(); }

void WindowTracker::after_test(int rc, bool flag) {
  Impl& s = *impl_;
  const Interval call{s.enter, now()};
  if (rc != OMPI_SUCCESS) return;
  // The last kRecentTests calls exactly, older ones as a total.
  if (s.test_count == Impl::kRecentTests) s.earlier_tests += s.tests[s.test_next].length();
  s.tests[s.test_next] = call;
  s.test_next = (s.test_next + 1) % Impl::kRecentTests;
  s.test_count = std::min(s.test_count + 1, Impl::kRecentTests);
  if (!flag) return;
  s.close_exposure(
      ClosingCalls{std::span<const Interval>(s.tests.data(), static_cast<size_t>(s.test_count)), s.earlier_tests});
  s.test_count = s.test_next = 0;
  s.earlier_tests = 0;
}

// --- passive target -----------------------------------------------------------------------

void WindowTracker::before_lock() { impl_->enter = now(); }

void WindowTracker::after_lock(int, int target, int assert, int rc) {
  Impl& s = *impl_;
  const Nanos exit = now();
  if (rc != OMPI_SUCCESS) return;
  Impl::Lock lock;
  lock.lock = {s.enter, exit};
  lock.nocheck = (assert& MPI_MODE_NOCHECK) != 0;
  s.locks[target] = lock;
}

void WindowTracker::before_unlock(int target) {
  Impl& s = *impl_;
  s.enter = now();
  const auto lock = s.locks.find(target);
  if (lock == s.locks.end() || lock->second.nocheck) return;
  // Before the real unlock: the next holder cannot get the lock before it arrives.
  s.shadow.put(make_lock_record(s.rank, ++s.releases, s.enter), target, s.layout.lock_record(s.rank));
}

void WindowTracker::after_unlock(int target, int rc) {
  Impl& s = *impl_;
  const Nanos exit = now();
  const auto it = s.locks.find(target);
  if (it == s.locks.end()) return;
  const Impl::Lock lock = it->second;
  s.locks.erase(it);
  if (rc != OMPI_SUCCESS || lock.nocheck) return;
  // Who released the target's lock recently, and when.
  std::array<LockRecord, kLockRecords> records{};
  if (!s.shadow.get(records.data(), sizeof records, target, s.layout.lock_records())) return;
  std::array<LockRelease, kLockRecords> releases;
  size_t count = 0;
  for (const LockRecord& r : records)
    if (const int32_t releaser = releaser_of(r); releaser >= 0) releases[count++] = {releaser, r.time};
  std::array<Interval, 3> candidates;
  size_t calls = 0;
  candidates[calls++] = lock.lock;
  if (lock.has_op) candidates[calls++] = lock.first_op;
  candidates[calls++] = Interval{s.enter, exit};
  detect_lock_waits(LockEpoch{s.rank, std::span<const Interval>(candidates.data(), calls),
                              std::span<const LockRelease>(releases.data(), count)},
                    s.waits);
  s.report();
}

void WindowTracker::after_lock_all(int rc) {
  if (rc == OMPI_SUCCESS) impl_->lock_all = true;
}

void WindowTracker::after_unlock_all(int rc) {
  if (rc == OMPI_SUCCESS) impl_->lock_all = false;
  impl_->report();
}

}  // namespace mpimon::osc::wait_states
