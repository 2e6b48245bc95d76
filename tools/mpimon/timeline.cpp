#include "timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "heatmap.h"  // short_number, escape_markup
#include "readers/format_error.h"
#include "readers/series_payload_reader.h"
#include "readers/text_fields.h"

namespace mpimon::tools {

namespace {

constexpr uint64_t kMaxIntervals = 1000000;  // dense per-interval rows beyond that: ask for a range

struct IntervalSums {
  std::array<Traffic, kCategoryCount> traffic{};
  double sync_seconds = 0;
  double weighted_change = 0, change_weight = 0;
};

using PairKey = std::tuple<int32_t, int32_t, Category>;  // source, destination, category

// A sender's bytes per (receiver, category) in one interval, sorted.
using Mix = std::vector<std::pair<std::pair<int32_t, Category>, uint64_t>>;

Mix mix_of(const series::SnapshotDelta& delta) {
  Mix mix;
  for (const Record& r : delta.records)
    if (r.counters.bytes > 0) mix.push_back({{r.peer, r.category}, r.counters.bytes});
  return mix;
}

uint64_t total_of(const Mix& mix) {
  uint64_t total = 0;
  for (const auto& [key, bytes] : mix) total += bytes;
  return total;
}

// Total variation distance between the two splits (shares of each one's total).
double distance(const Mix& a, const Mix& b) {
  const double ta = static_cast<double>(total_of(a)), tb = static_cast<double>(total_of(b));
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      sum += static_cast<double>(a[i++].second) / ta;
    } else if (i == a.size() || b[j].first < a[i].first) {
      sum += static_cast<double>(b[j++].second) / tb;
    } else {
      sum += std::fabs(static_cast<double>(a[i++].second) / ta - static_cast<double>(b[j++].second) / tb);
    }
  }
  return sum / 2 < 1e-9 ? 0 : sum / 2;  // rounding noise of equal splits is no change
}

// "window_sync <rank> <window> <kind> <calls> <seconds>": (window, kind) and seconds. The
// block was checked when the series was read; a line of another kind is not ours (false).
bool sync_line(std::string_view line, std::string& key, double& seconds) {
  if (line.rfind("window_sync ", 0) != 0) return false;
  std::vector<std::string_view> fields;
  while (true) {
    const size_t space = line.find(' ');
    fields.push_back(line.substr(0, space));
    if (space == std::string_view::npos) break;
    line.remove_prefix(space + 1);
  }
  if (fields.size() != 6) return false;
  const std::optional<double> value = parse_number<double>(fields[5]);
  if (!value || !std::isfinite(*value) || *value < 0) return false;
  seconds = *value;
  key = std::string(fields[2]) + ' ' + std::string(fields[3]);
  return true;
}

}  // namespace

std::optional<uint64_t> Timeline::change_moment() const {
  std::optional<uint64_t> best;
  double best_change = -1;
  for (size_t i = 0; i < change.size(); ++i) {
    if (change[i] > best_change) {
      best_change = change[i];
      best = first + i;
    }
  }
  if (!best || best_change < kChangeThreshold) return std::nullopt;
  return best;
}

Timeline build_timeline(const std::string& folder, const series::TimeRange& range, size_t top_pairs) {
  return build_timeline(
      [&folder](const std::function<void(const series::SeriesFrame&)>& on_frame) {
        return series::read_series(folder, on_frame);
      },
      range, top_pairs);
}

namespace {

// What one reading of the series gathers, interval by interval.
struct SeriesTotals {
  std::map<uint64_t, IntervalSums> sums;
  std::map<PairKey, uint64_t> pair_bytes;              // O(non-zeros)
  std::map<int32_t, Mix> previous_mix;                 // per sender: its last interval with traffic
  std::map<int32_t, std::vector<std::string>> blocks;  // per rank: its annotation lines
  bool has_sync = false;

  void add_traffic(const series::SeriesFrame& f) {
    IntervalSums& s = sums[f.interval];
    for (const Record& r : f.delta->records) {
      Traffic& c = s.traffic[static_cast<int>(r.category)];
      c.messages += r.counters.messages;
      c.bytes += r.counters.bytes;
      if (r.counters.bytes > 0) pair_bytes[{f.rank, r.peer, r.category}] += r.counters.bytes;
    }
  }

