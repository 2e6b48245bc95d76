// Slurm's filename patterns in output names (docs/slurm.md "Where files go"): the job file
// (pml_monitoring_job_file, hence the series folder `<job file>.series`) and the per-rank
// dump prefix (pml_monitoring_filename) may carry the letters Slurm's own --output uses,
// expanded here, in one place, before the re-run rule (files/output_names.h) applies.
//
//   %j  the job id (SLURM_JOB_ID; an array task has its own)    outside Slurm: nojob
//   %s  the step: SLURM_STEP_ID under srun; under mpirun inside   outside Slurm: nostep
//       an allocation, mpirun's own job (its PMIx namespace, the same for all its ranks;
//       Slurm's step ids differ between its ranks); the batch script's: batch
//   %J  %j.%s
//   %u  the user's name                                           everywhere
//   %x  the job name (SLURM_JOB_NAME)                             outside Slurm: noname
//   %N  the first node of the job (of SLURM_JOB_NODELIST)        outside Slurm: nonode
//   %%  a literal %
//
// Every rank of a step gets the same values from Slurm, so every rank expands a name to
// the same text (Slurm's %N means "this node" in --output; here it is the job's first
// node, the same for every rank). A value never adds a folder: its '/' become '_'. Pure: the environment is given as a
// function.
#pragma once

#include <functional>
#include <string>

namespace mpimon {

struct NameContext {
  std::string job_id, step_id, user, job_name, first_node;
  bool in_slurm_job = false;  // SLURM_JOB_ID was set
};

// The values of the letters from an environment (`getenv`: nullptr when unset) and the
// user's name.
NameContext name_context(const std::function<const char*(const char*)>& getenv, const std::string& user);

// The first host of a Slurm host list: "node[01-04,7],gpu1" -> "node01". "" if empty.
std::string first_host(const std::string& host_list);

// `pattern` with its letters replaced. Throws std::invalid_argument naming the pattern and
// the letter for an unknown letter (or a width such as %3j) or a % at the end.
std::string expand_name_pattern(const std::string& pattern, const NameContext& context);

// pml_monitoring_job_file's default: mpimon-job.txt; inside a Slurm job
// mpimon-job-%j.%s.txt, so that array tasks, jobs and steps sharing a folder never collide.
std::string default_job_file_pattern(const NameContext& context);

}  // namespace mpimon
