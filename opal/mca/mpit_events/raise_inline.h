// The raise's shortest path, inline: mpimon_events_raise is built from it, and the
// hottest producer site (the PML's MPI_Isend) uses it directly to save the call into the
// library (about 15 instructions per event). See delivery.cpp for the protocol.
//
// C++ only, and it reads the library's internal structures: a producer that includes it
// must come from the same build as the library. It checks so once, before it watches any
// event type: inline_layout() == kInlineLayout.
#pragma once

#include <algorithm>

#include "events_internal.h"

namespace mpimon::events {

// A signature of the structures the inline path reads; changes with their sizes (and
// with kInlineVersion, to be bumped when a change keeps the sizes).
inline constexpr uint32_t kInlineVersion = 3;  // 2: single never null (no_single); 3: EventType::single
inline constexpr uint32_t kInlineLayout = [] {
  uint32_t h = 2166136261u;  // FNV-1a over the version and the sizes
  for (std::size_t v : {std::size_t{kInlineVersion}, sizeof(EventType), sizeof(Source), sizeof(Snapshot),
                        sizeof(Delivery), sizeof(Frame), sizeof(InstanceView)})
    h = (h ^ static_cast<uint32_t>(v)) * 16777619u;
  return h;
}();

// ---- Exported by the library (delivery.cpp) ----
uint32_t inline_layout();                // the library's kInlineLayout
EventType* event_type(int event_index);  // a registered type (the index is not checked)
// Everything but the direct path; `holding`: the caller took the token already.
void raise_slow(EventType& type, const void* object, const void* payload, MPI_Count timestamp, MPI_T_cb_safety context,
                bool holding);
// The direct path but for its shortest case: token held, the type's snapshot loaded.
void raise_held(EventType& type, const Snapshot* snap, const void* object, const unsigned char* payload,
                MPI_Count timestamp, MPI_T_cb_safety context);
// The direct path's release failed: something was flagged for the holder. Token owned.
void release_slow(Source& source, MPI_T_cb_safety context);

// The direct path's two token transitions, 0 -> kDelivering and back: one
// compare-and-swap each (seq_cst: a locked cmpxchg is a full barrier). On x86-64 written
// out, so that the compiler materialises the two constants at each use instead of
// keeping them in callee-saved registers across the callback (saves a push/pop pair
// per constant); sanitizer builds keep std::atomic, which ThreadSanitizer understands.
template <uint32_t kFrom, uint32_t kTo>
inline bool token_cas(std::atomic<uint32_t>& state) {
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
  bool swapped;
  asm volatile("movl %[from], %%eax\n\tmovl %[to], %%edx\n\tlock cmpxchgl %%edx, %[state]"
               : [state] "+m"(state), "=@ccz"(swapped)
               : [from] "i"(kFrom), [to] "i"(kTo)
               : "rax", "rdx", "memory");
  return swapped;
#else
  uint32_t expected = kFrom;
  return state.compare_exchange_strong(expected, kTo);
#endif
}

// Gives the token back; through the lock if something was flagged for the holder.
// (`context` by reference: read only on that rare path, not before the CAS.)
inline void release(Source& source, const MPI_T_cb_safety& context) {
  if (__builtin_expect(!token_cas<kDelivering, 0>(source.state), 0)) release_slow(source, context);
}

// An ORDERED source's timestamp, token held: never below the last one delivered.
// On x86-64 the comparison and the conditional move read the last timestamp from memory
// (GCC loads it into a register first: one instruction more per event).
inline MPI_Count ordered_timestamp(Source& source, MPI_Count timestamp) {
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
  static_assert(sizeof(MPI_Count) == 8);
  asm("cmpq %[last], %[t]\n\tcmovlq %[last], %[t]" : [t] "+r"(timestamp) : [last] "m"(source.last_timestamp) : "cc");
#else
  timestamp = std::max(timestamp, source.last_timestamp);
#endif
  source.last_timestamp = timestamp;
  return timestamp;
}

// The direct path's delivery to the one registration `e`, token held: push the frame,
// call, pop, release. After the callback the frame's fields are re-read from `frame`
// (memory the callback may see through tls_frame); `source` is the one value kept across
// it (the PML's isend path has a callee-saved register free by then: two loads fewer
// than through frame.view.type).
inline void deliver_one(EventType* type, const Delivery* e, const unsigned char* payload, MPI_Count timestamp,
                        MPI_T_cb_safety context, Source& source) {
  Frame frame{{type, payload, timestamp}, tls_frame, context};
  tls_frame = &frame;
  e->function(reinterpret_cast<MPI_T_event_instance>(&frame), reinterpret_cast<MPI_T_event_registration>(e->reg),
              context, e->user_data);
  tls_frame = frame.outer;
  release(source, frame.context);
}

// mpimon_events_raise without the call. `object` is already masked with the type's
// object_mask (producers of bound types pass the handle value; unbound: nullptr).
// The shortest path: the token free, one registration, bound to this object, callable in
// this context, stamped now with the TSC (Snapshot::single); anything else goes out of line.
inline void raise_inline(EventType& type, const void* object, const void* payload, MPI_Count timestamp,
                         MPI_T_cb_safety context) {
  Source& source = *type.source;
  if (__builtin_expect(!token_cas<0, kDelivering>(source.state), 0))
    return raise_slow(type, object, payload, timestamp, context, false);
  // Loaded after taking the token (see snapshot.cpp).
  const Delivery* e = type.single[static_cast<unsigned>(context)].load();  // (unsigned: no sign extension)
#if defined(__x86_64__)
  // (e is never null: no_single, whose object no raise names, stands for "none")
  if (__builtin_expect(e->object == object && timestamp == MPIMON_EVENTS_NOW, 1)) {
    timestamp = ordered_timestamp(source, static_cast<MPI_Count>(__rdtsc()));  // single: ORDERED
    return deliver_one(&type, e, static_cast<const unsigned char*>(payload), timestamp, context, source);
  }
#endif
  raise_held(type, type.snapshot.load(), object, static_cast<const unsigned char*>(payload), timestamp, context);
}

}  // namespace mpimon::events
