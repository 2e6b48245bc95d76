#include "runtime/settings_registration_ompi.h"

#include "runtime/ompi_glue.h"

#include <mpi.h>

#include <pwd.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <ompi/mca/pml/base/base.h>

#include "files/name_patterns.h"
#include "files/site_log.h"
#include "runtime/component_version.h"
#include "runtime/mca_values.h"
#include "runtime/mca_values_ompi.h"
#include "runtime/runtime.h"

namespace mpimon {

namespace {

// Storage of the MCA variables. The integers are Open MPI integers whose text we check
// ourselves (runtime/mca_values_ompi.h).
int enable_level = 0;
int enable_output = 0;
int verbose_level = 0;
char* filename_text = nullptr;
char* job_file_text = nullptr;
char* snapshot_interval_text = nullptr;
char* log_path_text = nullptr;
bool registered = false;
bool pml_took_part = false;

// pml_monitoring_snapshot_interval: the default, and what is accepted (docs/time-series.md,
// "Why 10 s": 10 s keeps a 100 000-rank hour to about 14 GB; 0.01 s is a hundred
// snapshots per second per process).
constexpr double kDefaultSnapshotInterval = 10;
constexpr double kShortestSnapshotInterval = 0.01, kLongestSnapshotInterval = 86400;

// Refuse to run against another Open MPI major.minor than the one we were built for.
bool running_library_compatible() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  const auto running = parse_library_version(text);
  const OmpiVersion built{MPIMON_BUILT_OMPI_MAJOR, MPIMON_BUILT_OMPI_MINOR, MPIMON_BUILT_OMPI_RELEASE};
  const std::string built_text =
      std::to_string(built.major) + "." + std::to_string(built.minor) + "." + std::to_string(built.release);
  if (!running) {
    warn_once_per_job("cannot tell the running Open MPI's version ('" + std::string(text) + "'); built for " +
                      built_text + "; monitoring disabled");
    return false;
  }
  const std::string running_text =
      std::to_string(running->major) + "." + std::to_string(running->minor) + "." + std::to_string(running->release);
  switch (compare_versions(built, *running)) {
    case VersionVerdict::same:
      return true;
    case VersionVerdict::other_release:
      warn_once_per_job("built for Open MPI " + built_text + ", running " + running_text +
                        " (same major.minor: monitoring stays on)");
      return true;
    case VersionVerdict::incompatible:
      warn_once_per_job("built for Open MPI " + built_text + ", running " + running_text +
                        ": internal structures differ, monitoring disabled (the job runs unmonitored)");
      return false;
  }
  return false;
}

const IntParameter kEnable{
    "enable", "pml_monitoring_enable",
    "Monitoring of point-to-point traffic (mpimon): 0 off (default); 1 all point-to-point traffic in one "
    "category; 2 or more: internal traffic (negative tags: collectives, protocol) kept apart from the "
    "application's",
    "0 off, 1 all point-to-point traffic together, 2 or more internal traffic kept apart", 0};
const IntParameter kEnableOutput{
    "enable_output",
    "pml_monitoring_enable_output",
    "End-of-job dump in Open MPI's .prof text (mpimon): 0 none (default); 1 stdout; 2 stderr; 3 or more: "
    "file <pml_monitoring_filename>.<world rank>.prof",
    "0 none, 1 stdout, 2 stderr, 3 or more file",
    0,
    INT_MAX,
    OPAL_INFO_LVL_9};
const IntParameter kVerbose{
    "verbose",
    "pml_monitoring_verbose",
    "Report the start-up check of the deployment and the size and writing time of the end-of-job dumps on stderr "
    "(mpimon): 0 (default) off, 1 or more on",
    "0 off, 1 or more on",
    0,
    INT_MAX,
    OPAL_INFO_LVL_9};

// The user's name for %u: USER as the job's environment says (no lookup per process), else
// the password database's.
std::string user_name() {
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  const passwd* entry = ::getpwuid(::geteuid());
  return entry != nullptr ? entry->pw_name : std::to_string(::geteuid());
}

// An output name with Slurm's patterns expanded (files/name_patterns.h); a bad pattern is
// said once and the name used as given (the run's files are still written).
std::string expanded_name(const char* parameter, const std::string& text, const NameContext& context) {
  try {
    return expand_name_pattern(text, context);
  } catch (const std::invalid_argument& e) {
    warn_once_per_job(std::string(parameter) + " " + e.what() + ": the name is used as given");
    return text;
  }
}

bool set_by_nobody(int variable_index) {
  mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
  return variable_index < 0 || mca_base_var_get_value(variable_index, nullptr, &source, nullptr) != OPAL_SUCCESS ||
         source == MCA_BASE_VAR_SOURCE_DEFAULT;
}

// mpimon_log_path (no component in its name: the site's one switch, docs/site-deployment.md).
// Not in the monitoring group: nothing deregisters it, and its storage lives as long as
// this library (-z nodelete).
void register_site_log_path() {
  static char default_log_path[] = MPIMON_DEFAULT_LOG_PATH;
  static bool log_path_registered = false;
  if (log_path_registered) return;
  log_path_registered = true;
  log_path_text = default_log_path;
  mca_base_var_register("ompi", "mpimon", nullptr, "log_path",
                        "Site log (mpimon): every job monitored, one compressed log per job in "
                        "<path>/YYYY/MM/DD/ written at MPI_Finalize (docs/site-deployment.md); none or empty: off "
                        "(none turns the installation's default off for one job). Default: " MPIMON_DEFAULT_LOG_PATH,
                        MCA_BASE_VAR_TYPE_STRING, nullptr, 0, static_cast<mca_base_var_flag_t>(0), OPAL_INFO_LVL_4,
                        MCA_BASE_VAR_SCOPE_READONLY, &log_path_text);
}

}  // namespace

