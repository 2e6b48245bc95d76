// Snapshots: the immutable view of a type's registrations that deliveries read, and
// their safe reclamation.
//
// Control operations build a new snapshot (copy-on-write, with control held), then
// publish it with the source lock held. A delivery reads the snapshot only while it holds
// its source's delivery token (Source::state & kDelivering), and loads it after taking
// the token. So a replaced snapshot — and a freed registration, which old snapshots may
// still name — can be disposed of at once if the token is free when checked after the
// publication (a later holder sees the new snapshot: the publication, the check and the
// token's CAS are sequentially consistent), and otherwise by the holder, after its
// delivery, before it gives the token back (defer_to_token_holder).
#include <new>

#include "events_internal.h"

namespace mpimon::events {

const Delivery no_single{&no_single, nullptr, nullptr, nullptr};

Snapshot* build_snapshot(EventType& type, const std::function<bool(const Registration&)>& left_out) {
  std::vector<const Registration*> regs;  // in id order
  for (const auto& [id, reg] : type.registrations)
    if (reg->has_callback() && !(left_out && left_out(*reg))) regs.push_back(reg);
  const std::size_t n = regs.size();
  // One allocation: the header, then the kLevels lists of n entries and an end marker.
  static_assert(sizeof(Snapshot) % alignof(Delivery) == 0);
  void* memory = ::operator new(sizeof(Snapshot) + kLevels * (n + 1) * sizeof(Delivery));
  auto* s = new (memory) Snapshot;
  auto* entries = reinterpret_cast<Delivery*>(s + 1);
  s->type = &type;
  s->count = n;
  const bool stamp_inline = type.source->ordered && clock_is_tsc();
  for (int context = 0; context < kLevels; ++context) {
    Delivery* list = entries + context * (n + 1);
    Delivery* out = list;
    bool direct = true;
    for (const Registration* reg : regs) {
      // The lowest level at or above the context's requirement that has a callback.
      Callback use;
      for (int level = context; level < kLevels && use.function == nullptr; ++level) use = reg->callbacks[level];
      *out++ = {reg->object, const_cast<Registration*>(reg), use.function, use.user_data};
      direct = direct && use.function != nullptr;
    }
    *out = {nullptr, nullptr, nullptr, nullptr};
    s->list[context] = list;
    s->direct[context] = direct && n > 0 ? list : nullptr;
    s->single[context] = direct && n == 1 && stamp_inline ? list : &no_single;
  }
  return s;
}

void destroy_snapshot(const Snapshot* snapshot) {
  // Header and entries are trivially destructible.
  ::operator delete(const_cast<Snapshot*>(snapshot));
}

bool defer_to_token_holder(Source& source) {
  uint32_t s = source.state.load();
  while ((s & kDelivering) != 0)
    if (source.state.compare_exchange_weak(s, s | kWork)) return true;
  return false;
}

void publish_snapshot(EventType& type, Snapshot* next) {
  Source& source = *type.source;
  // The mirror first: a delivery that took the token after the check below reads the new
  // entries (seq_cst), one that took it before keeps the old snapshot alive.
  for (int context = 0; context < kLevels; ++context) type.single[context].store(next->single[context]);
  const Snapshot* old = type.snapshot.exchange(next);  // seq_cst: see the header comment
  if (old == nullptr) return;
  if (defer_to_token_holder(source)) {
    Snapshot* retired = const_cast<Snapshot*>(old);
    retired->next_retired = source.retired_snapshots;
    source.retired_snapshots = retired;
  } else {
    destroy_snapshot(old);
  }
}

}  // namespace mpimon::events
