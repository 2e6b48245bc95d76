// A job's traffic over time, from its time series (readers/series_reader.h): bytes and
// messages per interval per category, the synchronisation time per interval, the busiest
// pairs over time, and the moment the communication pattern changes.
//
// The pattern change. A sender's pattern in an interval is how its bytes split over
// (receiver, category). Between an interval and the sender's previous interval with
// traffic, its change is the total variation distance of the two splits: half the sum of
// the absolute differences of the shares, 0 when it keeps the same split (whatever the
// volume), 1 when all its bytes go to new (receiver, category) pairs. The change of an
// interval is the mean of its senders' changes, weighted by their bytes in it (senders
// with no earlier traffic do not count, so starting up is not a change). The moment the
// pattern changes is the start of the interval with the largest change, if that change is
// at least 0.5; otherwise the pattern is steady.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "readers/series_reader.h"
#include "traffic_matrix.h"

namespace mpimon::tools {

struct Timeline {
  series::SeriesInfo info;
  double interval_seconds = 1;
  uint64_t first = 1, last = 0;  // the intervals shown (first..last), empty when last < first
  std::vector<std::array<Traffic, kCategoryCount>> traffic;  // [interval - first][category]
  std::vector<double> sync_seconds;                          // one-sided synchronisation time (window_sync), all ranks
  bool has_sync = false;
  std::vector<double> change;  // the pattern change per interval; < 0 where no sender had earlier traffic

  struct Pair {
    int32_t source = 0, destination = 0;
    Category category = Category::external;
    uint64_t bytes = 0;  // in the range
    std::vector<uint64_t> per_interval;
  };
  std::vector<Pair> top_pairs;  // the busiest pairs of the range, by bytes

  size_t intervals() const { return last >= first ? static_cast<size_t>(last - first + 1) : 0; }
  double start_of(uint64_t k) const { return static_cast<double>(k - 1) * interval_seconds; }  // seconds
  // The interval where the pattern changes most, if it changes (>= kChangeThreshold).
  std::optional<uint64_t> change_moment() const;
  static constexpr double kChangeThreshold = 0.5;
};

// Reads the series twice (sums, then the top pairs' intervals). Throws FormatError.
Timeline build_timeline(const series::SeriesReading& read, const series::TimeRange& range, size_t top_pairs = 5);
// The same for a series folder.
Timeline build_timeline(const std::string& series_folder, const series::TimeRange& range, size_t top_pairs = 5);

enum class TimelineMetric { bytes, messages };
// Terminal: one row of bars per category (and synchronisation time, and the pattern change),
// at most `columns` columns (intervals summed into columns beyond that).
std::string format_terminal_timeline(const Timeline& timeline, TimelineMetric metric, int columns = 60);
// SVG: one line per category over time; a dashed mark where the pattern changes.
std::string format_svg_timeline(const Timeline& timeline, TimelineMetric metric, const std::string& title);

}  // namespace mpimon::tools
