#include "analyses/nbc_overlap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <utility>

#include "analyses/communicator_classes.h"
#include "formats/job_format.h"

namespace mpimon {

const char* nbc_kind_name(NbcKind kind) noexcept {
#define MPIMON_NBC_KIND_NAME(name) #name,
  static constexpr const char* names[] = {MPIMON_NBC_KINDS(MPIMON_NBC_KIND_NAME)};
#undef MPIMON_NBC_KIND_NAME
  static_assert(sizeof names / sizeof names[0] == kNbcKindCount);
  const auto i = static_cast<unsigned>(kind);
  return i < kNbcKindCount ? names[i] : "unknown";
}

unsigned overlap_bucket(double overlap) noexcept {
  if (!(overlap > 0)) return 0;  // also NaN
  const auto k = static_cast<unsigned>(overlap * kOverlapBuckets);
  return std::min<unsigned>(k, kOverlapBuckets - 1);
}

double NbcCall::overlap() const noexcept {
  if (!waited) return 1.0;
  if (bytes > 0) return static_cast<double>(bytes_before_wait) / static_cast<double>(bytes);
  if (messages > 0) return static_cast<double>(messages_before_wait) / static_cast<double>(messages);
  return 0.0;
}

void NbcKindTotals::add(const NbcCall& call) noexcept {
  ++calls;
  waited_calls += call.waited;
  duration_ticks += call.duration_ticks;
  blocked_ticks += call.blocked_ticks;
  bytes += call.bytes;
  bytes_before_wait += call.waited ? call.bytes_before_wait : call.bytes;
  if (!call.measured()) return;
  const double overlap = call.overlap();
  ++measured_calls;
  overlap_sum += overlap;
  ++histogram[overlap_bucket(overlap)];
}

void NbcKindTotals::merge(const NbcKindTotals& o) noexcept {
  followed += o.followed;
  unfollowed = unfollowed || o.unfollowed;
  calls += o.calls;
  waited_calls += o.waited_calls;
  duration_ticks += o.duration_ticks;
  blocked_ticks += o.blocked_ticks;
  bytes += o.bytes;
  bytes_before_wait += o.bytes_before_wait;
  measured_calls += o.measured_calls;
  overlap_sum += o.overlap_sum;
  for (int k = 0; k < kOverlapBuckets; ++k) histogram[k] += o.histogram[k];
}

NbcKindTotals NbcTotals::sum() const noexcept {
  NbcKindTotals all;
  for (const NbcKindTotals& k : kinds) all.merge(k);
  return all;
}

void NbcTotals::merge(const NbcTotals& other) noexcept {
  for (int k = 0; k < kNbcKindCount; ++k) kinds[k].merge(other.kinds[k]);
}

bool NbcTotals::has_lines() const noexcept {
  return std::any_of(std::begin(kinds), std::end(kinds), [](const NbcKindTotals& k) { return k.has_line(); });
}

double NbcTotals::byte_weighted_overlap() const noexcept {
  const NbcKindTotals all = sum();
  if (all.bytes > 0) return static_cast<double>(all.bytes_before_wait) / static_cast<double>(all.bytes);
  return all.measured_calls > 0 ? all.mean_overlap() : std::nan("");
}

// ---------------------------------------------------------------------------------------
// The tracker

struct NbcTracker::Pending {
  const void* comm = nullptr;
  const void* local_comm = nullptr;
  const void* request = nullptr;
  CommunicatorClasses* destination = nullptr;
  NbcKind kind = NbcKind::iallgather;
  int32_t lowest_tag = 0, first_tag = -1;  // indexed tags (none when lowest > first)
  bool starting = false;                   // inside its MPI_I... call
  bool completed = false;
  int waiters = 0;  // wait calls in progress that include it
  uint64_t start = 0, end = 0;
  NbcCall call;
  Pending* next_by_tag = nullptr;
  Pending* next_by_request = nullptr;
  Pending* live_prev = nullptr;
  Pending* live_next = nullptr;  // also the free list's link
};

namespace {
// The collective whose MPI_I... call this thread is inside (sends posted there are its
// own whatever their tag: its module may not have reserved the tags we expect).
// initial-exec: a direct %fs access, no __tls_get_addr call (one pointer fits in the
// static TLS glibc reserves for dlopen'ed libraries).
thread_local NbcTracker::Pending* starting_here __attribute__((tls_model("initial-exec"))) = nullptr;
// A module reserving more tags than this per call is only followed inside its call.
constexpr int32_t kMaxIndexedTags = 4096;

// Removes `p` from the chain at `head` (linked through `link`).
void unchain(NbcTracker::Pending*& head, NbcTracker::Pending* p, NbcTracker::Pending* NbcTracker::Pending::*link) {
  for (NbcTracker::Pending** at = &head; *at != nullptr; at = &((*at)->*link)) {
    if (*at == p) {
      *at = p->*link;
      p->*link = nullptr;
      return;
    }
  }
}
}  // namespace

void NbcTracker::Wait::add(Pending* p) {
  if (count_ < kInline) {
    inline_[count_] = p;
  } else {
    more_.push_back(p);
  }
  ++count_;
}

bool NbcTracker::Wait::contains(const Pending* p) const {
  for (size_t i = 0; i < count_; ++i)
    if ((*this)[i] == p) return true;
  return false;
}

void NbcTracker::Wait::clear() {
  count_ = 0;
  more_.clear();
}

NbcTracker::NbcTracker(SyncClock::Source source) : clock_(source) {}

NbcTracker::~NbcTracker() {
  for (Pending* p = live_; p != nullptr;) delete std::exchange(p, p->live_next);
  for (Pending* p = free_; p != nullptr;) delete std::exchange(p, p->live_next);
}

void NbcTracker::add_switch(Switch activity_switch) {
  Guard guard(*this);
  switches_.push_back(activity_switch);
  if (pending_ > 0) activity_switch(true);
}

void NbcTracker::set_pending_count(size_t count) {
  const bool was = pending_ > 0, is = count > 0;
  pending_ = count;
  if (was != is)
    for (Switch s : switches_) s(is);
}

size_t NbcTracker::pending() const {
  Guard guard(*this);
  return pending_;
}

void NbcTracker::index_tags(Pending* p) {
  if (p->lowest_tag > p->first_tag) return;
  if (p->lowest_tag == p->first_tag) {
    Pending*& head = by_tag_[tag_slot(p->first_tag)];
    p->next_by_tag = head;
    head = p;
  } else {
    ranged_.push_back(p);
  }
}

void NbcTracker::unindex_tags(Pending* p) {
  if (p->lowest_tag > p->first_tag) return;
  if (p->lowest_tag == p->first_tag) {
    unchain(by_tag_[tag_slot(p->first_tag)], p, &Pending::next_by_tag);
  } else {
    ranged_.erase(std::remove(ranged_.begin(), ranged_.end(), p), ranged_.end());
  }
}

void NbcTracker::unindex_request(Pending* p) {
  if (p->request == nullptr) return;
  unchain(by_request_[request_slot(p->request)], p, &Pending::next_by_request);
  p->request = nullptr;
}

NbcTracker::Pending* NbcTracker::find_by_tag(const void* comm, int32_t tag) const {
  for (Pending* p = by_tag_[tag_slot(tag)]; p != nullptr; p = p->next_by_tag)
    if (p->first_tag == tag && (comm == p->comm || comm == p->local_comm)) return p;
  for (Pending* p : ranged_)
    if (tag >= p->lowest_tag && tag <= p->first_tag && (comm == p->comm || comm == p->local_comm)) return p;
  return nullptr;
}

NbcTracker::Pending* NbcTracker::begin(const void* comm, const void* local_comm, int32_t first_tag, NbcKind kind,
                                       CommunicatorClasses* destination, uint64_t now) {
  Guard guard(*this);
  Pending* p = free_;
  if (p != nullptr) {
    free_ = p->live_next;
    *p = Pending{};
  } else {
    p = new Pending;
  }
  p->comm = comm;
  p->local_comm = local_comm == comm ? nullptr : local_comm;
  p->kind = kind;
  p->destination = destination;
  if (destination != nullptr) ++destination->nbc_totals()[kind].followed;
  p->start = now;
  p->starting = true;
  // The tag its module will take first: indexed now, so that a send another thread (a
  // progress thread) posts before the call returns is found.
  p->first_tag = p->lowest_tag = first_tag;
  index_tags(p);
  p->live_next = live_;
  if (live_ != nullptr) live_->live_prev = p;
  live_ = p;
  starting_here = p;
  set_pending_count(pending_ + 1);
  return p;
}

void NbcTracker::note_unfollowed(CommunicatorClasses* destination, NbcKind kind) {
  if (destination == nullptr) return;
  Guard guard(*this);
  destination->nbc_totals()[kind].unfollowed = true;
}

void NbcTracker::started(Pending* p, int32_t lowest_tag, const void* request) {
  Guard guard(*this);
  if (starting_here == p) starting_here = nullptr;
  p->starting = false;
  if (p->completed) {  // completed inside its call
    if (p->waiters == 0) finish(p);
    return;
  }
  const int32_t lowest =
      lowest_tag <= p->first_tag && p->first_tag - lowest_tag < kMaxIndexedTags ? lowest_tag : p->first_tag + 1;
  if (lowest != p->lowest_tag) {  // not the one tag expected: several, or none (only its in-call sends were its)
    unindex_tags(p);
    p->lowest_tag = lowest;
    index_tags(p);
  }
  if (request != nullptr) {
    p->request = request;
    Pending*& head = by_request_[request_slot(request)];
    p->next_by_request = head;
    head = p;
  }
}

void NbcTracker::abandon(Pending* p) {
  Guard guard(*this);
  if (starting_here == p) starting_here = nullptr;
  unindex_tags(p);
  unindex_request(p);
  if (!p->completed) set_pending_count(pending_ - 1);
  if (p->destination != nullptr) --p->destination->nbc_totals()[p->kind].followed;  // no call took place
  p->destination = nullptr;
  p->completed = true;
  finish(p);
}

void NbcTracker::completed(Pending* p, uint64_t now) {
  Guard guard(*this);
  mark_completed(p, now);
  if (p->waiters == 0 && !p->starting) finish(p);
}

void NbcTracker::mark_completed(Pending* p, uint64_t now) {
  if (p->completed) return;
  p->completed = true;
  p->end = now;
  unindex_tags(p);
  unindex_request(p);
  set_pending_count(pending_ - 1);
}

void NbcTracker::finish(Pending* p) {
  p->call.duration_ticks = p->end > p->start ? p->end - p->start : 0;
  if (p->destination != nullptr) p->destination->nbc_totals()[p->kind].add(p->call);
  if (p->live_prev != nullptr)
    p->live_prev->live_next = p->live_next;
  else
    live_ = p->live_next;
  if (p->live_next != nullptr) p->live_next->live_prev = p->live_prev;
  p->live_prev = nullptr;
  p->live_next = free_;
  free_ = p;
}

bool NbcTracker::attribute_send(const void* comm, int32_t tag, uint64_t bytes) {
  Guard guard(*this);
  Pending* p = starting_here;
  if (p == nullptr || (comm != p->comm && comm != p->local_comm)) {
    p = find_by_tag(comm, tag);
    if (p == nullptr) return false;
  }
  p->call.bytes += bytes;
  ++p->call.messages;
  if (!p->call.waited) {
    p->call.bytes_before_wait += bytes;
    ++p->call.messages_before_wait;
  }
  return true;
}

void NbcTracker::wait_begin(const void* const* requests, size_t count, uint64_t now, Wait& wait) {
  Guard guard(*this);
  wait.begin = now;
  for (size_t i = 0; i < count; ++i) {
    for (Pending* p = by_request_[request_slot(requests[i])]; p != nullptr; p = p->next_by_request) {
      if (p->request != requests[i] || wait.contains(p)) continue;
      p->call.waited = true;
      ++p->waiters;
      wait.add(p);
    }
  }
}

void NbcTracker::wait_end(Wait& wait, uint64_t now, bool all_completed) {
  if (wait.size() == 0) return;
  Guard guard(*this);
  for (size_t i = 0; i < wait.size(); ++i) {
    Pending* p = wait[i];
    if (all_completed) mark_completed(p, now);
    // Blocked until it completed, or until the wait returned without it (waitany/some).
    const uint64_t until = p->completed ? std::min(p->end, now) : now;
    if (until > wait.begin) p->call.blocked_ticks += until - wait.begin;
    if (--p->waiters == 0 && p->completed && !p->starting) finish(p);
  }
  wait.clear();
}

void NbcTracker::detach(const CommunicatorClasses* destination) {
  Guard guard(*this);
  for (Pending* p = live_; p != nullptr; p = p->live_next)
    if (p->destination == destination) p->destination = nullptr;
}

}  // namespace mpimon

