// mpimon: the user's command.
//   mpimon run -- <mpirun arguments>     run a job with mpimon's components
//   mpimon env                            print the environment that `run` sets
//   mpimon matrix <dumps...>              message matrices from a job file or .prof dumps
//   mpimon show <dumps...>                heatmaps (terminal, SVG)
//   mpimon place <dumps...> --topology T  process placement (TreeMatch), rankfile, reorder keys
//   mpimon report <dumps...> [-o F]       a self-contained HTML report
#include <CLI/CLI.hpp>

#include <cstdio>
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "atomic_file.h"
#include "heatmap.h"
#include "launcher.h"
#include "report.h"
#include "scotch_mapping.h"
#include "topology.h"
#include "treematch.h"
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
  int histograms_of = -1;
};

int run_show(const ShowOptions& o) {
  const std::vector<std::string> files = expand_dump_arguments(o.inputs);
  const TrafficMatrix matrix = read_dump_files(files);
  const Selection selection = selection_of(o.category);
  if (o.histograms_of >= 0) {
    std::cout << format_size_histograms(files, o.histograms_of, selection);
    return 0;
  }
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

struct PlaceOptions {
  std::vector<std::string> inputs;
  std::string topology = "machine";
  std::string category = "all";
  int oversubscription = 1;
  std::string rankfile, keys, host = "localhost";
};

int run_place(const PlaceOptions& o) {
  namespace pl = mpimon::placement;
  const TrafficMatrix matrix = read_dump_files(expand_dump_arguments(o.inputs));
  const pl::MachineTree machine = pl::load_topology(o.topology);
  const int n = matrix.ranks();
  pl::Affinity affinity(n);
  const Selection selection = selection_of(o.category);
  for (const auto& [key, traffic] : matrix.entries()) {
    const auto& [category, source, destination] = key;
    if (selection.all || category == selection.category) affinity.add(source, destination, static_cast<double>(traffic.bytes));
  }
  pl::Options options;
  options.oversubscription = o.oversubscription;
  if (n > 256) options.progress = [](int done, int levels) { std::cerr << "place: level " << done << "/" << levels << " grouped\n"; };
  const pl::Placement ours = pl::treematch(affinity, machine.tree, options);

  std::cout << n << " processes on " << machine.description << " (" << machine.tree.leaves() << " cores";
  for (size_t i = 0; i < machine.tree.arities.size(); ++i) std::cout << (i ? " x " : ": ") << machine.tree.arities[i];
  std::cout << "), " << selection.name() << " bytes\n\n";
  std::cout << "| placement | hop-bytes | bytes across the top level |\n|---|---:|---:|\n";
  auto row = [&](const char* name, const pl::Placement& p) {
    std::cout << "| " << name << " | " << std::fixed << std::setprecision(0) << pl::hop_cost(affinity, machine.tree, p)
              << " | " << pl::top_level_cut(affinity, machine.tree, p) << " |\n";
  };
  if (o.oversubscription == 1) {
    row("identity (rank i on core i)", pl::identity_placement(n));
    row("round-robin across the top level", pl::round_robin_placement(n, machine.tree));
  } else {
    row("identity (rank i on core i / oversubscription)", pl::oversubscribed_identity(n, o.oversubscription));
  }
  row("Scotch (tleaf mapping)", pl::scotch_placement(affinity, machine.tree, o.oversubscription));
  row("mpimon TreeMatch", ours);

  if (!o.rankfile.empty()) {
    std::string text;
    for (int r = 0; r < n; ++r)
      text += "rank " + std::to_string(r) + "=" + o.host + " slot=" + std::to_string(ours[r] / machine.cores_per_package) +
              ":" + std::to_string(ours[r] % machine.cores_per_package) + "\n";
    if (std::string error = write_file_atomically(o.rankfile, text); !error.empty()) {
      std::cerr << "mpimon place: " << error << '\n';
      return 1;
    }
    std::cout << "\nrankfile: " << o.rankfile << " (mpirun --rankfile " << o.rankfile << ")\n";
  }
  if (!o.keys.empty()) {
    // New rank order = core order: the key of rank r is its position among the cores used.
    std::vector<int> by_core(n);
    for (int r = 0; r < n; ++r) by_core[r] = r;
    std::stable_sort(by_core.begin(), by_core.end(), [&](int a, int b) { return ours[a] < ours[b]; });
    std::vector<int> key(n);
    for (int position = 0; position < n; ++position) key[by_core[position]] = position;
    std::string text = "# rank key (MPI_Comm_split(comm, 0, key, &reordered))\n";
    for (int r = 0; r < n; ++r) text += std::to_string(r) + " " + std::to_string(key[r]) + "\n";
    if (std::string error = write_file_atomically(o.keys, text); !error.empty()) {
      std::cerr << "mpimon place: " << error << '\n';
      return 1;
    }
    std::cout << "reordering keys: " << o.keys << '\n';
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
  show->add_option("--histograms", show_options.histograms_of,
                   "instead: the message-size histograms of this sender rank, per peer")
      ->check(CLI::NonNegativeNumber);

  auto* place = app.add_subcommand("place", "process placement from a job's traffic over a machine topology (TreeMatch)");
  PlaceOptions place_options;
  place->add_option("dumps", place_options.inputs, "a job file, .prof files, folders holding them, or a dump prefix")
      ->required();
  place->add_option("--topology", place_options.topology,
                    "machine (this one, via hwloc), an hwloc XML file, or a synthetic description like 'pack:2 core:4 pu:1'");
  place->add_option("--category", place_options.category, "traffic to place by: external, internal, coll, osc_sent, osc_recv or all")
      ->check(CLI::IsMember({"external", "internal", "coll", "osc_sent", "osc_recv", "all"}));
  place->add_option("--oversubscribe", place_options.oversubscription, "processes per core")->check(CLI::PositiveNumber);
  place->add_option("--rankfile", place_options.rankfile, "write an Open MPI rankfile for the placement");
  place->add_option("--keys", place_options.keys, "write rank reordering keys (for MPI_Comm_split)");
  place->add_option("--host", place_options.host, "host name in the rankfile");

  auto* report = app.add_subcommand("report", "one self-contained HTML page about a job (viewable offline)");
  std::vector<std::string> report_inputs;
  std::string report_output = "mpimon-report.html";
  report->add_option("dumps", report_inputs, "a job file, .prof files, folders holding them, or a dump prefix")->required();
  report->add_option("-o,--output", report_output, "the HTML file to write");

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
    if (*place) return run_place(place_options);
    if (*report) {
      if (std::string error = write_file_atomically(report_output, format_html_report(expand_dump_arguments(report_inputs)));
          !error.empty()) {
        std::cerr << "mpimon report: " << error << '\n';
        return 1;
      }
      std::cout << "report: " << report_output << '\n';
      return 0;
    }
  } catch (const FormatError& e) {
    std::cerr << "mpimon: " << e.what() << '\n';
    return 2;
  } catch (const mpimon::placement::TopologyError& e) {
    std::cerr << "mpimon place: " << e.what() << '\n';
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "mpimon place: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