  // The rank's annotation block brought up to date; in range, the growth of its
  // synchronisation seconds added to the interval.
  void add_sync(const series::SeriesFrame& f, bool in_range) {
    std::vector<std::string>& block = blocks[f.rank];
    std::map<std::string, double> before;
    std::string key;
    double seconds = 0;
    for (const std::string& line : block)
      if (sync_line(line, key, seconds)) before[key] = seconds;
    series::apply_annotation_changes(*f.delta, block);
    if (!in_range) return;
    for (const std::string& line : block) {
      if (!sync_line(line, key, seconds)) continue;
      const double earlier = before.count(key) ? before[key] : 0;
      if (seconds > earlier) sums[f.interval].sync_seconds += seconds - earlier;
      has_sync = true;
    }
  }

  void add_mix_change(const series::SeriesFrame& f, bool in_range) {
    Mix mix = mix_of(*f.delta);
    if (mix.empty()) return;
    auto previous = previous_mix.find(f.rank);
    if (in_range && previous != previous_mix.end()) {
      IntervalSums& s = sums[f.interval];
      const double weight = static_cast<double>(total_of(mix));
      s.weighted_change += weight * distance(previous->second, mix);
      s.change_weight += weight;
    }
    previous_mix[f.rank] = std::move(mix);
  }
};

// The per-interval columns of `t` from the sums; refuses a span too long to draw.
void fill_intervals(Timeline& t, const std::map<uint64_t, IntervalSums>& sums) {
  t.first = sums.begin()->first;
  t.last = sums.rbegin()->first;
  if (t.last - t.first >= kMaxIntervals)
    throw FormatError(t.info.folder + ": the series spans " + std::to_string(t.last - t.first + 1) +
                      " intervals; choose a shorter range with --from/--to");
  const size_t n = t.intervals();
  t.traffic.assign(n, {});
  t.sync_seconds.assign(n, 0);
  t.change.assign(n, -1);
  for (const auto& [k, s] : sums) {
    t.traffic[k - t.first] = s.traffic;
    t.sync_seconds[k - t.first] = s.sync_seconds;
    if (s.change_weight > 0) t.change[k - t.first] = s.weighted_change / s.change_weight;
  }
}

// The busiest pairs, then their bytes per interval (a second reading).
void add_top_pairs(Timeline& t, const series::SeriesReading& read, const series::TimeRange& range,
                   const std::map<PairKey, uint64_t>& pair_bytes, size_t top_pairs) {
  std::vector<std::pair<uint64_t, PairKey>> ranked;
  for (const auto& [key, bytes] : pair_bytes) ranked.push_back({bytes, key});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  ranked.resize(std::min(ranked.size(), top_pairs));
  std::map<PairKey, size_t> wanted;
  for (const auto& [bytes, key] : ranked) {
    Timeline::Pair p;
    std::tie(p.source, p.destination, p.category) = key;
    p.bytes = bytes;
    p.per_interval.assign(t.intervals(), 0);
    wanted[key] = t.top_pairs.size();
    t.top_pairs.push_back(std::move(p));
  }
  if (wanted.empty()) return;
  read([&](const series::SeriesFrame& f) {
    if (!range.contains_interval(f.interval, t.interval_seconds) || f.interval < t.first || f.interval > t.last) return;
    for (const Record& r : f.delta->records) {
      auto it = wanted.find({f.rank, r.peer, r.category});
      if (it != wanted.end()) t.top_pairs[it->second].per_interval[f.interval - t.first] += r.counters.bytes;
    }
  });
}

}  // namespace

Timeline build_timeline(const series::SeriesReading& read, const series::TimeRange& range, size_t top_pairs) {
  Timeline t;
  SeriesTotals totals;
  t.info = read([&](const series::SeriesFrame& f) {
    const bool in_range = range.contains_interval(f.interval, f.interval_seconds);
    if (in_range && f.interval > 0) totals.add_traffic(f);
    if (f.delta->annotations_changed && static_cast<double>(f.interval) * f.interval_seconds <= range.to + 1e-9)
      totals.add_sync(f, in_range);
    totals.add_mix_change(f, in_range);
  });
  t.has_sync = totals.has_sync;
  t.interval_seconds = t.info.interval_seconds();
  if (totals.sums.empty()) return t;
  fill_intervals(t, totals.sums);
  add_top_pairs(t, read, range, totals.pair_bytes, top_pairs);
  return t;
}

