// How the one writer of a single-threaded process adds to a counter that other threads
// read with relaxed atomic loads (the time series' thread, performance variables).
//
// The plain add is one instruction on an aligned 8-byte word, which other cores always
// see whole, before or after the add: the hot paths keep it (no atomic operation, no
// extra instruction). ThreadSanitizer builds spell it as what it is, a relaxed load and
// a relaxed store by the only writer, so that TSan checks everything else around it.
#pragma once

#include <atomic>
#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#define MPIMON_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MPIMON_TSAN 1
#endif
#endif

namespace mpimon {

inline void single_writer_add(uint64_t& counter, uint64_t amount) noexcept {
#if defined(MPIMON_TSAN)
  std::atomic_ref(counter).store(std::atomic_ref(counter).load(std::memory_order_relaxed) + amount,
                                 std::memory_order_relaxed);
#else
  counter += amount;
#endif
}

}  // namespace mpimon
