// One subcommand of `mpimon`: its command-line options (CLI11) and what runs when the user
// chose it. Each subcommand lives in its own file in this folder; main.cpp lists them.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace mpimon::tools {

struct Subcommand {
  CLI::App* app = nullptr;   // parsed: *app is true when the user chose this subcommand
  std::function<int()> run;  // returns the process exit status
};

Subcommand add_run_command(CLI::App& mpimon);
Subcommand add_srun_command(CLI::App& mpimon);
Subcommand add_env_command(CLI::App& mpimon);
Subcommand add_matrix_command(CLI::App& mpimon);
Subcommand add_show_command(CLI::App& mpimon);
Subcommand add_place_command(CLI::App& mpimon);
Subcommand add_report_command(CLI::App& mpimon);
Subcommand add_waits_command(CLI::App& mpimon);
Subcommand add_admin_command(CLI::App& mpimon);
Subcommand add_index_command(CLI::App& mpimon);
Subcommand add_jobs_command(CLI::App& mpimon);

}  // namespace mpimon::tools
