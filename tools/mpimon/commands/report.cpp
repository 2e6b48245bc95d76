// `mpimon report <dumps...> [-o F]`: one self-contained HTML page.
#include <iostream>
#include <memory>

#include "commands/options.h"
#include "commands/subcommand.h"
#include "files/atomic_file.h"
#include "report/report.h"

namespace mpimon::tools {

Subcommand add_report_command(CLI::App& mpimon) {
  struct ReportOptions {
    std::vector<std::string> inputs;
    std::string output = "mpimon-report.html";
    TimeOptions time;
  };
  auto o = std::make_shared<ReportOptions>();
  CLI::App* report = mpimon.add_subcommand("report", "one self-contained HTML page about a job (viewable offline)");
  report
      ->add_option("dumps", o->inputs,
                   "a job file, .prof files or captured output, a folder, or a dump prefix (as for matrix)")
      ->required();
  report->add_option("-o,--output", o->output, "the HTML file to write");
  add_time_options(*report, o->time);
  return {report, [o] {
            DumpLoader load;
            Dumps dumps = read_inputs(o->inputs, Annotations::read, o->time, &load);
            if (FileError error; !write_file_atomically(o->output, format_html_report(std::move(dumps), load), error)) {
              std::cerr << "mpimon report: " << error.message << '\n';
              return 1;
            }
            std::cout << "report: " << o->output << '\n';
            return 0;
          }};
}

}  // namespace mpimon::tools
