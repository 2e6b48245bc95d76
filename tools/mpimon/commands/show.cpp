// `mpimon show <dumps...>`: heatmaps in the terminal and as SVG, or a sender's histograms.
#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands/options.h"
#include "commands/subcommand.h"
#include "files/atomic_file.h"
#include "heatmap.h"
#include "io_summary.h"
#include "nbc_summary.h"
#include "readers/format_error.h"
#include "size_histograms.h"
#include "timeline.h"

namespace mpimon::tools {

namespace {

struct ShowOptions {
  std::vector<std::string> inputs;
  std::string category = "all";
  std::string metric = "bytes";
  std::string svg;
  int histograms_of = -1;
  bool timeline = false;
  TimeOptions time;
};

// Bytes (or messages) per interval per category, from the job's time series.
int show_timeline(const ShowOptions& o) {
  if (o.metric == "average") throw std::invalid_argument("--timeline shows bytes or messages, not averages");
  const TimelineMetric metric = o.metric == "messages" ? TimelineMetric::messages : TimelineMetric::bytes;
  for (const std::string& input : o.inputs) {
    const std::string folder = series_folder_of(input);
    if (folder.empty())
      throw FormatError(input +
                        ": no time series (a job run with pml_monitoring_snapshot_interval above 0 has "
                        "one, <job file>.series)");
    const Timeline timeline = build_timeline(folder, o.time.range());
    for (const std::string& note : timeline.info.notes) std::cerr << "mpimon: " << note << '\n';
    std::cout << input << ": " << format_terminal_timeline(timeline, metric);
    if (!o.svg.empty()) {
      if (FileError error; !write_file_atomically(o.svg, format_svg_timeline(timeline, metric, input), error)) {
        std::cerr << "mpimon show: " << error.message << '\n';
        return 1;
      }
      std::cout << "image: " << o.svg << '\n';
    }
  }
  return 0;
}

int run_show(const ShowOptions& o) {
  if (o.timeline) return show_timeline(o);
  DumpLoader load;
  const Dumps dumps = read_inputs(o.inputs, Annotations::skip, o.time, &load);
  const Selection selection = Selection::of(o.category);
  if (o.histograms_of >= 0) {
    std::cout << format_size_histograms(size_histograms(dumps.files, o.histograms_of, selection, load));
    return 0;
  }
  const Grid grid = bin_matrix(dumps.matrix, selection, metric_of(o.metric));
  const std::string title =
      selection.title() + ", " + o.metric + " (" + std::to_string(dumps.matrix.ranks()) + " ranks)";
  std::cout << format_terminal_heatmap(grid, title);
  if (!o.svg.empty()) {
    if (FileError error; !write_file_atomically(o.svg, format_svg_heatmap(grid, title), error)) {
      std::cerr << "mpimon show: " << error.message << '\n';
      return 1;
    }
    std::cout << "image: " << o.svg << '\n';
  }
  if (!dumps.io.empty()) std::cout << '\n' << format_io_summary_text(summarize_files(dumps.io));
  if (!dumps.nbc.empty()) std::cout << '\n' << format_nbc_summary_text(summarize_nbc(dumps.nbc));
  return 0;
}

}  // namespace

Subcommand add_show_command(CLI::App& mpimon) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* show = mpimon.add_subcommand(
      "show",
      "heatmap of a job's traffic in the terminal (binned beyond 64 ranks), and as an SVG image; then, for a job "
      "that used MPI-IO, per file: bytes asked, reached the file system, failed there");
  show->add_option("dumps", o->inputs,
                   "a job file, .prof files or captured output, a folder, or a dump prefix (as for matrix)")
      ->required();
  show->add_option("--category", o->category,
                   "external, internal, coll, osc_sent, osc_recv, io_shuffle (the MPI-IO collective-buffering "
                   "shuffle), osc (S + R), communication (E + I + S + R) or all (E + I + S + R + F, the default)")
      ->check(CLI::IsMember(Selection::names()));
  show->add_option("--metric", o->metric, "messages, bytes or average")
      ->check(CLI::IsMember({"messages", "bytes", "average"}));
  show->add_option("--svg", o->svg, "also write the heatmap as an SVG image (axis labels, colour scale)");
  show->add_option("--histograms", o->histograms_of,
                   "instead: the message-size histograms of this sender rank, per peer")
      ->check(CLI::Range(0, kMaxRank));
  show->add_flag("--timeline", o->timeline,
                 "instead: bytes (or --metric messages) per snapshot interval per category, the busiest pairs over "
                 "time and the moment the pattern changes, from the job's time series (--svg: as an image)");
  add_time_options(*show, o->time);
  return {show, [o] { return run_show(*o); }};
}

}  // namespace mpimon::tools
