// Running a real mpirun job from a test, in a fresh folder, and reading its dumps.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "readers/prof_reader.h"

namespace mpimon::test {

struct JobResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
  std::filesystem::path folder;
};

enum class Components { ours, distro };

// mpirun -np <ranks> <arguments...> in a new temporary folder (the job's cwd), with the
// environment root needs on these machines and, for Components::ours, our plugin folder
// first in the component path.
JobResult run_job(int ranks, const std::vector<std::string>& arguments, Components components = Components::ours);
// The same in an existing folder.
JobResult run_job_in(const std::filesystem::path& folder, int ranks, const std::vector<std::string>& arguments,
                     Components components = Components::ours);
// The shell command run_job_in runs (for wrapping it, e.g. in `unshare -m`).
std::string mpirun_command(int ranks, const std::vector<std::string>& arguments,
                           Components components = Components::ours);
// `s` quoted for the shell.
std::string shell_quote(const std::string& s);
// Sanitizer builds (cmake/Sanitizers.cmake) only, else "": the environment assignments
// ("LD_PRELOAD=<runtime> ASAN_OPTIONS=... ") that put the sanitizer runtime into an
// uninstrumented program that loads our instrumented code (ompi_info, say), to put in
// front of its command. run_job does this for every rank itself.
std::string sanitizer_environment();
// Any shell command in `folder` (stdout and stderr together).
JobResult run_shell(const std::filesystem::path& folder, const std::string& command);
// The `env ...` prefix run_job puts before mpirun to choose the components: ours (our
// plugin folder first in the component path) or the distro's (Open MPI's default path).
std::string component_environment(Components components);
std::filesystem::path new_test_folder();
std::vector<std::string> concat_arguments(std::vector<std::string> a, const std::vector<std::string>& b);

// Arguments that switch on monitoring with per-rank dump files <folder>/prof.<rank>.prof.
std::vector<std::string> monitoring_arguments(int level = 2);
// Arguments that force MPI_Reduce to a binary tree (8 ranks: edges 1,2->0; 3,5->1; 4,6->2; 7->3),
// also on a communicator spanning hosts (5.0's coll/han would take collectives over there).
std::vector<std::string> binary_tree_reduce_arguments();

// (kind, sender, peer) -> (bytes, messages) over all prof.<rank>.prof files of a job.
using Edges = std::map<std::tuple<char, int, int>, std::pair<uint64_t, uint64_t>>;
Edges read_edges(const std::filesystem::path& folder, const std::string& kinds, const std::string& prefix = "prof");
std::vector<ProfLine> read_lines(const std::filesystem::path& folder, int ranks, const std::string& prefix = "prof");
std::string read_text(const std::filesystem::path& file);
// Every site log under `root` (any day; docs/site-deployment.md): regular files named
// *.mpimon, not links to one.
std::vector<std::filesystem::path> site_logs_under(const std::filesystem::path& root);

// A full disk: <folder>/full is a tmpfs of 512 KiB, filled up but for `free_pages`
// pages, in a private mount namespace (unshare -m) around `command` (run in <folder>,
// a new test folder); what is left in it afterwards is copied to <folder>/after. The
// output ends with "exit code: <command's>". nullopt when this machine cannot (not root).
std::optional<JobResult> run_on_full_disk(const std::string& command, int free_pages = 0);
#define SKIP_WITHOUT_MOUNT_NAMESPACE(job)                                                         \
  if (!(job))                                                                                     \
  GTEST_SKIP() << "needs root to mount a small tmpfs in a private mount namespace (unshare -m); " \
                  "the full-disk behaviour is then untested here"

// A self-checking scenario (scenario.h) succeeded: exit 0 and every rank printed
// "rank <r>: OK <mode>".
void expect_every_rank_ok(const JobResult& job, int ranks, const std::string& mode);

// The Open MPI series the tests run on: 4.1 (Debian 12) or 5.0 (Debian 13's root).
inline bool open_mpi_4_1() { return std::string(MPIMON_OMPI_VERSION).rfind("4.", 0) == 0; }
// The osc components of the Open MPI the tests run on: 4.1 has pt2pt, 5.0 removed it (its
// osc components are rdma, sm, ucx, portals4; docs/open-mpi-5.md, "What differs on 5.0").
inline bool osc_pt2pt_exists() { return open_mpi_4_1(); }
// The osc components a test runs its scenario on, one after the other: rdma and pt2pt (4.1),
// rdma (5.0).
inline std::vector<std::string> osc_components_to_test() {
  if (osc_pt2pt_exists()) return {"rdma", "pt2pt"};
  return {"rdma"};
}

