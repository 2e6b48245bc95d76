// `mpimon matrix <dumps...>`: message matrices in the terminal or in files.
#include <iostream>
#include <memory>

#include "atomic_file.h"
#include "options.h"
#include "subcommand.h"

namespace mpimon::tools {

namespace {

struct MatrixOptions {
  std::vector<std::string> inputs;
  std::string category;  // "" = every category present (text) or all summed (files)
  std::string metric = "messages";
  std::string format = "text";
  std::string output;  // file prefix: every category and metric
  bool symmetric = false;
};

int run_matrix(const MatrixOptions& o) {
  const TrafficMatrix matrix = read_dump_files(expand_dump_arguments(o.inputs));
  if (!o.output.empty()) {
    // Every category present, and all of them summed, in every metric (file names as
    // Open MPI's profile2mat.pl: <prefix>_<size|msg|avg>_<category>.<ext>).
    const FileFormat format = o.format == "text" ? FileFormat::csv : file_format_of(o.format);
    std::vector<Selection> selections{selection_of("all")};
    for (int c = 0; c < kCategoryCount; ++c)
      if (matrix.has(static_cast<Category>(c)))
        selections.push_back(selection_of(category_name(static_cast<Category>(c))));
    for (const Selection& selection : selections) {
      for (Metric metric : {Metric::bytes, Metric::messages, Metric::average}) {
        const std::string path =
            o.output + "_" + metric_name(metric) + "_" + selection.name() + "." + file_extension(format);
        if (std::string error =
                write_file_atomically(path, format_matrix(matrix, selection, metric, format, o.symmetric));
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
                               file_format_of(o.format), o.symmetric);
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
    if (!o.category.empty() && o.category != category_name(s.category)) continue;
    if (!matrix.has(s.category)) continue;
    std::cout << "# " << s.title << ", " << o.metric << " (row: sender, column: receiver)\n"
              << format_text_matrix(matrix, s.category, metric) << '\n';
    printed = true;
  }
  if (!printed)
    std::cout << "no traffic recorded" << (o.category.empty() ? "" : " in category '" + o.category + "'") << '\n';
  return 0;
}

}  // namespace

Subcommand add_matrix_command(CLI::App& mpimon) {
  auto o = std::make_shared<MatrixOptions>();
  CLI::App* matrix =
      mpimon.add_subcommand("matrix", "message matrices from a job file or .prof dumps (ours or Open MPI's)");
  matrix
      ->add_option("dumps", o->inputs,
                   "a job file, .prof files (several phases are summed), folders holding them, or a dump prefix "
                   "(as given to pml_monitoring_filename)")
      ->required();
  matrix
      ->add_option("--category", o->category,
                   "external, internal, coll, osc_sent, osc_recv, or all (every category summed); default: each "
                   "category in turn (text), all (other formats)")
      ->check(CLI::IsMember(category_choices()));
  matrix->add_option("--metric", o->metric, "messages, bytes or average (bytes per message)")
      ->check(CLI::IsMember({"messages", "bytes", "average"}));
  matrix
      ->add_option("--format", o->format,
                   "text (terminal), csv, mat (Open MPI's profile2mat.pl) or mtx (MatrixMarket)")
      ->check(CLI::IsMember({"text", "csv", "mat", "mtx"}));
  matrix->add_option("--output", o->output,
                     "write every category and metric to <prefix>_<size|msg|avg>_<category>.<format> instead");
  matrix->add_flag("--symmetric", o->symmetric,
                   "average both directions, (a->b + b->a) / 2, as Open MPI's profile2mat.pl does");
  return {matrix, [o] { return run_matrix(*o); }};
}

}  // namespace mpimon::tools