namespace mpimon {

namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string mean_text(const NbcKindTotals& t) { return t.measured_calls ? fixed(t.mean_overlap(), 6) : "-"; }

std::string histogram_text(const NbcKindTotals& t) {
  std::string out;
  for (int k = 0; k < kOverlapBuckets; ++k) {
    if (k) out += ',';
    out += std::to_string(t.histogram[k]);
  }
  return out;
}

// Calls visit(name, kind, totals) for every communicator and kind with a line: in the
// .prof dump per communicator, named as its D block; in the job file per communicator
// identity (as the `collectives` lines: entries sharing one are summed).
template <typename Visit>
void for_each_kind(const CommunicatorRegistry& registry, bool by_identity, Visit&& visit) {
  std::vector<std::pair<std::string, NbcTotals>> merged;  // identities in registry order
  std::map<std::string, size_t> index;
  registry.for_each([&](const CommunicatorClasses& e) {
    const NbcTotals* totals = e.nbc();
    if (totals == nullptr) return;
    if (by_identity) {
      const auto [it, added] = index.try_emplace(e.identity(), merged.size());
      if (added) merged.emplace_back(e.identity(), NbcTotals{});
      merged[it->second].second.merge(*totals);
      return;
    }
    for (int k = 0; k < kNbcKindCount; ++k)
      if (totals->kinds[k].has_line()) visit(escape_name(e.name(), false), static_cast<NbcKind>(k), totals->kinds[k]);
  });
  for (const auto& [identity, totals] : merged)
    for (int k = 0; k < kNbcKindCount; ++k)
      if (totals.kinds[k].has_line()) visit(identity, static_cast<NbcKind>(k), totals.kinds[k]);
}

// One line per communicator and kind, the fields of both formats: the .prof line labels
// them ("<n> calls", ...) and separates them with tabs, the job file with spaces. A kind
// none of whose calls was followed has no figure: its line says "not followed". When some
// calls went unfollowed, the schedule's line follows.
std::string format_nbc(int me, const CommunicatorRegistry& registry, double seconds_per_tick,
                       const NbcSchedule& schedule, bool prof) {
  static const char* const kProfLabels[] = {
      "", "", "", " calls", " waited", " s", " s blocked", " bytes", " bytes before wait", "", ""};
  const char* const separator = prof ? "\t" : " ";
  std::string out;
  bool unfollowed = false;
  for_each_kind(registry, !prof, [&](const std::string& communicator, NbcKind kind, const NbcKindTotals& t) {
    unfollowed = unfollowed || t.unfollowed;
    out += prof ? "# NBC" : "nbc_overlap";
    if (t.not_followed()) {
      out += separator + std::to_string(me) + separator + communicator + separator + nbc_kind_name(kind) + separator +
             "not followed\n";
      return;
    }
    const std::string fields[] = {std::to_string(me),
                                  communicator,
                                  nbc_kind_name(kind),
                                  std::to_string(t.calls),
                                  std::to_string(t.waited_calls),
                                  fixed(static_cast<double>(t.duration_ticks) * seconds_per_tick, 9),
                                  fixed(static_cast<double>(t.blocked_ticks) * seconds_per_tick, 9),
                                  std::to_string(t.bytes),
                                  std::to_string(t.bytes_before_wait),
                                  mean_text(t),
                                  histogram_text(t)};
    for (size_t i = 0; i < std::size(fields); ++i) out += separator + fields[i] + (prof ? kProfLabels[i] : "");
    out += '\n';
  });
  if (unfollowed) {
    out += std::string(prof ? "# NBC sampling" : "nbc_sampling") + separator + std::to_string(me) + separator +
           std::to_string(schedule.every) + separator + std::to_string(schedule.exact_calls) + "\n";
  }
  return out;
}

}  // namespace

std::string format_prof_nbc(int me, const CommunicatorRegistry& registry, double seconds_per_tick,
                            const NbcSchedule& schedule) {
  return format_nbc(me, registry, seconds_per_tick, schedule, true);
}

std::string format_job_nbc(int me, const CommunicatorRegistry& registry, double seconds_per_tick,
                           const NbcSchedule& schedule) {
  return format_nbc(me, registry, seconds_per_tick, schedule, false);
}

}  // namespace mpimon
