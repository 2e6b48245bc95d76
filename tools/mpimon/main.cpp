// mpimon: the user's command.
//   mpimon run -- <mpirun arguments>     run a job with mpimon's components
//   mpimon env                            print the environment that `run` sets
//   mpimon matrix <dumps...>              message matrices from a job file or .prof dumps
//   mpimon show <dumps...>                heatmaps (terminal, SVG)
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "atomic_file.h"
#include "heatmap.h"
#include "launcher.h"
#include "traffic_matrix.h"

using namespace mpimon;
using namespace mpimon::tools;

namespace {

struct MatrixOptions {
  std::vector<std::string> inputs;
  std::string category;  // "" = every category present (text) or all summed (files)
  std::string metric = "messages";
  std::string format = "text";
  std::string output;  // file prefix: every category and metric
  bool symmetric = false;
};

Selection selection_of(const std::string& name) {
  Selection s;
  s.all = name == "all";
  for (int c = 0; c < kCategoryCount; ++c)
    if (name == mpimon::category_name(static_cast<Category>(c))) s.category = static_cast<Category>(c);
  return s;
}

Metric metric_of(const std::string& name) {
  return name == "bytes" ? Metric::bytes : name == "average" ? Metric::average : Metric::messages;
}

FileFormat format_of(const std::string& name) {
  return name == "csv" ? FileFormat::csv : name == "mat" ? FileFormat::mat : FileFormat::matrix_market;
}

int run_matrix(const MatrixOptions& o) {
  const TrafficMatrix matrix = read_dump_files(expand_dump_arguments(o.inputs));
  if (!o.output.empty()) {
    // Every category present, and all of them summed, in every metric (file names as
    // Open MPI's profile2mat.pl: <prefix>_<size|msg|avg>_<category>.<ext>).
    const FileFormat format = o.format == "text" ? FileFormat::csv : format_of(o.format);
    std::vector<Selection> selections{selection_of("all")};
    for (int c = 0; c < kCategoryCount; ++c)
      if (matrix.has(static_cast<Category>(c))) selections.push_back(selection_of(mpimon::category_name(static_cast<Category>(c))));
    for (const Selection& selection : selections) {
      for (Metric metric : {Metric::bytes, Metric::messages, Metric::average}) {
        const std::string path =
            o.output + "_" + metric_name(metric) + "_" + selection.name() + "." + file_extension(format);
        if (std::string error = write_file_atomically(path, format_matrix(matrix, selection, metric, format, o.symmetric));
            !error.empty()) {
          std::cerr << "mpimon matrix: " << error << '\n';
          return 1;
        }
        std::cout << path << '\n';
      }
    }
    return 0;
  }
  const Metric metric = metric_of(o.metric);
  if (o.format != "text") {
    std::cout << format_matrix(matrix, selection_of(o.category.empty() ? "all" : o.category), metric,
                               format_of(o.format), o.symmetric);
    return 0;
  }
  struct Shown {
    Category category;
    const char* title;
  };
  const Shown all[] = {{Category::external, "point-to-point, application (E)"},
                       {Category::internal, "point-to-point, internal: collectives and protocol (I)"},
                       {Category::coll, "collectives (C)"},
                       {Category::osc_sent, "one-sided, sent (S)"},
                       {Category::osc_recv, "one-sided, received (R)"}};
  bool printed = false;
  for (const Shown& s : all) {
    if (!o.category.empty() && o.category != mpimon::category_name(s.category)) continue;
    if (!matrix.has(s.category)) continue;
    std::cout << "# " << s.title << ", " << o.metric << " (row: sender, column: receiver)\n"
              << format_text_matrix(matrix, s.category, metric) << '\n';
    printed = true;
  }
  if (!printed) std::cout << "no traffic recorded" << (o.category.empty() ? "" : " in category '" + o.category + "'") << '\n';
  return 0;
}

struct ShowOptions {
  std::vector<std::string> inputs;
  std::string category = "all";
  std::string metric = "bytes";
  std::string svg;
};

int run_show(const ShowOptions& o) {
  const TrafficMatrix matrix = read_dump_files(expand_dump_arguments(o.inputs));
  const Selection selection = selection_of(o.category);
  const Grid grid = bin_matrix(matrix, selection, metric_of(o.metric));
  const std::string title = selection.name() + " traffic, " + o.metric + " (" + std::to_string(matrix.ranks()) + " ranks)";
  std::cout << format_terminal_heatmap(grid, title);
  if (!o.svg.empty()) {
    if (std::string error = write_file_atomically(o.svg, format_svg_heatmap(grid, title)); !error.empty()) {
      std::cerr << "mpimon show: " << error << '\n';
      return 1;
    }
    std::cout << "image: " << o.svg << '\n';
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mpimon: communication monitoring for Open MPI 4.1"};
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "run mpirun with mpimon's components first (mpimon run -- -np 4 ./app)");
  std::vector<std::string> mpirun_arguments;
  run->add_option("mpirun_arguments", mpirun_arguments, "arguments passed to mpirun")->required();
  run->prefix_command();

  auto* env = app.add_subcommand("env", "print the shell export that `mpimon run` sets");

  auto* matrix = app.add_subcommand("matrix", "message matrices from a job file or .prof dumps (ours or Open MPI's)");
  MatrixOptions matrix_options;
  matrix->add_option("dumps", matrix_options.inputs,
                     "a job file, .prof files (several phases are summed), folders holding them, or a dump prefix "
                     "(as given to pml_monitoring_filename)")
      ->required();
  matrix->add_option("--category", matrix_options.category,
                     "external, internal, coll, osc_sent, osc_recv, or all (every category summed); default: each "
                     "category in turn (text), all (other formats)")
      ->check(CLI::IsMember({"external", "internal", "coll", "osc_sent", "osc_recv", "all"}));
  matrix->add_option("--metric", matrix_options.metric, "messages, bytes or average (bytes per message)")
      ->check(CLI::IsMember({"messages", "bytes", "average"}));
  matrix->add_option("--format", matrix_options.format, "text (terminal), csv, mat (Open MPI's profile2mat.pl) or mtx "
                                                          "(MatrixMarket)")
      ->check(CLI::IsMember({"text", "csv", "mat", "mtx"}));
  matrix->add_option("--output", matrix_options.output,
                     "write every category and metric to <prefix>_<size|msg|avg>_<category>.<format> instead");
  matrix->add_flag("--symmetric", matrix_options.symmetric,
                   "average both directions, (a->b + b->a) / 2, as Open MPI's profile2mat.pl does");

  auto* show = app.add_subcommand("show", "heatmap of a job's traffic in the terminal (binned beyond 64 ranks), and as an SVG image");
  ShowOptions show_options;
  show->add_option("dumps", show_options.inputs, "a job file, .prof files, folders holding them, or a dump prefix")
      ->required();
  show->add_option("--category", show_options.category, "external, internal, coll, osc_sent, osc_recv or all (summed)")
      ->check(CLI::IsMember({"external", "internal", "coll", "osc_sent", "osc_recv", "all"}));
  show->add_option("--metric", show_options.metric, "messages, bytes or average")
      ->check(CLI::IsMember({"messages", "bytes", "average"}));
  show->add_option("--svg", show_options.svg, "also write the heatmap as an SVG image (axis labels, colour scale)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) {
      const std::string error = exec_mpirun(mpirun_arguments);
      std::cerr << "mpimon run: " << error << '\n';
      return 127;
    }
    if (*env) {
      std::cout << "export OMPI_MCA_mca_base_component_path=" << component_path(plugin_directory()) << '\n';
      return 0;
    }
    if (*matrix) return run_matrix(matrix_options);
    if (*show) return run_show(show_options);
  } catch (const FormatError& e) {
    std::cerr << "mpimon: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
