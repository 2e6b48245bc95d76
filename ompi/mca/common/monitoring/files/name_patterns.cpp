#include "files/name_patterns.h"

#include <stdexcept>

namespace mpimon {

namespace {

// A value never adds a folder to a name: '/' becomes '_'.
std::string value_or(const char* value, const std::string& fallback) {
  std::string text = value != nullptr && *value != '\0' ? std::string(value) : fallback;
  for (char& c : text)
    if (c == '/') c = '_';
  return text;
}

}  // namespace

NameContext name_context(const std::function<const char*(const char*)>& getenv, const std::string& user) {
  NameContext c;
  const char* job = getenv("SLURM_JOB_ID");
  if (job == nullptr || *job == '\0') job = getenv("SLURM_JOBID");  // older Slurm, still set
  c.in_slurm_job = job != nullptr && *job != '\0';
  c.user = value_or(user.c_str(), "nouser");
  if (!c.in_slurm_job) {
    c.job_id = "nojob";
    c.step_id = "nostep";
    c.job_name = "noname";
    c.first_node = "nonode";
    return c;
  }
  c.job_id = value_or(job, "nojob");
  // The step. Ranks started by srun directly (Slurm's PMIx namespace slurm.pmix.<job>.<step>,
  // or no PMIx at all) share Slurm's step id. Ranks started by mpirun do not: those on
  // mpirun's own node run in the batch step (no SLURM_STEP_ID), the others under the step
  // of the srun that started Open MPI's daemons. Their one common "step" is mpirun's own
  // job: Open MPI's PMIx namespace, the same for every rank of one mpirun and different
  // for each mpirun of the job. A process of the batch script itself: Slurm's "batch".
  const char* space = getenv("PMIX_NAMESPACE");
  const bool by_mpirun = space != nullptr && *space != '\0' && std::string(space).rfind("slurm.pmix.", 0) != 0;
  if (by_mpirun)
    c.step_id = value_or(space, "batch");
  else
    c.step_id = value_or(getenv("SLURM_STEP_ID"), value_or(getenv("SLURM_STEPID"), "batch"));
  c.job_name = value_or(getenv("SLURM_JOB_NAME"), "noname");
  c.first_node = value_or(first_host(value_or(getenv("SLURM_JOB_NODELIST"), "")).c_str(), "nonode");
  return c;
}

std::string first_host(const std::string& host_list) {
  // The first comma outside brackets ends the first entry; in it, a bracket's first range
  // gives the first host: "node[01-04,7]" -> "node" + "01".
  std::string host;
  for (size_t i = 0; i < host_list.size(); ++i) {
    const char c = host_list[i];
    if (c == ',') break;
    if (c != '[') {
      host += c;
      continue;
    }
    const size_t close = host_list.find(']', i);
    if (close == std::string::npos) return host;  // malformed: what came before
    const std::string inside = host_list.substr(i + 1, close - i - 1);
    host += inside.substr(0, inside.find_first_of(",-"));
    i = close;
  }
  return host;
}

std::string expand_name_pattern(const std::string& pattern, const NameContext& context) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 == pattern.size())
      throw std::invalid_argument("'" + pattern + "' ends with a lone % (write %% for a literal %)");
    const char letter = pattern[++i];
    switch (letter) {
      case 'j':
        out += context.job_id;
        break;
      case 's':
        out += context.step_id;
        break;
      case 'J':
        out += context.job_id + "." + context.step_id;
        break;
      case 'u':
        out += context.user;
        break;
      case 'x':
        out += context.job_name;
        break;
      case 'N':
        out += context.first_node;
        break;
      case '%':
        out += '%';
        break;
      default:
        throw std::invalid_argument("'" + pattern + "': unknown pattern %" + std::string(1, letter) +
                                    " (mpimon knows %j job id, %s step, %J job.step, %u user, %x job name, "
                                    "%N first node, %% a literal %; no widths)");
    }
  }
  return out;
}

std::string default_job_file_pattern(const NameContext& context) {
  return context.in_slurm_job ? "mpimon-job-%j.%s.txt" : "mpimon-job.txt";
}

}  // namespace mpimon
