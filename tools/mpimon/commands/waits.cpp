// `mpimon waits <job files...>`: the RMA wait states of one or several jobs side by side,
// as the paper's Table 2 (seconds per pattern, share of the job's time), then the clock
// figures of each job.
#include <iostream>
#include <memory>

#include "commands/options.h"
#include "commands/subcommand.h"
#include "readers/format_error.h"
#include "wait_summary.h"

namespace mpimon::tools {

namespace {

struct WaitsOptions {
  std::vector<std::string> inputs;
  std::string label_list;  // comma-separated
  bool markdown = false;
};

int run_waits(const WaitsOptions& o) {
  std::vector<std::string> labels;
  for (size_t start = 0; !o.label_list.empty();) {
    const size_t comma = o.label_list.find(',', start);
    labels.push_back(o.label_list.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!labels.empty() && labels.size() != o.inputs.size()) {
    std::cerr << "mpimon waits: " << labels.size() << " labels for " << o.inputs.size() << " job files\n";
    return 2;
  }
  std::vector<std::pair<std::string, WaitSummary>> jobs;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    const Dumps dumps = read_inputs({o.inputs[i]}, Annotations::read);
    if (!dumps.have_header)
      throw FormatError(o.inputs[i] + ": expected a job file (wait states are written to the job file only)");
    WaitSummary s = summarize_waits(dumps);
    if (!s.has_wait_states) {
      std::cerr << "mpimon waits: " << o.inputs[i]
                << ": no wait states (run the job with --mca osc_monitoring_wait_states 1)\n";
      return 1;
    }
    jobs.emplace_back(labels.empty() ? o.inputs[i] : labels[i], std::move(s));
  }
  std::cout << format_wait_table(jobs, o.markdown);
  if (o.markdown) std::cout << '\n';
  for (const auto& [label, s] : jobs) {
    std::cout << (o.markdown ? "- " : "") << label << ": " << s.ranks << " ranks, clock offsets known to "
              << s.max_clock_uncertainty << " s, largest drift " << s.max_clock_drift << " s";
    if (s.unmatched) std::cout << ", " << s.unmatched << " epochs without their remote timestamps";
    std::cout << '\n';
  }
  return 0;
}

}  // namespace

Subcommand add_waits_command(CLI::App& mpimon) {
  auto o = std::make_shared<WaitsOptions>();
  CLI::App* waits = mpimon.add_subcommand(
      "waits", "RMA wait states per pattern, as seconds and share of the job's time, for one or several job files");
  waits->add_option("jobs", o->inputs, "job files of runs with osc_monitoring_wait_states 1")->required();
  waits->add_option("--labels", o->label_list, "a column title per job file, comma-separated");
  waits->add_flag("--markdown", o->markdown, "a Markdown table");
  return {waits, [o] { return run_waits(*o); }};
}

}  // namespace mpimon::tools
