// The OSC adapter's window table: each monitored window's state (the component's own
// functions, the peer caches of the hot path, the synchronisation times, the wait-state
// tracker), found by window through a lock-free table and a one-entry cache.
// Internal to osc_monitoring_module.cpp, the OSC adapter's one translation unit: the
// wrappers' hot paths inline across these headers (as Open MPI's osc/monitoring includes
// its templates into one file). Included nowhere else.
#pragma once

#include "osc_monitoring.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analyses/window_sync.h"
#include "engine/engine.h"
#include "wait_states/window_tracker.h"

namespace mpimon::osc {
namespace {

// The counters of the peers a window last sent to / received from, one entry per
// target rank modulo kPeerCacheSize (single-threaded processes only): counter blocks
// never move, so the hot path can increment them directly. Targets and counters are in
// separate arrays so that both are indexed by a scaled register (no multiplication).
inline constexpr int kPeerCacheSize = 8;
struct PeerCache {
  int32_t targets[kPeerCacheSize];  // rank in the window's group; -1: empty
  Counters* counters[kPeerCacheSize];
  void clear() {
    for (int i = 0; i < kPeerCacheSize; ++i) {
      targets[i] = -1;
      counters[i] = nullptr;
    }
  }
  // Empties the cache from any thread (op_listeners_changed): the counters stay, so that a hot
  // path that has just matched a target still reads valid counters.
  void forget_targets() {
    for (int32_t& target : targets) __atomic_store_n(&target, -1, __ATOMIC_RELAXED);
  }
};

// One monitored window. States are never freed: a freed window's state is recycled, so
// a pointer read from the cache or the table always points to a valid object (its `win`
// then no longer matches).
struct WindowState {
  std::atomic<const ompi_win_t*> win{nullptr};  // nullptr: not in use
  ompi_osc_base_module_t original{};            // the component's functions
  WindowSyncTimes sync;                         // registered in window_sync() while live
  uint64_t sync_start = 0;              // clock at the start of the current synchronisation call (single-threaded)
  PeerCache peers[2];                   // [0] osc_sent, [1] osc_recv
  const ompi_group_t* group = nullptr;  // the window's group (target ranks)
  bool world_order = false;             // group rank == world rank
  uint64_t sync_id = 0;
  int number = 0;  // n of the default name "window <n>"
  // The name the component gave the window when it created it (osc/rdma names its
  // windows "rdma window <communicator id>"): not the user's, so not shown.
  std::string component_name;
  // Wait states (osc_monitoring_wait_states 1); nullptr when off or not set up.
  std::unique_ptr<wait_states::WindowTracker> tracker;

  PeerCache& peer_cache(Category category) { return peers[category == Category::osc_recv]; }

  // `win` read as a plain pointer, which the compiler folds into the comparison of the
  // data wrappers' fast path (one instruction per operation). Single-threaded processes
  // only: there the thread that reads it is the only one that writes it.
  const ompi_win_t* win_single_threaded() const { return reinterpret_cast<const ompi_win_t* const&>(win); }
};
static_assert(sizeof(std::atomic<const ompi_win_t*>) == sizeof(const ompi_win_t*) &&
                  std::atomic<const ompi_win_t*>::is_always_lock_free,
              "win_single_threaded reads the atomic's value as a plain pointer");

// win -> state: open addressing, lock-free lookups. Inserts and removals take a mutex;
// a removed entry becomes a tombstone; a full table is replaced and the old one retired
// (never freed: a concurrent lookup may still read it).
class WindowTable {
 public:
  WindowTable() { table_.store(install(16), std::memory_order_release); }

  WindowState* find(const ompi_win_t* win) const {
    const Table* t = table_.load(std::memory_order_acquire);
    for (size_t i = hash(win, t->shift);; i = (i + 1) & t->mask) {
      WindowState* s = t->slots[i].load(std::memory_order_acquire);
      if (s == nullptr) return nullptr;
      if (s->win.load(std::memory_order_relaxed) == win) return s;
    }
  }

  // A recycled or new state, not yet visible.
  WindowState* acquire() {
    std::lock_guard lock(mutex_);
    if (!spare_.empty()) {
      WindowState* s = spare_.back();
      spare_.pop_back();
      return s;
    }
    states_.push_back(std::make_unique<WindowState>());
    return states_.back().get();
  }

  // Publishes `s` for `win` (all its other fields set).
  void insert(WindowState* s, const ompi_win_t* win) {
    std::lock_guard lock(mutex_);
    s->win.store(win, std::memory_order_release);
    Table* t = table_.load(std::memory_order_relaxed);
    if ((t->used + 1) * 2 > t->mask + 1) t = rebuild(live_ + 1);
    place(t, s);
    ++t->used;
    ++live_;
  }

