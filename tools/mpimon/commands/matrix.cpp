// `mpimon matrix <dumps...>`: message matrices in the terminal or in files.
#include <iostream>
#include <memory>

#include "commands/options.h"
#include "commands/subcommand.h"
#include "files/atomic_file.h"
#include "wait_summary.h"

namespace mpimon::tools {

namespace {

struct MatrixOptions {
  std::vector<std::string> inputs;
  std::string category;  // "" = every category present (text) or all (other formats)
  std::string metric;    // "": messages (traffic), seconds (--pattern)
  std::string format = "text";
  std::string output;  // file prefix: every category and metric
  bool symmetric = false;
  std::string pattern;  // RMA wait states: who made whom wait ("" = traffic)
  TimeOptions time;
};

// --pattern: the who-makes-whom-wait matrix of the job files' wait states (rows: the
// waiting rank, columns: the rank it waited for), in seconds or, with --metric messages,
// occurrences.
int run_wait_matrix(const MatrixOptions& o) {
  if (o.format == "mat" || !o.output.empty() || o.symmetric || (o.metric != "seconds" && o.metric != "messages"))
    throw std::invalid_argument("--pattern takes --format text, csv, sparse or mtx and --metric seconds or messages");
  // Wait states are totals (annotation lines): a series keeps each rank's latest, not per interval.
  if (o.time.given()) throw std::invalid_argument("--pattern takes no --from/--to (wait states are whole-job totals)");
  const WaitMatrix m = read_wait_matrix(read_inputs(o.inputs, Annotations::read, o.time), o.pattern);
  const WaitMatrixFormat format = o.format == "csv"      ? WaitMatrixFormat::csv
                                  : o.format == "sparse" ? WaitMatrixFormat::sparse_csv
                                  : o.format == "mtx"    ? WaitMatrixFormat::matrix_market
                                                         : WaitMatrixFormat::text;
  std::string out = format_wait_matrix(m, format, o.metric == "messages");  // whole: a refusal prints nothing
  if (format == WaitMatrixFormat::text)
    out = "# RMA wait states, " + o.pattern + ", " + (o.metric == "messages" ? "occurrences" : "seconds") +
          " (row: waiting rank, column: the rank it waited for)\n" + out;
  std::cout << out;
  return 0;
}

int write_every_matrix(const MatrixOptions& o, const TrafficMatrix& matrix) {
  // As Open MPI's profile2mat: <prefix>_<size|msg|avg>_<selection>.<ext>, for all, each
  // category present and osc (its S + R); never an empty selection.
  const FileFormat format = o.format == "text" ? FileFormat::csv : file_format_of(o.format);
  std::vector<Selection> selections;
  for (const std::string& name : Selection::names())
    if (matrix.has(Selection::of(name))) selections.push_back(Selection::of(name));
  for (const Selection& selection : selections) {
    for (Metric metric : {Metric::bytes, Metric::messages, Metric::average}) {
      const std::string path =
          o.output + "_" + metric_name(metric) + "_" + selection.name() + "." + file_extension(format);
      if (FileError error;
          !write_file_atomically(path, format_matrix(matrix, selection, metric, format, o.symmetric), error)) {
        std::cerr << "mpimon matrix: " << error.message << '\n';
        return 1;
      }
      std::cout << path << '\n';
    }
  }
  if (selections.empty()) std::cout << "no traffic recorded: no file written\n";
  return 0;
}

int run_matrix(MatrixOptions o) {
  if (!o.pattern.empty()) {
    if (o.metric.empty()) o.metric = "seconds";
    return run_wait_matrix(o);
  }
  if (o.metric.empty()) o.metric = "messages";
  if (o.metric == "seconds") throw std::invalid_argument("--metric seconds needs --pattern");
  const Dumps dumps = read_inputs(o.inputs, Annotations::skip, o.time);
  const TrafficMatrix& matrix = dumps.matrix;
  if (!o.output.empty()) return write_every_matrix(o, matrix);
  const Metric metric = metric_of(o.metric);
  if (o.format != "text") {
    std::cout << format_matrix(matrix, Selection::of(o.category.empty() ? "all" : o.category), metric,
                               file_format_of(o.format), o.symmetric);
    return 0;
  }
  std::vector<Selection> shown;
  if (o.category.empty()) {
    for (int c = 0; c < kCategoryCount; ++c) shown.push_back(Selection(static_cast<Category>(c)));
  } else {
    shown.push_back(Selection::of(o.category));
  }
  std::string out;  // whole, so that a refusal (too many ranks) comes before any table
  for (const Selection& s : shown) {
    if (!matrix.has(s)) continue;
    const bool gets = s.name() == category_name(Category::osc_recv);  // data from the target to the origin
    out +=
        "# " + s.title() + ", " + o.metric + (o.symmetric ? " (symmetric average)" : "") +
        (gets ? " (row: the target read from, column: the origin that read)\n" : " (row: sender, column: receiver)\n") +
        format_text_matrix(matrix, s, metric, o.symmetric) + '\n';
  }
  if (out.empty()) out = "no traffic recorded" + (o.category.empty() ? "" : " in category '" + o.category + "'") + '\n';
  std::cout << out;
  return 0;
}

}  // namespace

Subcommand add_matrix_command(CLI::App& mpimon) {
  auto o = std::make_shared<MatrixOptions>();
  CLI::App* matrix =
      mpimon.add_subcommand("matrix", "message matrices from a job file or .prof dumps (ours or Open MPI's)");
  matrix
      ->add_option("dumps", o->inputs,
                   "a job file (a running or dead job's too, by its name: its time series); .prof files or a "
                   "captured standard output holding them (other lines are skipped); "
                   "a folder holding the .prof files of one dump or one job file; a dump prefix P (as given to "
                   "pml_monitoring_filename: P.<rank>.prof), or the prefix of flush phases (P_<phase>.<rank>.prof, "
                   "all phases summed, as aggregate_profile takes it). Several inputs are summed.")
      ->required();
  matrix
      ->add_option(
          "--category", o->category,
          "external, internal, coll, osc_sent, osc_recv, io_shuffle (the MPI-IO collective-buffering shuffle), "
          "osc (S + R), communication (E + I + S + R) or all (E + I + S + R + F: every byte once; coll is the "
          "logical view of I); default: each category in turn (text), all (other formats)")
      ->check(CLI::IsMember(Selection::names()));
  matrix
      ->add_option("--metric", o->metric,
                   "messages, bytes or average (bytes per message); with --pattern: seconds (default) or messages "
                   "(occurrences)")
      ->check(CLI::IsMember({"messages", "bytes", "average", "seconds"}));
  matrix
      ->add_option("--format", o->format,
                   "text (terminal, up to 128 ranks), csv (dense, up to 4096 ranks), sparse (CSV of the non-zeros: "
                   "sender,receiver,value), mat (Open MPI's profile2mat, up to 4096 ranks) or mtx (MatrixMarket)")
      ->check(CLI::IsMember({"text", "csv", "sparse", "mat", "mtx"}));
  matrix->add_option("--output", o->output,
                     "write every selection and metric to <prefix>_<size|msg|avg>_<selection>.<format> instead");
  matrix
      ->add_option("--pattern", o->pattern,
                   "RMA wait states instead of traffic: who made whom wait in this pattern (late_post, "
                   "early_transfer, early_wait, late_complete, wait_at_fence, early_fence, lock_competition, or all); "
                   "job files of runs with osc_monitoring_wait_states 1")
      ->check(CLI::IsMember(wait_pattern_choices()));
  matrix->add_flag("--symmetric", o->symmetric,
                   "average both directions, (a->b + b->a) / 2, as Open MPI's profile2mat does");
  add_time_options(*matrix, o->time);
  return {matrix, [o] { return run_matrix(*o); }};
}

}  // namespace mpimon::tools
