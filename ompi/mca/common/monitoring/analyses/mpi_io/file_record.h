// What one process did with one file through MPI-IO: the three views of docs/io.md.
// Pure C++ (no Open MPI header): the io adapter (ompi/mca/io/monitoring) turns MPI-IO
// calls and ompio's file-system operations into these calls; the PML adapter adds the
// collective-I/O shuffle it sees on the file's communicators.
//
//   asked        the application's data accesses, per family (the twelve blocking MPI
//                functions; nonblocking and split forms count in their family too and
//                are counted apart), with a size histogram; metadata calls; time inside
//                read, write and metadata calls
//   file system  what ompio's fbtl was given (ompio only): operations, entries, bytes, an
//                entry-size histogram, consecutive and sequential entries
//   aggregation  collective calls, those in which this process accessed the file system
//                for the group (an aggregator), and the shuffle messages per peer
//
// Memory grows with what is used, never with calls: the counters of an access family or
// file-system direction are allocated at its first use (~550 bytes each); the shuffle
// keeps one entry per peer.
//
// Writers: the threads that call MPI-IO on the file (relaxed atomic adds when the
// process is multi-threaded, plain adds otherwise: single_writer.h). Readers (the time
// series' thread, performance variables, the end-of-job dump) load counters relaxed and
// may run at any time.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"  // Counters, histogram buckets

namespace mpimon::mpi_io {

// The data-access families, named after their blocking MPI function (MPI_File_<name>).
// The order is the order of the io_monitoring_calls / _size performance variables' values
// and part of the formats only by name.
// clang-format off
#define MPIMON_IO_ACCESS_KINDS(X) \
  X(read_at) X(read_at_all) X(read) X(read_all) X(read_shared) X(read_ordered) \
  X(write_at) X(write_at_all) X(write) X(write_all) X(write_shared) X(write_ordered)
// clang-format on
#define MPIMON_IO_ENUMERATOR(name) name,
enum class Access : uint8_t { MPIMON_IO_ACCESS_KINDS(MPIMON_IO_ENUMERATOR) };
inline constexpr int kAccessCount = 12;
const char* access_name(Access access) noexcept;
bool parse_access(std::string_view name, Access& access) noexcept;

enum class Direction : uint8_t { read = 0, write = 1 };
inline constexpr int kDirectionCount = 2;
const char* direction_name(Direction direction) noexcept;
bool parse_direction(std::string_view name, Direction& direction) noexcept;

constexpr Direction direction_of(Access a) noexcept {
  return static_cast<int>(a) >= 6 ? Direction::write : Direction::read;
}
// _all and _ordered: every process of the file's communicator calls.
constexpr bool is_collective(Access a) noexcept { return (static_cast<int>(a) & 1) != 0; }

// How a data access was called: MPI_File_write_at (blocking), MPI_File_iwrite_at
// (nonblocking), MPI_File_write_at_all_begin (split; its _end is not an access).
enum class Call : uint8_t { blocking, nonblocking, split };

// Metadata calls that are counted (and timed as metadata).
#define MPIMON_IO_META_OPS(X) X(open) X(close) X(set_view) X(sync) X(set_size) X(seek)
enum class MetaOp : uint8_t { MPIMON_IO_META_OPS(MPIMON_IO_ENUMERATOR) };
inline constexpr int kMetaOpCount = 6;
const char* meta_op_name(MetaOp op) noexcept;

// Where the time inside calls goes (io_monitoring_time's values, in this order).
enum class Timer : uint8_t { read = 0, write = 1, meta = 2 };
inline constexpr int kTimerCount = 3;
#undef MPIMON_IO_ENUMERATOR

// One direction of the file-system view. `entries` counts the (offset, length) pieces of
// the operations (messages = entries, bytes, histogram of entry lengths). As Darshan's
// POSIX module defines them: an entry is consecutive when it starts where the previous
// entry of the same direction ended, sequential when it starts there or later
// (consecutive entries are sequential too); the first entry is neither. `end`: the
// highest offset + length of an entry (Darshan's MAX_BYTE_WRITTEN/READ + 1): for writes,
// the file's size as this process's writes made it.
//
// Failed operations (the fbtl returned an error, or a blocking write returned fewer bytes
// than its entries hold: a full disk) are counted apart and never in `operations`,
// `entries`, the histogram or the offsets: `failed_operations`, and `failed_bytes` the
// bytes they did not move (an error: all of their entries' bytes; a short write: what it
// fell short by). The bytes a short write did move are in `entries.bytes`, so that bytes
// + failed bytes = all the bytes handed to the fbtl.
struct FsTotals {
  uint64_t operations = 0;
  Counters entries;
  uint64_t consecutive = 0;
  uint64_t sequential = 0;
  uint64_t end = 0;
  uint64_t failed_operations = 0;
  uint64_t failed_bytes = 0;
};

// Shuffle messages to one peer (the per-peer histogram is in the engine's io_shuffle
// record of that peer, all files together).
struct PeerTraffic {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

// A plain copy of a record's totals (what readers and formats work with).
struct FileTotals {
  Counters asked[kAccessCount];  // messages = calls
  uint64_t nonblocking_calls = 0;
  uint64_t split_calls = 0;
  uint64_t meta[kMetaOpCount] = {};
  uint64_t ticks[kTimerCount] = {};
  FsTotals fs[kDirectionCount];
  uint64_t collective_calls = 0;
  uint64_t aggregated_calls = 0;           // collective calls in which this process accessed the file system
  std::map<int32_t, PeerTraffic> shuffle;  // world rank -> what this process sent it

