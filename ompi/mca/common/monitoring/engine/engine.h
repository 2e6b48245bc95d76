// The monitoring engine: per (peer, category) message counters and size histograms.
//
// Pure C++ (no Open MPI header): the adapters in ompi/mca/{pml,coll,osc}/monitoring turn
// MPI calls into (world rank of the peer, category, bytes) and call Engine::record.
//
// Memory grows with the (peer, category) pairs a process actually uses, never with the
// job size: counters live in individually allocated blocks found through an open-addressing
// hash table. Lookups are lock-free (the table is published with release/acquire and old
// tables are retired, not freed, until the engine dies); only the first message to a new
// (peer, category) takes a mutex. Counter blocks never move, so a concurrent lookup that
// found one keeps a valid pointer.
//
// Totals only ever grow: phases and readers work from snapshots (see Snapshot below).
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "engine/single_writer.h"

namespace mpimon {

// Bucket 0 holds 0-byte messages, bucket k (1..64) sizes in [2^(k-1), 2^k). Bucket 65 is
// never used; it exists because Open MPI's .prof format prints 66 values.
inline constexpr int kHistogramBuckets = 66;

inline constexpr unsigned histogram_bucket(uint64_t bytes) noexcept {
  return static_cast<unsigned>(std::bit_width(bytes));
}

// histogram_bucket() for the size of a message (< 2^63 bytes: any buffer in an address
// space) in two instructions on the hot paths: the highest set bit of 2 × bytes + 1 is
// bit_width(bytes), and the argument is never 0 (one lea, one bsr; no test for 0).
inline unsigned message_bucket(uint64_t bytes) noexcept {
  return 63u - static_cast<unsigned>(__builtin_clzll((bytes << 1) | 1));
}

// What kind of traffic a record describes. The numeric values are part of the job file
// format: only append.
enum class Category : uint8_t {
  external = 0,  // point-to-point, user tags (>= 0); everything when enable level is 1
  internal = 1,  // point-to-point, negative tags: collectives' and protocol traffic
  coll = 2,      // collective operations, logical pattern (COLL layer)
  osc_sent = 3,  // one-sided data sent from this origin (OSC layer)
  osc_recv = 4,  // one-sided data received by this origin (OSC layer)
  // point-to-point, tags >= 0, on a file's communicators while MPI-IO runs: the
  // collective-I/O shuffle (analyses/mpi_io/file_registry.h), not the application's (never in
  // external)
  io_shuffle = 5,
};
inline constexpr int kCategoryCount = 6;
const char* category_name(Category category) noexcept;
// The category of a name category_name() gives; false for any other text.
bool parse_category(std::string_view name, Category& category) noexcept;

struct Counters {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t histogram[kHistogramBuckets] = {};
};

// What readers of dumps accept: every count, once summed, below 2^60 (1 EiB) (the tools add
// up categories and directions in 64 bits: 8 x 2^60 = 2^63). No real count comes near.
inline constexpr uint64_t kCountLimit = uint64_t{1} << 60;

// One non-zero (peer, category) of a snapshot.
struct Record {
  int32_t peer = 0;  // MPI_COMM_WORLD rank
  Category category = Category::external;
  Counters counters;
};
// Records sorted by (peer, category); only pairs with at least one message.
using Snapshot = std::vector<Record>;

// now - before, for two snapshots of the same engine (before taken earlier). Records whose
// difference is zero are dropped.
Snapshot snapshot_difference(const Snapshot& now, const Snapshot& before);

// Map from a 32-bit key to a stable Counters block.
class CounterTable {
 public:
  CounterTable();
  ~CounterTable();
  CounterTable(const CounterTable&) = delete;
  CounterTable& operator=(const CounterTable&) = delete;

  // Keys are never 0 (0 marks an empty slot).
  struct Slot {
    std::atomic<uint32_t> key{0};  // published last
    Counters* counters = nullptr;
  };

  // Hot path: a multiplicative hash and, almost always, one probe.
  Counters& find_or_insert(uint32_t key) {
    const Slot& slot = home_slot(key);
    if (slot.key.load(std::memory_order_acquire) == key) [[likely]]
      return *slot.counters;
    return find_or_insert_slow(key);
  }
  // Where `key` sits when there was no collision (the common case: the load factor is at
  // most 1/4). If its key differs, find_or_insert_slow finds or creates the block.
  const Slot& home_slot(uint32_t key) const { return home_slot_in(table_.load(std::memory_order_acquire), key); }

