// Reading the job file's per-communicator and per-window lines the tools show: `collectives`
// (analyses/communicator_classes.h writes them) and `window_sync` (analyses/window_sync.h),
// one annotation at a time. Pure C++, in the readers library.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "readers/job_reader.h"  // JobAnnotation

namespace mpimon {

// "collectives <rank> <communicator> <calls> <bytes> x 3": one rank's collective classes
// (one-to-all, all-to-one, all-to-all) on one communicator.
struct CollectivesLine {
  int32_t rank = 0;
  std::string communicator;  // unescaped: a name, or (version 2) the identity its `communicator` line names
  std::array<uint64_t, 3> calls{};
  std::array<uint64_t, 3> bytes{};
};

// "window_sync <rank> <window> <kind> <calls> <seconds>": one rank's synchronisation calls
// of one kind on one window.
struct WindowSyncLine {
  int32_t rank = 0;
  std::string window;  // unescaped
  std::string kind;    // a sync_kind_name (analyses/window_sync.h)
  uint64_t calls = 0;
  double seconds = 0;  // finite, >= 0
};

// `a` read as its keyword says. Throws FormatError "<file>:<line>: expected ..." for a wrong
// field count, a rank that is not a number >= 0 (the caller checks it against the world
// size once the header is known), counts from 2^60 on, an unknown kind, seconds that are
// negative or not finite.
CollectivesLine read_collectives_line(const JobAnnotation& a, std::string_view file);
WindowSyncLine read_window_sync_line(const JobAnnotation& a, std::string_view file);

// Whether `kind` is one of analyses/window_sync.h's synchronisation kinds (.prof "# SYNC"
// lines name them too).
bool is_sync_kind(std::string_view kind);

}  // namespace mpimon
