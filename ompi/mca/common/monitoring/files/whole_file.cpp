// The whole-file conveniences of files/atomic_file.h (write_new_file, write_file_atomically):
// one NewFile made, written, finished and published, for callers that have the whole
// content at once (the tools' outputs). Apart from atomic_file.cpp, which is the writer
// itself.
#include "files/atomic_file.h"

namespace mpimon {

namespace {

bool write_whole(const std::string& path, std::string_view content, Existing existing, FileError& error) {
  NewFile file =
      NewFile::create(path, error, existing == Existing::replace ? Temporary::named : Temporary::unnamed_if_possible);
  if (!error) file.write(content, error);
  if (!error) file.finish(error);
  if (!error) file.publish(path, existing, error);
  return !error;
}

}  // namespace

bool write_new_file(const std::string& path, std::string_view content, FileError& error) {
  return write_whole(path, content, Existing::keep, error);
}

bool write_file_atomically(const std::string& path, std::string_view content, FileError& error) {
  return write_whole(path, content, Existing::replace, error);
}

}  // namespace mpimon
