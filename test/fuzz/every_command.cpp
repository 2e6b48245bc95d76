#include "every_command.h"

#include <stdexcept>
#include <string>

#include "dumps.h"
#include "heatmap.h"
#include "matrix_formats.h"
#include "readers/series_reader.h"
#include "report/report.h"
#include "size_histograms.h"
#include "timeline.h"

namespace mpimon::tools {

namespace {

// Dense formats are refused beyond their size (checked by unit tests); the fuzzer only
// prints them for small jobs, to keep each run fast.
constexpr int32_t kDenseInFuzzing = 64;

void every_matrix(const TrafficMatrix& matrix, const Selection& selection) {
  for (Metric metric : {Metric::messages, Metric::bytes, Metric::average}) {
    for (bool symmetric : {false, true}) {
      format_matrix(matrix, selection, metric, FileFormat::sparse_csv, symmetric);
      format_matrix(matrix, selection, metric, FileFormat::matrix_market, symmetric);
      if (matrix.ranks() <= kDenseInFuzzing) {
        format_matrix(matrix, selection, metric, FileFormat::csv, symmetric);
        format_matrix(matrix, selection, metric, FileFormat::mat, symmetric);
        format_text_matrix(matrix, selection, metric, symmetric);
      } else if (matrix.ranks() > kDenseFileRanks) {
        try {
          format_matrix(matrix, selection, metric, FileFormat::mat, symmetric);
          throw std::logic_error("a dense format beyond its size was not refused");
        } catch (const std::invalid_argument&) {
        }
      }
    }
    const Grid grid = bin_matrix(matrix, selection, metric);
    format_terminal_heatmap(grid, selection.title());
    format_svg_heatmap(grid, selection.title());
  }
}

}  // namespace

bool run_every_command(std::string_view text) {
  const std::string name = "fuzz.3.prof";  // a rank in the name, as per-rank dumps have
  const DumpLoader load = [&](const std::string&) { return std::string(text); };
  try {
    Dumps dumps = read_dumps({name}, Annotations::read, load);
    for (const std::string& selection : Selection::names()) every_matrix(dumps.matrix, Selection::of(selection));
    const int32_t last = dumps.matrix.ranks() > 0 ? dumps.matrix.ranks() - 1 : 0;
    for (int32_t sender : {0, 3, last})
      for (const char* selection : {"all", "internal", "osc"})
        format_size_histograms(size_histograms({name}, sender, Selection::of(selection), load));
    format_html_report(std::move(dumps), load);
  } catch (const FormatError&) {
    return false;
  }
  return true;
}

bool run_every_series_command(std::string_view bytes) {
  const std::string name = "fuzz.series/host";
  const series::SeriesReading read = [&](const std::function<void(const series::SeriesFrame&)>& on_frame) {
    return series::read_series_text(name, bytes, on_frame);
  };
  try {
    series::SeriesTotals totals;
    const series::SeriesInfo info = read([&](const series::SeriesFrame& f) { totals.add(f); });
    info.describe_end();
    // What the series sums to is a job file the readers accept.
    if (!run_every_command(totals.job_file_text(info)))
      throw std::logic_error("a series' sums were written as a job file the readers refuse");
    for (const series::TimeRange& range : {series::TimeRange{}, series::TimeRange{1, 3}}) {
      const Timeline timeline = build_timeline(read, range);
      for (TimelineMetric metric : {TimelineMetric::bytes, TimelineMetric::messages}) {
        format_terminal_timeline(timeline, metric);
        format_terminal_timeline(timeline, metric, 7);
        format_svg_timeline(timeline, metric, name);
      }
    }
  } catch (const FormatError&) {
    return false;
  }
  return true;
}

}  // namespace mpimon::tools