void register_settings() {
  // Again when Open MPI deregistered them since (monitoring_variables_deregistered): the
  // same storage gets the same values; the settings were computed and checked the first
  // time.
  if (registered && !monitoring_variables_deregistered("pml")) return;
  const bool again = registered;
  registered = true;
  filename_text = nullptr;
  static char default_job_file[] = "mpimon-job.txt";
  job_file_text = default_job_file;
  static char default_interval[] = "10";
  snapshot_interval_text = default_interval;
  const auto no_flags = static_cast<mca_base_var_flag_t>(0);
  std::string enable_warning, output_warning, verbose_warning;
  const int enable = register_int_parameter("pml", kEnable, enable_level, enable_warning);
  const int output = register_int_parameter("pml", kEnableOutput, enable_output, output_warning);
  const int verbose = register_int_parameter("pml", kVerbose, verbose_level, verbose_warning);
  register_monitoring_variable(
      "pml", "filename", "Prefix of the per-rank dump files (mpimon): <prefix>.<world rank>.prof",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &filename_text);
  const int job_file_index = register_monitoring_variable(
      "pml", "job_file",
      "The one machine-readable file of the whole job, written at MPI_Finalize whenever monitoring is on "
      "(mpimon); an existing file is never overwritten (<name>.<n> is used instead); empty: no job file. "
      "Slurm's %j %s %J %u %x %N %% are expanded (also in pml_monitoring_filename); default mpimon-job.txt, "
      "inside a Slurm job mpimon-job-%j.%s.txt",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &job_file_text);
  register_monitoring_variable(
      "pml", "snapshot_interval",
      "Time series (mpimon): every this many seconds (fractions allowed, e.g. 0.5), each process appends what "
      "changed in its totals to <job file>.series/<host>, read by mpimon even if the job dies; 0: none. "
      "Default 10",
      MCA_BASE_VAR_TYPE_STRING, nullptr, 0, no_flags, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
      &snapshot_interval_text);
  register_site_log_path();
  if (again) return;

  Settings& settings = Runtime::instance().settings;
  settings.enable_level = enable;
  if (!enable_warning.empty()) warn_once_per_job(enable_warning + ": monitoring off, the job runs on");
  if (!output_warning.empty()) warn_once_per_job(output_warning + ": no end-of-job dump");
  settings.verbose = verbose > 0;
  if (!verbose_warning.empty()) warn_once_per_job(verbose_warning);
  settings.dump_target = output >= 3 ? DumpTarget::file : static_cast<DumpTarget>(output);
  const NameContext names = name_context([](const char* name) { return std::getenv(name); }, user_name());
  settings.dump_prefix = expanded_name("pml_monitoring_filename", filename_text ? filename_text : "", names);
  const std::string job_file =
      set_by_nobody(job_file_index) ? default_job_file_pattern(names) : std::string(job_file_text ? job_file_text : "");
  settings.job_file = expanded_name("pml_monitoring_job_file", job_file, names);
  std::string log_path_problem;
  const auto site_root = site_log_root(log_path_text ? log_path_text : "", log_path_problem);
  if (!log_path_problem.empty()) warn_once_per_job(log_path_problem);
  settings.site_log_root = site_root.value_or("");
  if (!settings.site_log_root.empty() && settings.enable_level == 0) {
    // The site switch alone: monitored for the site log, and nothing in the job's folder
    // unless the job asked for its job file by name.
    settings.enable_level = 2;
    if (set_by_nobody(job_file_index)) settings.job_file.clear();
  }
  std::string warning;
  const double interval =
      checked_seconds("pml_monitoring_snapshot_interval", snapshot_interval_text, kDefaultSnapshotInterval,
                      kShortestSnapshotInterval, kLongestSnapshotInterval, warning);
  if (!warning.empty()) warn_once_per_job(warning);
  settings.snapshot_interval_us = static_cast<int64_t>(interval * 1e6 + 0.5);
  if (settings.enable_level > 0 && !running_library_compatible()) settings.enable_level = 0;
}

void note_pml_took_part() { pml_took_part = true; }

bool warn_pml_left_out() {
  static bool said = false;
  const Settings& settings = Runtime::instance().settings;
  if (said || pml_took_part || settings.enable_level <= 0) return false;
  said = true;
  const char* selected = mca_pml_base_selected_component.pmlm_version.mca_component_name;
  warn_once_per_job("pml_monitoring_enable is " + std::to_string(settings.enable_level) +
                    " but the pml selection left mpimon's PML out (selected: '" + std::string(selected) +
                    "'): nothing is monitored. Start the job with `mpimon run`, or add mpimon to your pml list "
                    "(e.g. --mca pml " +
                    std::string(selected) + "," MPIMON_COMPONENT_NAME ")");
  return true;
}

}  // namespace mpimon