// ROMIO's io component: romio321 in 4.1, romio341 in 5.0 (same priorities).
inline std::string romio_component() { return open_mpi_4_1() ? "romio321" : "romio341"; }
// ompio's fcoll components: 5.0 removed two_phase.
inline std::vector<std::string> fcoll_components() {
  if (open_mpi_4_1()) return {"individual", "vulcan", "dynamic", "dynamic_gen2", "two_phase"};
  return {"individual", "vulcan", "dynamic", "dynamic_gen2"};
}

// mpirun options that bind every rank to core 0 (several ranks on one core). 4.1:
// --cpu-set 0 --bind-to core; 5.0's PRRTE refuses that ("not enough slots": its cpu set
// holds one slot) and names it a PE list with overloading allowed.
inline std::vector<std::string> every_rank_on_core_zero() {
  if (open_mpi_4_1()) return {"--cpu-set", "0", "--bind-to", "core"};
  return {"--map-by", "pe-list=0:ordered:oversubscribe", "--bind-to", "core:overload-allowed"};
}

// mpirun options that place and bind the ranks by rankfile `file`. 5.0's PRRTE renamed
// --rankfile (--map-by rankfile:file=, with a warning) and binds nothing when the node
// is oversubscribed (as these 2-core machines are) unless overloading is allowed.
inline std::vector<std::string> rankfile_arguments(const std::string& file) {
  if (open_mpi_4_1()) return {"--rankfile", file};
  return {"--map-by", "rankfile:file=" + file, "--bind-to", "core:overload-allowed"};
}

}  // namespace mpimon::test

// In a test that needs osc/pt2pt: skips it, saying why, on an Open MPI without pt2pt.
#define MPIMON_SKIP_WITHOUT_OSC_PT2PT()                                              \
  if (!mpimon::test::osc_pt2pt_exists())                                             \
  GTEST_SKIP() << "Open MPI " MPIMON_OMPI_VERSION                                    \
                  " has no osc/pt2pt (removed in Open MPI 5.0): this test is about " \
                  "pt2pt's own protocol; its rdma variant runs"

// Open MPI's own profile tools: Debian 12's openmpi-bin (4.1) installs them, Debian 13's (5.0) does not.
#define MPIMON_SKIP_WITHOUT(tool)                                                   \
  if (!std::filesystem::exists(tool))                                               \
  GTEST_SKIP() << "Open MPI " MPIMON_OMPI_VERSION " as installed here has no " tool \
                  " (Debian 13's openmpi-bin ships none of Open MPI's profile tools; Debian 12's does)"

// LAMMPS (Debian's, not instrumented) in a test: skipped when it is not installed. It runs
// in the sanitizer build too since our job environment keeps Debian's exclusion of UCX
// (docs/development.md, "LAMMPS in the sanitizer pass").
// Debian's applications (LAMMPS, HDF5, PnetCDF, OpenCoarrays) are linked to Debian's
// Open MPI: a build for another installation (MPIMON_OMPI_PREFIX) cannot run them with its
// mpirun, and its set-up installs none of them (docs/install.md, "Your cluster's Open MPI").
#ifdef MPIMON_DEBIAN_APPLICATIONS_UNUSABLE
#define MPIMON_SKIP_DEBIAN_APPLICATION(name) GTEST_SKIP() << name << ": " MPIMON_DEBIAN_APPLICATIONS_UNUSABLE
#else
#define MPIMON_SKIP_DEBIAN_APPLICATION(name) static_cast<void>(0)
#endif
#define MPIMON_SKIP_WITHOUT_LAMMPS()                                                     \
  MPIMON_SKIP_DEBIAN_APPLICATION("LAMMPS");                                              \
  if (!std::filesystem::exists("/usr/bin/lmp") || !std::filesystem::exists(LAMMPS_MELT)) \
  GTEST_SKIP() << "lammps not installed"