  // The current table, as the hottest paths hold it: an adapter keeps a mirror in its
  // own state (one load less per message), which the table keeps up to date from now on
  // (written before the new table is used, under the insert lock). Single-threaded
  // recording only: a concurrent insert by another thread could be missed for a moment.
  using TableHandle = const void*;
  void mirror_into(std::atomic<TableHandle>* mirror);
  static const Slot& home_slot_in(TableHandle handle, uint32_t key) {
    const Table* table = static_cast<const Table*>(handle);
    return *reinterpret_cast<const Slot*>(reinterpret_cast<const char*>(table->slots()) +
                                          slot_offset(key, table->offset_mask));
  }
  // The counters of `key` when they sit in its home slot of `handle`, else nullptr: for a
  // single-threaded writer (a plain read of the slot's key: nobody else publishes).
  [[gnu::always_inline]] static Counters* home_counters(TableHandle handle, uint32_t key) {
#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(MPIMON_TSAN) && !defined(MPIMON_NO_ENGINE_ASM)
    // Written out for the send paths, where only the three scratch registers are free
    // (the other six hold the arguments forwarded as they came): GCC multiplies the key
    // in place, then keeps a copy of it in an argument register, moved away and back per
    // message; here the key stays in its register.
    const Table* table = static_cast<const Table*>(handle);
    uint64_t offset;
    Counters* counters;
    asm goto(
        "imul $0x5851f42d, %q[key], %q[offset]\n\t"
        "shr $12, %q[offset]\n\t"
        "and %c[offset_mask](%q[table]), %q[offset]\n\t"
        "cmp %k[key], %c[slot_key](%q[table],%q[offset])\n\t"
        "jne %l[elsewhere]\n\t"
        "mov %c[slot_counters](%q[table],%q[offset]), %q[counters]"
        : [offset] "=&r"(offset), [counters] "=r"(counters)
        : [key] "r"(uint64_t{key}), [table] "r"(table), [offset_mask] "i"(offsetof(Table, offset_mask)),
          [slot_key] "i"(sizeof(Table) + offsetof(Slot, key)),
          [slot_counters] "i"(sizeof(Table) + offsetof(Slot, counters))
        : "cc"
        : elsewhere);
    if (counters == nullptr) __builtin_unreachable();  // a published slot's block
    return counters;
  elsewhere:
    return nullptr;
#else
    const Slot& slot = home_slot_in(handle, key);
    if (*reinterpret_cast<const uint32_t*>(&slot.key) != key) return nullptr;
    return slot.counters;
#endif
  }
  Counters& find_or_insert_slow(uint32_t key);
  const Counters* find(uint32_t key) const;

  // Calls visit(key, counters) for every block, in insertion order. Takes the insert
  // lock: cold paths only.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    std::lock_guard lock(insert_mutex_);
    for (const auto& [key, counters] : blocks_) visit(key, *counters);
  }
  // Calls visit(key, counters) for every block published in the current table, in slot
  // order, without any lock: for a reader that must never make a recording thread wait
  // (the time series' thread). Safe against concurrent inserts: a slot's block pointer is
  // written before its key is published (release/acquire), and a table replaced during
  // the walk stays allocated. A block inserted during the walk may be missed; the next
  // walk sees it.
  template <typename Visit>
  void for_each_published(Visit&& visit) const {
    const Table* table = table_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i <= table->mask; ++i) {
      const Slot& slot = table->slots()[i];
      const uint32_t key = slot.key.load(std::memory_order_acquire);
      if (key != 0) visit(key, static_cast<const Counters&>(*slot.counters));
    }
  }
  size_t size() const;
  size_t memory_bytes() const;

 private:
  // Header followed in the same allocation by the slots (one load less on the hot path).
  struct Table {
    uint32_t mask;         // capacity - 1
    uint64_t offset_mask;  // mask * sizeof(Slot): the hot path indexes in bytes
    Slot* slots() { return reinterpret_cast<Slot*>(this + 1); }
    const Slot* slots() const { return reinterpret_cast<const Slot*>(this + 1); }
  };
  struct TableDeleter {
    void operator()(Table* table) const;
  };
  using TablePtr = std::unique_ptr<Table, TableDeleter>;
  // Multiplicative hash: the middle bits of a 64-bit product mix every bit of the key,
  // and a constant shift keeps %cl free on x86 (fewer register moves on the hot path).
  static uint32_t hash(uint32_t key, uint32_t mask) {
    return static_cast<uint32_t>((uint64_t{key} * 0x5851F42Dull) >> 16) & mask;
  }
  // hash(key, mask) * sizeof(Slot) (offset_mask = mask * 16), without the multiplication.
  static uint64_t slot_offset(uint32_t key, uint64_t offset_mask) {
    static_assert(sizeof(Slot) == 16);
    return ((uint64_t{key} * 0x5851F42Dull) >> 12) & offset_mask;
  }
  static TablePtr make_table(unsigned log2_capacity);

  void publish(const Table* table);

  std::atomic<const Table*> table_;
  std::vector<TablePtr> tables_;  // current one last; older ones retired
  std::vector<std::atomic<TableHandle>*> mirrors_;
  std::vector<std::pair<uint32_t, std::unique_ptr<Counters>>> blocks_;
  mutable std::mutex insert_mutex_;
};

