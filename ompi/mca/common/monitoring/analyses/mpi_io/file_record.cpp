#include "analyses/mpi_io/file_record.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "formats/checksum.h"

namespace mpimon::mpi_io {

namespace {

#define MPIMON_IO_NAME(name) #name,
constexpr const char* kAccessNames[kAccessCount] = {MPIMON_IO_ACCESS_KINDS(MPIMON_IO_NAME)};
constexpr const char* kMetaNames[kMetaOpCount] = {MPIMON_IO_META_OPS(MPIMON_IO_NAME)};
#undef MPIMON_IO_NAME
constexpr const char* kDirectionNames[kDirectionCount] = {"read", "write"};

uint64_t load(const uint64_t& counter) noexcept {
  return std::atomic_ref(const_cast<uint64_t&>(counter)).load(std::memory_order_relaxed);
}

void add_counters(Counters& into, const Counters& from) {
  into.messages += from.messages;
  into.bytes += from.bytes;
  for (int b = 0; b < kHistogramBuckets; ++b) into.histogram[b] += from.histogram[b];
}

void add_fs(FsTotals& into, const FsTotals& from) {
  into.operations += from.operations;
  add_counters(into.entries, from.entries);
  into.consecutive += from.consecutive;
  into.sequential += from.sequential;
  into.end = std::max(into.end, from.end);
  into.failed_operations += from.failed_operations;
  into.failed_bytes += from.failed_bytes;
}

}  // namespace

const char* access_name(Access access) noexcept { return kAccessNames[static_cast<int>(access)]; }

bool parse_access(std::string_view name, Access& access) noexcept {
  for (int a = 0; a < kAccessCount; ++a) {
    if (name == kAccessNames[a]) {
      access = static_cast<Access>(a);
      return true;
    }
  }
  return false;
}

const char* direction_name(Direction direction) noexcept { return kDirectionNames[static_cast<int>(direction)]; }

bool parse_direction(std::string_view name, Direction& direction) noexcept {
  for (int d = 0; d < kDirectionCount; ++d) {
    if (name == kDirectionNames[d]) {
      direction = static_cast<Direction>(d);
      return true;
    }
  }
  return false;
}

const char* meta_op_name(MetaOp op) noexcept { return kMetaNames[static_cast<int>(op)]; }

void FileTotals::merge(const FileTotals& other) {
  for (int a = 0; a < kAccessCount; ++a) add_counters(asked[a], other.asked[a]);
  nonblocking_calls += other.nonblocking_calls;
  split_calls += other.split_calls;
  for (int m = 0; m < kMetaOpCount; ++m) meta[m] += other.meta[m];
  for (int t = 0; t < kTimerCount; ++t) ticks[t] += other.ticks[t];
  for (int d = 0; d < kDirectionCount; ++d) add_fs(fs[d], other.fs[d]);
  collective_calls += other.collective_calls;
  aggregated_calls += other.aggregated_calls;
  for (const auto& [peer, traffic] : other.shuffle) {
    PeerTraffic& t = shuffle[peer];
    t.messages += traffic.messages;
    t.bytes += traffic.bytes;
  }
}

bool FileTotals::any_access() const {
  for (const Counters& c : asked)
    if (c.messages != 0) return true;
  return false;
}

uint64_t FileIdentity::hash() const { return fnv1a64(name, members_hash); }

std::string FileIdentity::identity() const { return to_hex(hash(), 16); }

FileRecord::FileRecord(FileIdentity identity, bool threaded) : identity_(std::move(identity)), threaded_(threaded) {}

FileRecord::~FileRecord() {
  for (auto& slot : asked_) delete slot.load(std::memory_order_relaxed);
  for (auto& slot : fs_) delete slot.load(std::memory_order_relaxed);
}

Counters* FileRecord::allocate(std::atomic<Counters*>& slot) {
  std::lock_guard lock(mutex_);
  Counters* c = slot.load(std::memory_order_acquire);
  if (c == nullptr) {
    c = new Counters();
    slot.store(c, std::memory_order_release);
  }
  return c;
}

FileRecord::FsState* FileRecord::fs_state(Direction d) {
  std::atomic<FsState*>& slot = fs_[static_cast<int>(d)];
  FsState* state = slot.load(std::memory_order_acquire);
  if (state != nullptr) [[likely]]
    return state;
  std::lock_guard lock(mutex_);
  state = slot.load(std::memory_order_acquire);
  if (state == nullptr) {
    state = new FsState();
    slot.store(state, std::memory_order_release);
  }
  return state;
}

void FileRecord::add_shuffle(int32_t peer, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  PeerTraffic& t = shuffle_[peer];
  ++t.messages;
  t.bytes += bytes;
}

void FileRecord::set_components(std::string_view io, std::string_view fcoll) {
  std::lock_guard lock(mutex_);
  if (io_component_ != io) io_component_ = io;
  if (!fcoll.empty() && fcoll_component_ != fcoll) fcoll_component_ = fcoll;
}

std::string FileRecord::io_component() const {
  std::lock_guard lock(mutex_);
  return io_component_;
}

std::string FileRecord::fcoll_component() const {
  std::lock_guard lock(mutex_);
  return fcoll_component_;
}

uint64_t FileRecord::calls(Access access) const noexcept {
  const Counters* c = asked_[static_cast<int>(access)].load(std::memory_order_acquire);
  return c ? load(c->messages) : 0;
}

uint64_t FileRecord::bytes(Access access) const noexcept {
  const Counters* c = asked_[static_cast<int>(access)].load(std::memory_order_acquire);
  return c ? load(c->bytes) : 0;
}

FsTotals FileRecord::fs(Direction d) const noexcept {
  FsTotals out;
  const FsState* s = fs_[static_cast<int>(d)].load(std::memory_order_acquire);
  if (s == nullptr) return out;
  out.operations = load(s->totals.operations);
  out.entries = load_counters(s->totals.entries);
  out.consecutive = load(s->totals.consecutive);
  out.sequential = load(s->totals.sequential);
  out.end = load(s->totals.end);
  out.failed_operations = load(s->totals.failed_operations);
  out.failed_bytes = load(s->totals.failed_bytes);
  return out;
}

FileTotals FileRecord::totals() const {
  FileTotals out;
  for (int a = 0; a < kAccessCount; ++a) {
    const Counters* c = asked_[a].load(std::memory_order_acquire);
    if (c != nullptr) out.asked[a] = load_counters(*c);
  }
  out.nonblocking_calls = load(nonblocking_calls_);
  out.split_calls = load(split_calls_);
  for (int m = 0; m < kMetaOpCount; ++m) out.meta[m] = load(meta_[m]);
  for (int t = 0; t < kTimerCount; ++t) out.ticks[t] = load(ticks_[t]);
  for (int d = 0; d < kDirectionCount; ++d) out.fs[d] = fs(static_cast<Direction>(d));
  out.collective_calls = load(collective_calls_);
  out.aggregated_calls = load(aggregated_calls_);
  std::lock_guard lock(mutex_);
  out.shuffle = shuffle_;
  return out;
}

void FileRecord::merge(const FileTotals& other) {
  for (int a = 0; a < kAccessCount; ++a) {
    if (other.asked[a].messages == 0) continue;
    Counters* c = asked_[a].load(std::memory_order_acquire);
    if (c == nullptr) c = allocate(asked_[a]);
    add(c->messages, other.asked[a].messages);
    add(c->bytes, other.asked[a].bytes);
    for (int b = 0; b < kHistogramBuckets; ++b)
      if (other.asked[a].histogram[b] != 0) add(c->histogram[b], other.asked[a].histogram[b]);
  }
  add(nonblocking_calls_, other.nonblocking_calls);
  add(split_calls_, other.split_calls);
  for (int m = 0; m < kMetaOpCount; ++m) add(meta_[m], other.meta[m]);
  for (int t = 0; t < kTimerCount; ++t) add(ticks_[t], other.ticks[t]);
  for (int d = 0; d < kDirectionCount; ++d) {
    const FsTotals& o = other.fs[d];
    if (o.operations == 0 && o.entries.messages == 0 && o.failed_operations == 0) continue;
    FsTotals& t = fs_state(static_cast<Direction>(d))->totals;
    add(t.operations, o.operations);
    add(t.entries.messages, o.entries.messages);
    add(t.entries.bytes, o.entries.bytes);
    for (int b = 0; b < kHistogramBuckets; ++b)
      if (o.entries.histogram[b] != 0) add(t.entries.histogram[b], o.entries.histogram[b]);
    add(t.consecutive, o.consecutive);
    add(t.sequential, o.sequential);
    if (o.end > t.end) std::atomic_ref(t.end).store(o.end, std::memory_order_relaxed);
    add(t.failed_operations, o.failed_operations);
    add(t.failed_bytes, o.failed_bytes);
  }
  add(collective_calls_, other.collective_calls);
  add(aggregated_calls_, other.aggregated_calls);
  std::lock_guard lock(mutex_);
  for (const auto& [peer, traffic] : other.shuffle) {
    PeerTraffic& t = shuffle_[peer];
    t.messages += traffic.messages;
    t.bytes += traffic.bytes;
  }
}

}  // namespace mpimon::mpi_io