  void remove(WindowState* s) {
    std::lock_guard lock(mutex_);
    Table* t = table_.load(std::memory_order_relaxed);
    const ompi_win_t* win = s->win.load(std::memory_order_relaxed);
    for (size_t i = hash(win, t->shift);; i = (i + 1) & t->mask) {
      WindowState* slot = t->slots[i].load(std::memory_order_relaxed);
      if (slot == nullptr) break;
      if (slot == s) {
        t->slots[i].store(&tombstone_, std::memory_order_release);
        break;
      }
    }
    s->win.store(nullptr, std::memory_order_release);
    --live_;
    spare_.push_back(s);
  }

  template <typename Visit>
  void for_each_live(Visit&& visit) {
    std::lock_guard lock(mutex_);
    for (const auto& s : states_) {
      const ompi_win_t* win = s->win.load(std::memory_order_acquire);
      if (win != nullptr) visit(*s, win);
    }
  }

 private:
  struct Table {
    size_t mask = 0;
    unsigned shift = 0;  // 64 - log2(capacity)
    size_t used = 0;     // live entries and tombstones
    std::unique_ptr<std::atomic<WindowState*>[]> slots;
  };
  static size_t hash(const ompi_win_t* win, unsigned shift) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(win) * 0x9E3779B97F4A7C15ull) >> shift);
  }
  static void place(Table* t, WindowState* s) {
    for (size_t i = hash(s->win.load(std::memory_order_relaxed), t->shift);; i = (i + 1) & t->mask) {
      WindowState* slot = t->slots[i].load(std::memory_order_relaxed);
      if (slot == nullptr) {
        t->slots[i].store(s, std::memory_order_release);
        return;
      }
    }
  }
  Table* install(size_t capacity) {
    auto t = std::make_unique<Table>();
    t->mask = capacity - 1;
    t->shift = 64 - static_cast<unsigned>(std::bit_width(capacity) - 1);
    t->slots = std::make_unique<std::atomic<WindowState*>[]>(capacity);
    for (size_t i = 0; i < capacity; ++i) t->slots[i].store(nullptr, std::memory_order_relaxed);
    Table* raw = t.get();
    tables_.push_back(std::move(t));
    return raw;
  }
  // A table for `live` entries at load factor <= 1/4, holding every live state.
  Table* rebuild(size_t live) {
    size_t capacity = 16;
    while (capacity < live * 4) capacity *= 2;
    Table* t = install(capacity);
    for (const auto& s : states_) {
      if (s->win.load(std::memory_order_relaxed) == nullptr) continue;
      place(t, s.get());
      ++t->used;
    }
    table_.store(t, std::memory_order_release);
    return t;
  }

  mutable std::mutex mutex_;
  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // the current one last; older ones retired
  std::vector<std::unique_ptr<WindowState>> states_;
  std::vector<WindowState*> spare_;
  size_t live_ = 0;
  WindowState tombstone_;  // win == nullptr: never matches, probing goes on
};

// Everything the hot path reads, in one object.
struct Hot {
  std::atomic<WindowState*> last{nullptr};  // the state found last (a one-entry cache)
  Engine* engine = nullptr;
  LocalJob job;
};
Hot hot;
WindowState no_window;  // the cache's initial value: matches no window
WindowTable* windows = nullptr;

// The state of `win`, through the table; caches it. nullptr only if our wrappers are
// called for a window we never wrapped (cannot happen: only wrapped modules point to
// them).
[[gnu::noinline]] WindowState* find_state(const ompi_win_t* win) {
  WindowState* s = hot.last.load(std::memory_order_relaxed);
  if (s->win.load(std::memory_order_relaxed) == win) return s;
  s = windows->find(win);
  if (s != nullptr) hot.last.store(s, std::memory_order_relaxed);
  return s;
}

constexpr int kNoWindow = OMPI_ERR_NOT_FOUND;

using Module = ompi_osc_base_module_t;

std::string name_of(const ompi_win_t* win) {
  return std::string(win->w_name, strnlen(win->w_name, sizeof win->w_name));
}

// The window's name as dumps show it: the one given with MPI_Win_set_name, else
// "window <n>".
std::string display_name(const WindowState& s, const ompi_win_t* win) {
  std::string name = name_of(win);
  return name.empty() || name == s.component_name ? WindowSyncRegistry::default_name(s.number) : name;
}

}  // namespace
}  // namespace mpimon::osc
