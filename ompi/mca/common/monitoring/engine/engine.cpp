#include "engine/engine.h"

#include <algorithm>

namespace mpimon {

const char* category_name(Category category) noexcept {
  switch (category) {
    case Category::external:
      return "external";
    case Category::internal:
      return "internal";
    case Category::coll:
      return "coll";
    case Category::osc_sent:
      return "osc_sent";
    case Category::osc_recv:
      return "osc_recv";
    case Category::io_shuffle:
      return "io_shuffle";
  }
  return "unknown";
}

bool parse_category(std::string_view name, Category& category) noexcept {
  for (int c = 0; c < kCategoryCount; ++c) {
    if (name == category_name(static_cast<Category>(c))) {
      category = static_cast<Category>(c);
      return true;
    }
  }
  return false;
}

Counters load_counters(const Counters& live) noexcept {
  Counters copy;
  auto load = [](const uint64_t& v) {
    return std::atomic_ref(const_cast<uint64_t&>(v)).load(std::memory_order_relaxed);
  };
  copy.messages = load(live.messages);
  copy.bytes = load(live.bytes);
  for (int b = 0; b < kHistogramBuckets; ++b) copy.histogram[b] = load(live.histogram[b]);
  return copy;
}

// ---------------------------------------------------------------------------------------
// CounterTable

namespace {
constexpr unsigned kInitialLog2Capacity = 5;  // 32 slots: a ring or a stencil fits
}

void CounterTable::TableDeleter::operator()(Table* table) const {
  const size_t capacity = size_t{table->mask} + 1;
  for (size_t i = 0; i < capacity; ++i) table->slots()[i].~Slot();
  table->~Table();
  ::operator delete(table);
}

CounterTable::TablePtr CounterTable::make_table(unsigned log2_capacity) {
  const size_t capacity = size_t{1} << log2_capacity;
  static_assert(sizeof(Table) % alignof(Slot) == 0, "slots follow the header aligned");
  void* memory = ::operator new(sizeof(Table) + capacity * sizeof(Slot));
  TablePtr table(new (memory) Table{static_cast<uint32_t>(capacity - 1), (capacity - 1) * sizeof(Slot)});
  for (size_t i = 0; i < capacity; ++i) new (&table->slots()[i]) Slot();
  return table;
}

CounterTable::CounterTable() {
  tables_.push_back(make_table(kInitialLog2Capacity));
  table_.store(tables_.back().get(), std::memory_order_release);
}

void CounterTable::publish(const Table* table) {
  for (std::atomic<TableHandle>* mirror : mirrors_) mirror->store(table, std::memory_order_release);
  table_.store(table, std::memory_order_release);
}

void CounterTable::mirror_into(std::atomic<TableHandle>* mirror) {
  std::lock_guard lock(insert_mutex_);
  mirrors_.push_back(mirror);
  mirror->store(table_.load(std::memory_order_relaxed), std::memory_order_release);
}

CounterTable::~CounterTable() = default;

const Counters* CounterTable::find(uint32_t key) const {
  const Table* table = table_.load(std::memory_order_acquire);
  for (uint32_t i = hash(key, table->mask);; i = (i + 1) & table->mask) {
    const uint32_t slot_key = table->slots()[i].key.load(std::memory_order_acquire);
    if (slot_key == key) return table->slots()[i].counters;
    if (slot_key == 0) return nullptr;
  }
}

Counters& CounterTable::find_or_insert_slow(uint32_t key) {
  if (const Counters* existing = find(key)) return *const_cast<Counters*>(existing);  // not in its home slot
  std::lock_guard lock(insert_mutex_);
  // Another thread may have inserted the key while we waited for the lock.
  if (const Counters* existing = find(key)) return *const_cast<Counters*>(existing);

  blocks_.emplace_back(key, std::make_unique<Counters>());
  Counters* counters = blocks_.back().second.get();

  // Keep the load factor at most 1/4 so that almost every key sits in its home slot (the
  // hot paths look there only); grow by publishing a new table. Readers still walking the
  // old one finish there safely (it is kept).
  Table* table = tables_.back().get();
  const size_t capacity = size_t{table->mask} + 1;
  if (blocks_.size() * 4 > capacity) {
    auto bigger = make_table(static_cast<unsigned>(std::countr_zero(capacity)) + 1);
    for (const auto& [k, block] : blocks_) {
      uint32_t i = hash(k, bigger->mask);
      while (bigger->slots()[i].key.load(std::memory_order_relaxed) != 0) i = (i + 1) & bigger->mask;
      bigger->slots()[i].counters = block.get();
      bigger->slots()[i].key.store(k, std::memory_order_relaxed);
    }
    tables_.push_back(std::move(bigger));
    publish(tables_.back().get());
    return *counters;
  }
  uint32_t i = hash(key, table->mask);
  while (table->slots()[i].key.load(std::memory_order_relaxed) != 0) i = (i + 1) & table->mask;
  table->slots()[i].counters = counters;
  table->slots()[i].key.store(key, std::memory_order_release);
  return *counters;
}

size_t CounterTable::size() const {
  std::lock_guard lock(insert_mutex_);
  return blocks_.size();
}

size_t CounterTable::memory_bytes() const {
  std::lock_guard lock(insert_mutex_);
  size_t total = sizeof(*this) + blocks_.capacity() * sizeof(blocks_[0]) + blocks_.size() * sizeof(Counters) +
                 tables_.capacity() * sizeof(tables_[0]);
  for (const auto& table : tables_) total += sizeof(Table) + (size_t{table->mask} + 1) * sizeof(Slot);
  return total;
}

// ---------------------------------------------------------------------------------------
// Engine

void Engine::record_other_job(Category category, uint64_t bytes) noexcept {
  Counters& c = other_jobs_[static_cast<int>(category)];
  const unsigned bucket = histogram_bucket(bytes);
  std::atomic_ref(c.messages).fetch_add(1, std::memory_order_relaxed);
  std::atomic_ref(c.bytes).fetch_add(bytes, std::memory_order_relaxed);
  std::atomic_ref(c.histogram[bucket]).fetch_add(1, std::memory_order_relaxed);
}

Counters Engine::other_job_totals(Category category) const {
  return load_counters(other_jobs_[static_cast<int>(category)]);
}

Counters Engine::read(int32_t peer, Category category) const {
  const Counters* c = counters_.find(key(peer, category));
  return c ? load_counters(*c) : Counters{};
}

uint64_t Engine::messages(int32_t peer, Category category) const {
  const Counters* c = counters_.find(key(peer, category));
  return c ? std::atomic_ref(const_cast<uint64_t&>(c->messages)).load(std::memory_order_relaxed) : 0;
}

uint64_t Engine::bytes(int32_t peer, Category category) const {
  const Counters* c = counters_.find(key(peer, category));
  return c ? std::atomic_ref(const_cast<uint64_t&>(c->bytes)).load(std::memory_order_relaxed) : 0;
}

Snapshot Engine::snapshot() const {
  Snapshot out;
  counters_.for_each([&](uint32_t k, const Counters& live) {
    Record r;
    r.peer = Engine::peer_of(k);
    r.category = Engine::category_of(k);
    r.counters = load_counters(live);
    if (r.counters.messages != 0) out.push_back(r);
  });
  std::sort(out.begin(), out.end(), [](const Record& a, const Record& b) {
    return a.peer != b.peer ? a.peer < b.peer : a.category < b.category;
  });
  return out;
}

Snapshot snapshot_difference(const Snapshot& now, const Snapshot& before) {
  Snapshot out;
  auto earlier = before.begin();
  auto less = [](const Record& a, const Record& b) {
    return a.peer != b.peer ? a.peer < b.peer : a.category < b.category;
  };
  for (const Record& r : now) {
    while (earlier != before.end() && less(*earlier, r)) ++earlier;
    Record d = r;
    if (earlier != before.end() && !less(r, *earlier)) {  // same (peer, category)
      d.counters.messages -= earlier->counters.messages;
      d.counters.bytes -= earlier->counters.bytes;
      for (int b = 0; b < kHistogramBuckets; ++b) d.counters.histogram[b] -= earlier->counters.histogram[b];
    }
    if (d.counters.messages != 0) out.push_back(d);
  }
  return out;
}

}  // namespace mpimon