  void merge(const FileTotals& other);
  bool any_access() const;
};

// Who a file is: its name as the application gave it and the world ranks of the
// communicator it was opened on. identity() is the same on every process of the file
// and distinct for another name or member list (up to a 64-bit hash collision).
struct FileIdentity {
  std::string name;
  uint64_t members_hash = 0;  // members_hash() of the world ranks (communicator_classes.h)
  int32_t members = 0;        // the communicator's size
  bool first_member = false;  // this process has rank 0 in the communicator
  std::string member_ranges;  // set on the first member only: format_rank_ranges() (job_format.h)

  // FNV-1a 64 of the name, continued from members_hash.
  uint64_t hash() const;
  // hash() as 16 lower-case hex digits: the file's identity in the dumps.
  std::string identity() const;
};

class FileRecord {
 public:
  FileRecord(FileIdentity identity, bool threaded);
  ~FileRecord();
  FileRecord(const FileRecord&) = delete;
  FileRecord& operator=(const FileRecord&) = delete;

  const FileIdentity& identity() const { return identity_; }

  // --- recording (the io adapter's wrappers, after the real call succeeded)
  void add_access(Access access, Call how, uint64_t bytes, uint64_t ticks) noexcept {
    Counters* c = asked_[static_cast<int>(access)].load(std::memory_order_acquire);
    if (c == nullptr) [[unlikely]]
      c = allocate(asked_[static_cast<int>(access)]);
    add(c->messages, 1);
    add(c->bytes, bytes);
    add(c->histogram[message_bucket(bytes)], 1);
    if (how == Call::nonblocking) add(nonblocking_calls_, 1);
    if (how == Call::split) add(split_calls_, 1);
    add(ticks_[static_cast<int>(direction_of(access))], ticks);
  }
  void add_meta(MetaOp op, uint64_t ticks) noexcept {
    add(meta_[static_cast<int>(op)], 1);
    add(ticks_[static_cast<int>(Timer::meta)], ticks);
  }
  // Time inside a call that is not itself an access or a counted metadata call (the
  // _end of a split access: read or write time).
  void add_time(Timer timer, uint64_t ticks) noexcept { add(ticks_[static_cast<int>(timer)], ticks); }
  // One file-system operation of `entries` pieces; entry_at(i) gives the i-th as an
  // (offset, length) pair. Inline: the adapter's fbtl wrapper runs it per operation.
  template <typename EntryAt>
  void add_fs_operation(Direction d, size_t entries, EntryAt&& entry_at) noexcept {
    FsState* s = fs_[static_cast<int>(d)].load(std::memory_order_acquire);
    if (s == nullptr) [[unlikely]]
      s = fs_state(d);
    if (threaded_) {
      std::lock_guard lock(mutex_);  // the previous entry's end is shared state
      add_entries<true>(*s, entries, entry_at);
    } else {
      add_entries<false>(*s, entries, entry_at);
    }
  }
  // One file-system operation that failed (FsTotals): `failed` bytes it did not move,
  // `moved` bytes it did (a short write).
  void add_fs_failure(Direction d, uint64_t failed, uint64_t moved = 0) noexcept {
    FsState* s = fs_[static_cast<int>(d)].load(std::memory_order_acquire);
    if (s == nullptr) [[unlikely]]
      s = fs_state(d);
    add(s->totals.failed_operations, 1);
    add(s->totals.failed_bytes, failed);
    if (moved != 0) add(s->totals.entries.bytes, moved);
  }
  // A collective data access ended; `aggregated`: this process accessed the file system
  // in it (the io adapter decides, see docs/io.md).
  void add_collective(bool aggregated) noexcept {
    add(collective_calls_, 1);
    if (aggregated) add(aggregated_calls_, 1);
  }
  // One shuffle message this process sent to world rank `peer` (a mutex: the shuffle
  // moves kilobytes per message).
  void add_shuffle(int32_t peer, uint64_t bytes);
  // The io component ("ompio", "romio321") and, for ompio, the fcoll component of the
  // latest collective access (re-selected at every set_view).
  void set_components(std::string_view io, std::string_view fcoll);
  std::string io_component() const;
  std::string fcoll_component() const;

