#include "readers/series_frame_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "readers/format_error.h"

namespace mpimon::series {

void scan_frame_file(const std::string& path, const std::function<void(const Frame&)>& on_frame,
                     std::vector<ScanIssue>& issues) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FormatError(path + ": cannot open: " + std::strerror(errno));
  std::string error;
  const auto read = [&](char* into, size_t n) -> size_t {
    for (;;) {
      const ssize_t got = ::read(fd, into, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      error = std::strerror(errno);
      return 0;
    }
  };
  try {
    scan_frame_source(read, on_frame, issues);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!error.empty()) throw FormatError(path + ": cannot read: " + error);
}

}  // namespace mpimon::series
