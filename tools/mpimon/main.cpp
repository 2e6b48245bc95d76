// mpimon: the user's command.
//   mpimon run -- <mpirun arguments>     run a job with mpimon's components
//   mpimon env                            print the environment that `run` sets
//   mpimon matrix <dumps...>              message matrices from a job file or .prof dumps
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "launcher.h"
#include "traffic_matrix.h"

using namespace mpimon;
using namespace mpimon::tools;

namespace {

int run_matrix(const std::vector<std::string>& inputs, const std::string& category_name, const std::string& metric_name) {
  const TrafficMatrix matrix = read_dump_files(expand_dump_arguments(inputs));
  const Metric metric = metric_name == "bytes" ? Metric::bytes : Metric::messages;
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
    if (category_name != "all" && category_name != mpimon::category_name(s.category)) continue;
    if (!matrix.has(s.category)) continue;
    std::cout << "# " << s.title << ", " << metric_name << " (row: sender, column: receiver)\n"
              << format_text_matrix(matrix, s.category, metric) << '\n';
    printed = true;
  }
  if (!printed) std::cout << "no traffic recorded in category '" << category_name << "'\n";
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

  auto* matrix = app.add_subcommand("matrix", "print message matrices from a job file or .prof dumps");
  std::vector<std::string> inputs;
  std::string category = "all", metric = "messages";
  matrix->add_option("dumps", inputs, "a job file, .prof files, folders holding them, or a dump prefix (as given to pml_monitoring_filename)")
      ->required();
  matrix->add_option("--category", category, "external, internal, coll, osc_sent, osc_recv or all")
      ->check(CLI::IsMember({"external", "internal", "coll", "osc_sent", "osc_recv", "all"}));
  matrix->add_option("--metric", metric, "messages or bytes")->check(CLI::IsMember({"messages", "bytes"}));

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
    if (*matrix) return run_matrix(inputs, category, metric);
  } catch (const FormatError& e) {
    std::cerr << "mpimon: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
