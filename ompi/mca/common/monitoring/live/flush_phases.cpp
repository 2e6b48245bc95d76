#include "live/flush_phases.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <utility>

#include "files/output_names.h"
#include "formats/prof_format.h"

namespace mpimon {

void FlushPhases::set_prefix(std::string_view prefix) {
  std::lock_guard lock(mutex_);
  prefix_ = std::string(prefix);
}

FileError FlushPhases::prepare(const Snapshot& now, int world_rank, bool split_internal) {
  std::lock_guard lock(mutex_);
  if (pending_error_) {
    FileError error = std::exchange(pending_error_, {});
    error.message = "the previous flush was not written: " + error.message;
    return error;
  }
  if (prefix_.empty()) {
    prepared_.discard();
    prepared_path_.clear();
    return {};
  }
  const std::string path = prof_file_name(prefix_, 0, world_rank);
  std::string text = format_prof(world_rank, snapshot_difference(now, last_flush_), split_internal);
  FileError error;
  if (prepared_.is_open() && path == prepared_path_ && text == prepared_text_) return error;  // already written
  prepared_.discard();
  prepared_path_.clear();
  struct stat st {};
  if (::fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    return FileError{path + ": exists: a flush never overwrites (use a new prefix)", EEXIST};
  NewFile file = NewFile::create(path, error);
  if (!error) file.write(text, error);
  if (!error) file.finish(error);
  if (error) return error;
  prepared_ = std::move(file);
  prepared_path_ = path;
  prepared_text_ = std::move(text);
  prepared_now_ = now;
  return error;
}

FileError FlushPhases::commit() {
  std::lock_guard lock(mutex_);
  FileError error;
  if (!prepared_.is_open()) return error;  // no prefix: no file, the phase goes on
  if (prepared_.publish(prepared_path_, Existing::keep, error)) {
    last_flush_ = std::move(prepared_now_);
  } else {
    pending_error_ = error;
    prepared_.discard();
  }
  prepared_path_.clear();
  prepared_text_.clear();
  return error;
}

void FlushPhases::drop_prepared() {
  std::lock_guard lock(mutex_);
  prepared_.discard();
  prepared_path_.clear();
  prepared_text_.clear();
}

}  // namespace mpimon
