// The test our adapters' hot paths make before anything event-related: is a listening
// flag (a byte, or several bytes read as one word) kept by the events library
// (mpimon_events_watch) nonzero? The flags live in each plugin's own hidden data, so the
// test is one compare with memory and one branch.
#pragma once

namespace mpimon {

template <typename Flag>
inline bool listening(const Flag& flag) {
#if defined(__x86_64__)
  // GCC loads into a register and tests otherwise: one instruction more on every call.
  // A relaxed read: the flag changes only when a tool subscribes or unsubscribes, and an
  // aligned read of up to 8 bytes is atomic on x86-64.
  bool set;
  asm("cmp%z1 $0, %1" : "=@ccne"(set) : "m"(flag));
  return set;
#else
  return __atomic_load_n(&flag, __ATOMIC_RELAXED) != 0;
#endif
}

}  // namespace mpimon
