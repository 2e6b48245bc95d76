// The shadow window's memory: where the timestamps the processes of a window send each
// other land (one shadow window per monitored window, allocated with disp_unit 1), and
// the records themselves.
//
//   complete records   [slots][2]  written by an origin at MPI_Win_complete into each
//                                  target: when it entered complete, when its last
//                                  operation to that target ended
//   fence records      [2]         MPI_MAX-accumulated by every origin at a fence: the end
//                                  of its last operation to this process, and its rank
//   lock records       [16]        written by a process releasing a lock on this process
//
// A target's post entry time (PostRecord) travels as a point-to-point message on the
// private communicator instead: with osc pt2pt, a put's local completion would wait
// for the origin's progress, which MPI_Win_post itself never does.
//
// A complete record of a pair of processes sits in slot (writer rank mod slots),
// half (pair epoch mod 2): the writer can run one epoch ahead of the reader, never two
// (see epoch_tracker.cpp). slots = the window size up to 1021 (then every pair has its
// own slot), else 1021, a prime: two partners of one process share a slot only if their
// ranks differ by a multiple of 1021. Each record carries its writer and pair epoch
// (`tag`) and a check word, so a record that is missing, stale or overwritten by a
// colliding writer is recognised, and that epoch is skipped (counted as unmatched).
// Memory per window and process: at most 1021 x 2 x 32 bytes + 400 bytes (66 KB),
// whatever the number of epochs and processes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace mpimon::wait_states {

struct PostRecord {
  uint64_t tag;
  int64_t post_enter;
  uint64_t check;
};

struct CompleteRecord {
  uint64_t tag;
  int64_t complete_enter;
  int64_t last_op_exit;
  uint64_t check;
};

// The end of an origin's last operation and its rank in one word, MPI_MAX-accumulated
// (one-sided MPI_MAXLOC on pair types is not supported by every component: osc pt2pt
// aborts): time since the window's creation in units of 128 ns in the high 44 bits
// (13 days), window rank in the low 20 bits (1 048 576 processes), plus one (0: empty).
using FenceRecord = uint64_t;
inline constexpr int kFenceRankBits = 20;
inline constexpr int kFenceTimeShift = 7;
inline FenceRecord make_fence_record(int64_t time, int64_t window_created, int32_t rank) {
  const int64_t since = time > window_created ? (time - window_created) >> kFenceTimeShift : 0;
  const uint64_t capped = std::min<uint64_t>(static_cast<uint64_t>(since), (uint64_t{1} << (63 - kFenceRankBits)) - 1);
  return ((capped << kFenceRankBits) | (static_cast<uint64_t>(rank) & ((1u << kFenceRankBits) - 1))) + 1;
}
// The rank (-1 if empty) and time of a fence record.
inline int32_t fence_record_rank(FenceRecord r) {
  return r == 0 ? -1 : static_cast<int32_t>((r - 1) & ((1u << kFenceRankBits) - 1));
}
inline int64_t fence_record_time(FenceRecord r, int64_t window_created) {
  return r == 0 ? 0 : window_created + (static_cast<int64_t>((r - 1) >> kFenceRankBits) << kFenceTimeShift);
}

struct LockRecord {
  uint64_t tag;  // releaser + 1 in the high half, its release count in the low half
  int64_t time;
  uint64_t check;
};

inline constexpr int kMaxSlots = 1021;
inline constexpr int kLockRecords = 16;

// Writer and pair epoch in one word; 0 never is a valid tag (fresh memory is zero).
inline uint64_t record_tag(int32_t writer, uint32_t epoch) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(writer) + 1) << 32) | epoch;
}
inline uint64_t record_check(uint64_t tag, int64_t a, int64_t b = 0) {
  return (tag * 0x9E3779B97F4A7C15ull) ^ static_cast<uint64_t>(a) ^ (static_cast<uint64_t>(b) << 1) ^
         0x5bd1e9955bd1e995ull;
}
inline PostRecord make_post_record(int32_t writer, uint32_t epoch, int64_t post_enter) {
  const uint64_t tag = record_tag(writer, epoch);
  return {tag, post_enter, record_check(tag, post_enter)};
}
inline bool valid(const PostRecord& r, int32_t writer, uint32_t epoch) {
  const uint64_t tag = record_tag(writer, epoch);
  return r.tag == tag && r.check == record_check(tag, r.post_enter);
}
inline CompleteRecord make_complete_record(int32_t writer, uint32_t epoch, int64_t complete_enter,
                                           int64_t last_op_exit) {
  const uint64_t tag = record_tag(writer, epoch);
  return {tag, complete_enter, last_op_exit, record_check(tag, complete_enter, last_op_exit)};
}
inline bool valid(const CompleteRecord& r, int32_t writer, uint32_t epoch) {
  const uint64_t tag = record_tag(writer, epoch);
  return r.tag == tag && r.check == record_check(tag, r.complete_enter, r.last_op_exit);
}
inline LockRecord make_lock_record(int32_t releaser, uint32_t release_count, int64_t time) {
  const uint64_t tag = record_tag(releaser, release_count);
  return {tag, time, record_check(tag, time)};
}
// The releaser of a valid record, else -1.
inline int32_t releaser_of(const LockRecord& r) {
  if (r.tag == 0 || r.check != record_check(r.tag, r.time)) return -1;
  return static_cast<int32_t>((r.tag >> 32) - 1);
}

class ShadowLayout {
 public:
  explicit ShadowLayout(int window_size)
      : slots_(window_size < 1 ? 1 : (window_size <= kMaxSlots ? window_size : kMaxSlots)) {}

  int slots() const { return slots_; }
  size_t complete_record(int32_t writer, uint32_t epoch) const {
    return (slot(writer) * 2 + (epoch & 1)) * sizeof(CompleteRecord);
  }
  size_t fence_record(uint64_t fence_number) const {
    return complete_bytes() + (fence_number & 1) * sizeof(FenceRecord);
  }
  size_t lock_record(int32_t releaser) const {
    return complete_bytes() + 2 * sizeof(FenceRecord) +
           static_cast<size_t>(releaser % kLockRecords) * sizeof(LockRecord);
  }
  size_t lock_records() const { return lock_record(0); }
  size_t bytes() const { return lock_records() + kLockRecords * sizeof(LockRecord); }

 private:
  size_t slot(int32_t writer) const { return static_cast<size_t>(writer % slots_); }
  size_t complete_bytes() const { return static_cast<size_t>(slots_) * 2 * sizeof(CompleteRecord); }
  int slots_;
};

}  // namespace mpimon::wait_states