class Engine {
 public:
  Engine() = default;

  // Use atomic increments (MPI_THREAD_MULTIPLE). Single-threaded processes pay no
  // atomic-operation cost.
  void set_threaded(bool threaded) noexcept { threaded_ = threaded; }
  bool threaded() const noexcept { return threaded_; }

  // Count one message of `bytes` bytes to world rank `peer`, 0 <= peer < 2^29 - 1 (the
  // key encoding; processes of other jobs go to record_other_job).
  void record(int32_t peer, Category category, uint64_t bytes) noexcept {
    record(peer, category, bytes, histogram_bucket(bytes));
  }
  // The same with the size's histogram bucket already known (loops over many peers).
  void record(int32_t peer, Category category, uint64_t bytes, unsigned bucket) noexcept {
    Counters& c = counters_.find_or_insert(key(peer, category));
    if (threaded_) {
      std::atomic_ref(c.messages).fetch_add(1, std::memory_order_relaxed);
      std::atomic_ref(c.bytes).fetch_add(bytes, std::memory_order_relaxed);
      std::atomic_ref(c.histogram[bucket]).fetch_add(1, std::memory_order_relaxed);
    } else {
      single_writer_add(c.messages, 1);
      single_writer_add(c.bytes, bytes);
      single_writer_add(c.histogram[bucket], 1);
    }
  }
  // Adapters' hot paths look up the block themselves (CounterTable::home_slot) and fall
  // back to record() when it is not in its home slot.
  CounterTable& counters() noexcept { return counters_; }
  const CounterTable& counters() const noexcept { return counters_; }

  // Traffic to processes of another job (MPI_Comm_spawn, connect/accept): they have no
  // MPI_COMM_WORLD rank, so they are only totalled.
  void record_other_job(Category category, uint64_t bytes) noexcept;

  // Current totals for one (peer, category); zeros if never used.
  Counters read(int32_t peer, Category category) const;
  // Messages / bytes only (what performance variables return).
  uint64_t messages(int32_t peer, Category category) const;
  uint64_t bytes(int32_t peer, Category category) const;

  Snapshot snapshot() const;
  Counters other_job_totals(Category category) const;
  size_t memory_bytes() const { return sizeof(*this) + counters_.memory_bytes(); }

  // (peer + 1) * 8 + category: never 0, and one lea on x86 (an addition: with the
  // category in a register, lea 8(%cat,%peer,8) is the whole key).
  static uint32_t key(int32_t peer, Category category) noexcept { return key(peer, static_cast<uint32_t>(category)); }
  static uint32_t key(int32_t peer, uint32_t category) noexcept {
    return ((static_cast<uint32_t>(peer) + 1) << 3) + category;
  }
  static int32_t peer_of(uint32_t key) noexcept { return static_cast<int32_t>(key >> 3) - 1; }
  static Category category_of(uint32_t key) noexcept { return static_cast<Category>(key & 7); }

 private:
  bool threaded_ = false;
  CounterTable counters_;
  Counters other_jobs_[kCategoryCount];
};

// Snapshot-consistent copy of one block (relaxed atomic loads: safe against concurrent
// recording).
Counters load_counters(const Counters& live) noexcept;

}  // namespace mpimon