  // --- reading (any thread)
  FileTotals totals() const;
  uint64_t calls(Access access) const noexcept;
  uint64_t bytes(Access access) const noexcept;
  uint64_t ticks(Timer timer) const noexcept {
    return std::atomic_ref(ticks_[static_cast<int>(timer)]).load(std::memory_order_relaxed);
  }
  FsTotals fs(Direction d) const noexcept;
  uint64_t aggregated_calls() const noexcept {
    return std::atomic_ref(aggregated_calls_).load(std::memory_order_relaxed);
  }
  // Adds a closed twin's totals (the registry, under its lock, when no writer is left).
  void merge(const FileTotals& other);

 private:
  struct FsState {
    FsTotals totals;
    uint64_t next_offset = 0;  // where the previous entry ended
    bool any = false;
  };
  template <bool threaded>
  static void bump(uint64_t& counter, uint64_t amount) noexcept {
    if constexpr (threaded) {
      std::atomic_ref(counter).fetch_add(amount, std::memory_order_relaxed);
    } else {
      single_writer_add(counter, amount);
    }
  }
  void add(uint64_t& counter, uint64_t amount) const noexcept {
    if (threaded_) {
      bump<true>(counter, amount);
    } else {
      bump<false>(counter, amount);
    }
  }
  template <bool threaded, typename EntryAt>
  static void add_entries(FsState& s, size_t entries, EntryAt& entry_at) noexcept {
    FsTotals& t = s.totals;
    for (size_t i = 0; i < entries; ++i) {
      const auto [offset, length] = entry_at(i);
      bump<threaded>(t.entries.messages, 1);
      bump<threaded>(t.entries.bytes, length);
      bump<threaded>(t.entries.histogram[message_bucket(length)], 1);
      if (s.any) {
        if (offset == s.next_offset) bump<threaded>(t.consecutive, 1);
        if (offset >= s.next_offset) bump<threaded>(t.sequential, 1);
      }
      s.any = true;
      s.next_offset = offset + length;
      if (offset + length > t.end) std::atomic_ref(t.end).store(offset + length, std::memory_order_relaxed);
    }
    bump<threaded>(t.operations, 1);
  }
  Counters* allocate(std::atomic<Counters*>& slot);
  FsState* fs_state(Direction d);  // created at the direction's first operation

  FileIdentity identity_;
  bool threaded_;
  std::atomic<Counters*> asked_[kAccessCount] = {};
  mutable uint64_t nonblocking_calls_ = 0;
  mutable uint64_t split_calls_ = 0;
  mutable uint64_t meta_[kMetaOpCount] = {};
  mutable uint64_t ticks_[kTimerCount] = {};
  mutable uint64_t collective_calls_ = 0;
  mutable uint64_t aggregated_calls_ = 0;
  std::atomic<FsState*> fs_[kDirectionCount] = {};
  mutable std::mutex mutex_;  // shuffle, components, allocations, file-system entries when threaded
  std::map<int32_t, PeerTraffic> shuffle_;
  std::string io_component_, fcoll_component_;
};

}  // namespace mpimon::mpi_io
