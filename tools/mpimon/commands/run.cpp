// `mpimon run -- <mpirun arguments>` and `mpimon env`.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands/subcommand.h"
#include "launcher.h"

namespace mpimon::tools {

Subcommand add_run_command(CLI::App& mpimon) {
  auto arguments = std::make_shared<std::vector<std::string>>();
  CLI::App* run = mpimon.add_subcommand("run", "run mpirun with mpimon's components first (mpimon run -- -np 4 ./app)");
  run->add_option("mpirun_arguments", *arguments, "arguments passed to mpirun")->required();
  run->prefix_command();
  return {run, [arguments] {
            const std::string error = exec_mpirun(*arguments);
            std::cerr << "mpimon run: " << error << '\n';
            return 127;
          }};
}

Subcommand add_env_command(CLI::App& mpimon) {
  CLI::App* env = mpimon.add_subcommand("env", "print the shell export that `mpimon run` sets");
  return {env, [] {
            // Quoted for the shell (an installation prefix may hold spaces).
            std::cout << "export OMPI_MCA_mca_base_component_path='" << component_path(plugin_directory()) << "'\n";
            return 0;
          }};
}

}  // namespace mpimon::tools
