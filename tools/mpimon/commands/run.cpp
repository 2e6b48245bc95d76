// `mpimon run -- <mpirun arguments>`, `mpimon srun -- <srun arguments>` and `mpimon env`.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands/subcommand.h"
#include "component_selection.h"
#include "launcher.h"
#include "open_mpi_settings.h"

namespace mpimon::tools {

Subcommand add_run_command(CLI::App& mpimon) {
  auto arguments = std::make_shared<std::vector<std::string>>();
  CLI::App* run = mpimon.add_subcommand("run", "run mpirun with mpimon's components (mpimon run -- -np 4 ./app)");
  run->add_option("mpirun_arguments", *arguments, "arguments passed to mpirun")->required();
  run->prefix_command();
  return {run, [arguments] {
            const std::string error = exec_mpirun(*arguments);
            std::cerr << "mpimon run: " << error << '\n';
            return 127;
          }};
}

Subcommand add_srun_command(CLI::App& mpimon) {
  auto arguments = std::make_shared<std::vector<std::string>>();
  CLI::App* srun = mpimon.add_subcommand(
      "srun", "run srun --mpi=pmix with mpimon's components, inside a Slurm allocation (mpimon srun -- -n 4 ./app)");
  srun->add_option("srun_arguments", *arguments, "arguments passed to srun (--mpi=pmix added unless given)")
      ->required();
  srun->prefix_command();
  return {srun, [arguments] {
            const std::string error = exec_srun(*arguments);
            std::cerr << "mpimon srun: " << error << '\n';
            return 127;
          }};
}

Subcommand add_env_command(CLI::App& mpimon) {
  CLI::App* env = mpimon.add_subcommand(
      "env", "print the shell exports that `mpimon run` sets (eval \"$(mpimon env)\": then plain mpirun monitors)");
  auto parameter_file = std::make_shared<bool>(false);
  env->add_flag("--mca-params", *parameter_file,
                "print it as an MCA parameter file instead (for OMPI_MCA_mca_base_param_files)");
  return {env, [parameter_file] {
            if (*parameter_file) {
              std::cout << mca_parameter_file(plugin_directory());
              return 0;
            }
            for (const auto& [name, value] : job_environment(plugin_directory(), open_mpi_setting))
              std::cout << "export " << name << "='" << value << "'\n";
            return 0;
          }};
}

}  // namespace mpimon::tools
