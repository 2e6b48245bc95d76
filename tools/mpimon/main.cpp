// mpimon: the user's command. Each subcommand lives in commands/<name>.cpp:
//   mpimon run -- <mpirun arguments>     run a job with mpimon's components
//   mpimon env                            print the environment that `run` sets
//   mpimon matrix <dumps...>              message matrices from a job file or .prof dumps
//   mpimon show <dumps...>                heatmaps (terminal, SVG)
//   mpimon place <dumps...> --topology T  process placement (TreeMatch), rankfile, reorder keys
//   mpimon report <dumps...> [-o F]       a self-contained HTML report
//   mpimon waits <job files...>           RMA wait states per pattern (osc_monitoring_wait_states 1)
//   mpimon admin mk-log-dirs <log path>   the site log's dated folders (docs/site-deployment.md)
//   mpimon index <log path>               the site's SQLite index of its logs
//   mpimon jobs <log path>                the site's jobs, sorted by placement gain
#include <iostream>
#include <new>
#include <stdexcept>
#include <vector>

#include "commands/subcommand.h"
#include "readers/format_error.h"
#include "topology.h"

using namespace mpimon::tools;

int main(int argc, char** argv) {
  CLI::App app{"mpimon: communication monitoring for Open MPI 4.1"};
  // Which Open MPI these components are for (cmake/OpenMPI.cmake): a build for another
  // one declines at run time with one line (docs/install.md, "Your cluster's Open MPI").
  app.set_version_flag("--version", "mpimon " MPIMON_VERSION_TEXT ", built for " MPIMON_OMPI_BUILT_FOR);
  app.require_subcommand(1);
  const std::vector<Subcommand> subcommands{add_run_command(app),    add_srun_command(app),  add_env_command(app),
                                            add_matrix_command(app), add_show_command(app),  add_place_command(app),
                                            add_report_command(app), add_waits_command(app), add_admin_command(app),
                                            add_index_command(app),  add_jobs_command(app)};
  CLI11_PARSE(app, argc, argv);
  for (const Subcommand& subcommand : subcommands) {
    if (!*subcommand.app) continue;
    const std::string name = subcommand.app->get_name();
    try {
      return subcommand.run();
    } catch (const mpimon::FormatError& e) {  // malformed input: "<file>:<line>: expected ..."
      std::cerr << "mpimon: " << e.what() << '\n';
      return 2;
    } catch (const mpimon::placement::TopologyError& e) {
      std::cerr << "mpimon " << name << ": " << e.what() << '\n';
      return 2;
    } catch (const std::invalid_argument& e) {
      std::cerr << "mpimon " << name << ": " << e.what() << '\n';
      return 2;
    } catch (const std::bad_alloc&) {  // a last resort: the readers keep memory to the non-zeros
      std::cerr << "mpimon " << name << ": out of memory\n";
      return 1;
    } catch (const std::length_error& e) {
      std::cerr << "mpimon " << name << ": out of memory (" << e.what() << ")\n";
      return 1;
    }
  }
  return 0;
}
