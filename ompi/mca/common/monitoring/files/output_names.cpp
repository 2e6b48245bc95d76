#include "files/output_names.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

namespace mpimon {

std::string numbered_name(const std::string& name, int run_number) {
  return run_number == 0 ? name : name + "." + std::to_string(run_number);
}

std::string prof_file_name(const std::string& prefix, int run_number, int rank) {
  return numbered_name(prefix, run_number) + "." + std::to_string(rank) + ".prof";
}

int agree_on_run_number(const std::function<bool(int)>& taken,
                        const std::function<std::pair<int, int>(int)>& max_and_min, int from) {
  for (int candidate = from;;) {
    int mine = candidate;
    while (taken(mine)) ++mine;  // this rank's first free number from the candidate on
    const auto [highest, lowest] = max_and_min(mine);
    if (highest == lowest) return highest;  // free for every rank
    candidate = highest;                    // no number below it is free for everyone
  }
}

namespace {

// Anything at `path`, a dangling link included. Other errors (permissions, length) are
// "free": publishing there then fails and says why.
bool name_exists(const std::string& path) {
  struct stat st {};
  return ::fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

}  // namespace

int publish_run_outputs(std::vector<RunOutput>& outputs, const std::function<std::pair<int, int>(int)>& max_and_min,
                        int first) {
  auto taken = [&](int n) {
    for (const RunOutput& o : outputs)
      if (o.file != nullptr && o.file->is_open() && name_exists(o.name_for(n))) return true;
    return false;
  };
  int run = 0;
  for (int from = first;; from = run + 1) {
    run = agree_on_run_number(taken, max_and_min, from);
    std::vector<char> named(outputs.size(), 0);
    int clash = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      RunOutput& o = outputs[i];
      o.error = {};
      if (o.file == nullptr || !o.file->is_open()) continue;
      named[i] = o.file->add_name(o.name_for(run), o.error);
      if (o.error.code == EEXIST) clash = 1;
    }
    if (max_and_min(clash).first != 0) {  // a concurrent run took a name since we looked
      for (size_t i = 0; i < outputs.size(); ++i)
        if (named[i]) outputs[i].file->remove_name(outputs[i].name_for(run));
      continue;
    }
    for (RunOutput& o : outputs) {
      if (o.file == nullptr) continue;
      // Other failures, e.g. a file system without hard links: publish renames instead.
      if (o.error && o.file->publish(o.name_for(run), Existing::keep, o.error)) o.error = {};
      o.file->discard();  // removes the temporary's name, keeps the published one
    }
    return run;
  }
}

}  // namespace mpimon