// ---------------------------------------------------------------------------------------
// Terminal

namespace {

const char* const kBars[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

std::string bar_row(const std::vector<double>& values, double max) {
  std::string out;
  for (double v : values) {
    if (v <= 0 || max <= 0) {
      out += v < 0 ? "·" : " ";
      continue;
    }
    out += kBars[1 + static_cast<int>(std::min(7.0, std::floor(v / max * 7.999)))];
  }
  return out;
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

// Intervals summed (or, for `take_max`, maximised) into at most `columns` columns.
std::vector<double> into_columns(const std::vector<double>& values, size_t per_column, bool take_max) {
  std::vector<double> out;
  for (size_t i = 0; i < values.size(); i += per_column) {
    double v = take_max ? -1 : 0;
    for (size_t j = i; j < std::min(values.size(), i + per_column); ++j)
      v = take_max ? std::max(v, values[j]) : v + values[j];
    out.push_back(v);
  }
  return out;
}

std::string label(const std::string& name) { return name + std::string(name.size() < 11 ? 11 - name.size() : 1, ' '); }

std::string pair_name(const Timeline::Pair& p) {
  return std::to_string(p.source) + " -> " + std::to_string(p.destination) + " " + category_name(p.category);
}

}  // namespace

std::string format_terminal_timeline(const Timeline& t, TimelineMetric metric, int columns) {
  const bool bytes = metric == TimelineMetric::bytes;
  const size_t n = t.intervals();
  std::string out = "traffic per interval of " + seconds_text(t.interval_seconds) + ", " +
                    (bytes ? "bytes" : "messages") + "; the job " + t.info.describe_end() + "\n";
  if (n == 0) return out + "no snapshot in the selected time range\n";
  const size_t per_column = (n + static_cast<size_t>(columns) - 1) / static_cast<size_t>(columns);
  if (per_column > 1) out += "(" + std::to_string(per_column) + " intervals per column)\n";
  const std::string from = seconds_text(t.start_of(t.first)),
                    to = seconds_text(static_cast<double>(t.last) * t.interval_seconds);
  const size_t width = (n + per_column - 1) / per_column;
  out += label("") + from + std::string(width > from.size() + to.size() ? width - from.size() - to.size() : 1, ' ') +
         to + "\n";
  for (int c = 0; c < kCategoryCount; ++c) {
    std::vector<double> values(n);
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      const Traffic& x = t.traffic[i][c];
      values[i] = static_cast<double>(bytes ? x.bytes : x.messages);
      total += values[i];
    }
    if (total == 0) continue;
    const std::vector<double> shown = into_columns(values, per_column, false);
    const double max = *std::max_element(shown.begin(), shown.end());
    out += label(category_name(static_cast<Category>(c))) + bar_row(shown, max) + "  total " + short_number(total) +
           ", at most " + short_number(max) + " per column\n";
  }
  if (t.has_sync) {
    const std::vector<double> shown = into_columns(t.sync_seconds, per_column, false);
    const double max = *std::max_element(shown.begin(), shown.end());
    char text[96];
    std::snprintf(text, sizeof text, "  one-sided synchronisation, at most %.6f s per column\n", max);
    out += label("sync time") + bar_row(shown, max) + text;
  }
  const std::vector<double> change = into_columns(t.change, per_column, true);
  out += label("change") + bar_row(change, 1.0) + "  pattern change, 0 to 1 (·: nobody had sent before)\n";
  if (const auto moment = t.change_moment()) {
    char text[160];
    std::snprintf(text, sizeof text, "the pattern changes most at %.1f s (interval %llu, change %.2f)\n",
                  t.start_of(*moment), static_cast<unsigned long long>(*moment), t.change[*moment - t.first]);
    out += text;
  } else {
    double largest = 0;
    for (double c : t.change) largest = std::max(largest, c);
    char text[160];
    std::snprintf(text, sizeof text, "the pattern is steady (largest change %.2f, below %.1f)\n", largest,
                  Timeline::kChangeThreshold);
    out += text;
  }
  if (!t.top_pairs.empty()) {
    out += "busiest pairs (bytes per column):\n";
    for (const Timeline::Pair& p : t.top_pairs) {
      std::vector<double> values(p.per_interval.begin(), p.per_interval.end());
      const std::vector<double> shown = into_columns(values, per_column, false);
      const double max = *std::max_element(shown.begin(), shown.end());
      std::string name = pair_name(p);
      name.resize(std::max<size_t>(name.size(), 24), ' ');
      out += "  " + name + " " + bar_row(shown, max) + "  " + short_number(static_cast<double>(p.bytes)) + " bytes\n";
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// SVG

std::string format_svg_timeline(const Timeline& t, TimelineMetric metric, const std::string& title) {
  static const char* const colours[kCategoryCount] = {"#3b528b", "#21918c", "#5ec962", "#fde725", "#440154", "#b5de2b"};
  const bool bytes = metric == TimelineMetric::bytes;
  const int width = 760, height = 300, left = 70, right = 150, top = 30, bottom = 40;
  const int plot_w = width - left - right, plot_h = height - top - bottom;
  const size_t n = t.intervals();
  double max = 0;
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < kCategoryCount; ++c)
      max = std::max(max, static_cast<double>(bytes ? t.traffic[i][c].bytes : t.traffic[i][c].messages));
  const double t0 = n ? t.start_of(t.first) : 0, t1 = n ? static_cast<double>(t.last) * t.interval_seconds : 1;
  auto x_of = [&](double seconds) { return left + (t1 > t0 ? (seconds - t0) / (t1 - t0) : 0.5) * plot_w; };
  auto y_of = [&](double v) { return top + plot_h - (max > 0 ? v / max : 0) * plot_h; };
  char text[256];
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                  std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<text x=\"" + std::to_string(left) + "\" y=\"18\" font-size=\"13\">" + escape_markup(title) + "</text>\n";
  std::snprintf(text, sizeof text,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n", left, top,
                plot_w, plot_h);
  s += text;
  std::snprintf(text, sizeof text, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 4, top + 10,
                short_number(max).c_str());
  s += text;
  std::snprintf(text, sizeof text, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", left - 4, top + plot_h);
  s += text;
  std::snprintf(text, sizeof text,
                "<text x=\"%d\" y=\"%d\">%.1f s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f s</text>\n",
                left, height - bottom + 16, t0, left + plot_w, height - bottom + 16, t1);
  s += text;
  std::snprintf(
      text, sizeof text,
      "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds since the start; %s per interval of %.3g s</text>\n",
      left + plot_w / 2, height - 8, bytes ? "bytes" : "messages", t.interval_seconds);
  s += text;
  int legend_y = top + 10;
  for (int c = 0; c < kCategoryCount; ++c) {
    std::string points;
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(bytes ? t.traffic[i][c].bytes : t.traffic[i][c].messages);
      total += v;
      const double mid = t.start_of(t.first + i) + t.interval_seconds / 2;
      std::snprintf(text, sizeof text, "%.1f,%.1f ", x_of(std::clamp(mid, t0, t1)), y_of(v));
      points += text;
    }
    if (total == 0) continue;
    s += std::string("<polyline fill=\"none\" stroke=\"") + colours[c] + "\" stroke-width=\"2\" points=\"" + points +
         "\"><title>" + category_name(static_cast<Category>(c)) + ": " + short_number(total) + "</title></polyline>\n";
    std::snprintf(text, sizeof text,
                  "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                  left + plot_w + 10, legend_y - 4, colours[c], left + plot_w + 26, legend_y,
                  category_name(static_cast<Category>(c)));
    s += text;
    legend_y += 16;
  }
  if (const auto moment = t.change_moment()) {
    const double x = x_of(t.start_of(*moment));
    std::snprintf(text, sizeof text,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" stroke-dasharray=\"4,3\"/>"
                  "<text x=\"%.1f\" y=\"%d\" fill=\"#c00\">pattern change, %.1f s</text>\n",
                  x, top, x, top + plot_h, x + 3, top + 12, t.start_of(*moment));
    s += text;
  }
  return s + "</svg>\n";
}

}  // namespace mpimon::tools
