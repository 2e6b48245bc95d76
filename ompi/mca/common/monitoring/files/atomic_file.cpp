#include "files/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <utility>

#include "formats/checksum.h"

namespace mpimon {
namespace {

// ---------------------------------------------------------------------------------------
// Paths

struct SplitPath {
  std::string folder;  // "." when the path has no folder part
  std::string name;    // the last component
};

SplitPath split_path(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Why `name` cannot be a file name in a folder, or "".
std::string bad_file_name(const std::string& name, int& code) {
  code = 0;
  if (name.empty() || name == "." || name == "..") {
    code = EISDIR;
    return std::string(std::strerror(code)) + " (the path names a folder, not a file)";
  }
  if (name.size() > NAME_MAX) {
    code = ENAMETOOLONG;
    return std::string(std::strerror(code)) + " (its file name has " + std::to_string(name.size()) +
           " bytes; at most " + std::to_string(NAME_MAX) + ")";
  }
  return {};
}

std::string host_tag() {
  static const std::string tag = [] {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return to_hex(fnv1a64(host) & 0xffffffffu, 8);
  }();
  return tag;
}

uint64_t random_64() {
  uint64_t value = 0;
  if (::getrandom(&value, sizeof value, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof value)) return value;
  // No entropy available yet (very early boot): still unpredictable enough to other
  // users, and O_EXCL makes a guessed name harmless anyway.
  static std::atomic<uint64_t> counter{0};
  const auto now = std::chrono::high_resolution_clock::now().time_since_epoch().count();
  return fnv1a64(std::to_string(now) + "/" + std::to_string(::getpid()) + "/" + std::to_string(++counter));
}

constexpr char kTemporaryPrefix[] = ".mpimon-";
constexpr char kTemporarySuffix[] = ".tmp";

// ---------------------------------------------------------------------------------------
// Named temporaries removed when the process is terminated by SIGTERM/SIGINT/SIGHUP
// (mpirun sends SIGTERM to every rank when one dies). SIGKILL cannot be caught: those
// are removed by the next run (remove_stale_temporaries).

constexpr int kSignalSlots = 8;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct SignalSlot {
  std::atomic<bool> used{false};
  int folder_fd = -1;
  char name[96] = {};
};
SignalSlot signal_slots[kSignalSlots];
struct sigaction saved_actions[3];
int slots_in_use = 0;
std::mutex signal_mutex;

void remove_all_slots() {
  for (SignalSlot& slot : signal_slots)
    if (slot.used.load(std::memory_order_acquire)) ::unlinkat(slot.folder_fd, slot.name, 0);
}

void remove_on_signal(int signal_number) {
  remove_all_slots();
  for (size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == signal_number) ::sigaction(signal_number, &saved_actions[i], nullptr);
  ::raise(signal_number);  // delivered to the previous disposition once we return
}

int take_signal_slot(int folder_fd, const std::string& name) {
  if (name.size() >= sizeof signal_slots[0].name) return -1;
  std::lock_guard lock(signal_mutex);
  for (int i = 0; i < kSignalSlots; ++i) {
    SignalSlot& slot = signal_slots[i];
    if (slot.used.load(std::memory_order_relaxed)) continue;
    slot.folder_fd = folder_fd;
    std::memcpy(slot.name, name.c_str(), name.size() + 1);
    slot.used.store(true, std::memory_order_release);
    static const bool at_exit = [] {
      // Open MPI ends a process whose peer died through exit() as often as by SIGTERM.
      std::atexit(remove_all_slots);
      return true;
    }();
    (void)at_exit;
    if (slots_in_use++ == 0) {
      struct sigaction ours {};
      ours.sa_handler = remove_on_signal;
      sigemptyset(&ours.sa_mask);
      for (size_t s = 0; s < std::size(kSignals); ++s) ::sigaction(kSignals[s], &ours, &saved_actions[s]);
    }
    return i;
  }
  return -1;  // more than kSignalSlots at once: removed by the next run instead
}

void release_signal_slot(int index) {
  if (index < 0) return;
  std::lock_guard lock(signal_mutex);
  signal_slots[index].used.store(false, std::memory_order_release);
  if (--slots_in_use == 0) {
    // Restore what was there, unless the application installed a handler of its own since.
    for (size_t s = 0; s < std::size(kSignals); ++s) {
      struct sigaction current {};
      ::sigaction(kSignals[s], nullptr, &current);
      if (current.sa_handler == remove_on_signal) ::sigaction(kSignals[s], &saved_actions[s], nullptr);
    }
  }
}

bool write_all(int fd, std::string_view data, int64_t offset, int& code) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = offset < 0 ? ::write(fd, p, left) : ::pwrite(fd, p, left, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      code = n < 0 ? errno : ENOSPC;  // a 0-byte write means no room left
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
    if (offset >= 0) offset += n;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::string folder_of(const std::string& path) { return split_path(path).folder; }

std::string new_temporary_name() {
  return kTemporaryPrefix + host_tag() + "-" + std::to_string(::getpid()) + "-" + to_hex(random_64(), 16) +
         kTemporarySuffix;
}

bool is_temporary_name(std::string_view name) {
  // .mpimon-<8 hex>-<pid>-<16 hex>.tmp
  const std::string_view prefix = kTemporaryPrefix, suffix = kTemporarySuffix;
  if (name.size() < prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return false;
  std::string_view middle = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  auto is_hex = [](std::string_view s, size_t n) {
    return s.size() == n && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  };
  const size_t first = middle.find('-'), last = middle.rfind('-');
  if (first == std::string_view::npos || first == last) return false;
  const std::string_view pid = middle.substr(first + 1, last - first - 1);
  return is_hex(middle.substr(0, first), 8) && is_hex(middle.substr(last + 1), 16) && !pid.empty() &&
         pid.size() <= 10 && pid.find_first_not_of("0123456789") == std::string_view::npos;
}

FileError NewFile::fail(const std::string& what, int code) const {
  return FileError{final_path_ + ": " + what + ": " + std::strerror(code), code};
}

std::string NewFile::temporary_description() const {
  if (!temporary_name_.empty()) return (folder_ == "/" ? "" : folder_) + "/" + temporary_name_;
  return "an unnamed temporary in " + folder_;
}

NewFile::NewFile(NewFile&& other) noexcept { *this = std::move(other); }

NewFile& NewFile::operator=(NewFile&& other) noexcept {
  if (this != &other) {
    discard();
    folder_fd_ = std::exchange(other.folder_fd_, -1);
    fd_ = std::exchange(other.fd_, -1);
    created_ = std::exchange(other.created_, false);
    inode_ = other.inode_;
    device_ = other.device_;
    bytes_written_ = other.bytes_written_;
    final_path_ = std::move(other.final_path_);
    folder_ = std::move(other.folder_);
    temporary_name_ = std::move(other.temporary_name_);
    signal_slot_ = std::exchange(other.signal_slot_, -1);
  }
  return *this;
}

namespace {

// The name part of `final_path` is one a file may have; else `error` says why not.
bool name_may_be_created(const std::string& final_path, const SplitPath& split, FileError& error) {
  int code = 0;
  if (const std::string why = bad_file_name(split.name, code); code != 0) {
    error = FileError{final_path + ": cannot create: " + why, code};
    return false;
  }
  return true;
}

}  // namespace

NewFile::~NewFile() { discard(); }

NewFile NewFile::create(const std::string& final_path, FileError& error, Temporary kind) {
  NewFile file;
  file.final_path_ = final_path;
  const SplitPath split = split_path(final_path);
  file.folder_ = split.folder;
  if (!name_may_be_created(final_path, split, error)) return file;
  if (split.folder.size() >= PATH_MAX) {
    error = FileError{final_path + ": cannot create: " + std::strerror(ENAMETOOLONG) + " (its folder has " +
                          std::to_string(split.folder.size()) + " bytes; at most " + std::to_string(PATH_MAX - 1) + ")",
                      ENAMETOOLONG};
    return file;
  }
  file.folder_fd_ = ::open(split.folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (file.folder_fd_ < 0) {
    error = file.fail("cannot open its folder " + split.folder, errno);
    return file;
  }
  file.open_temporary(kind, 0644, error);
  return file;
}

NewFile NewFile::create_in(int folder_fd, const std::string& final_path, mode_t mode, FileError& error) {
  NewFile file;
  file.final_path_ = final_path;
  const SplitPath split = split_path(final_path);
  file.folder_ = split.folder;
  if (!name_may_be_created(final_path, split, error)) return file;
  file.folder_fd_ = ::fcntl(folder_fd, F_DUPFD_CLOEXEC, 0);
  if (file.folder_fd_ < 0) {
    error = file.fail("cannot use its folder " + split.folder, errno);
    return file;
  }
  if (file.open_temporary(Temporary::unnamed_if_possible, mode, error) && ::fchmod(file.fd_, mode) != 0) {
    error = file.fail("cannot set the mode of " + file.temporary_description(), errno);
    file.discard();
  }
  return file;
}

bool NewFile::open_temporary(Temporary kind, mode_t mode, FileError& error) {
  NewFile& file = *this;
  const std::string& folder = folder_;
  if (kind == Temporary::unnamed_if_possible) {
    file.fd_ = ::openat(file.folder_fd_, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    if (file.fd_ < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
      error = file.fail("cannot create a temporary in " + folder, errno);
      return false;
    }
  }
  for (int attempt = 0; file.fd_ < 0 && attempt < 16; ++attempt) {
    const std::string name = new_temporary_name();
    file.fd_ = ::openat(file.folder_fd_, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (file.fd_ >= 0) {
      file.temporary_name_ = name;
      file.signal_slot_ = take_signal_slot(file.folder_fd_, name);
    } else if (errno != EEXIST) {
      error = file.fail("cannot create " + (folder == "/" ? "" : folder) + "/" + name, errno);
      return false;
    }
  }
  if (file.fd_ < 0) {
    error = file.fail("cannot create a temporary in " + folder, EEXIST);
    return false;
  }
  file.created_ = true;
  struct stat st {};
  if (::fstat(file.fd_, &st) == 0) {
    file.inode_ = st.st_ino;
    file.device_ = st.st_dev;
  }
  return true;
}

NewFile NewFile::join_unnamed(const std::string& final_path, int pid, int fd, uint64_t inode, uint64_t device,
                              FileError& error) {
  NewFile file;
  file.final_path_ = final_path;
  file.folder_ = split_path(final_path).folder;
  file.fd_ = ::open(("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd)).c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (file.fd_ >= 0 && (::fstat(file.fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 0 ||
                        static_cast<uint64_t>(st.st_ino) != inode || static_cast<uint64_t>(st.st_dev) != device)) {
    ::close(std::exchange(file.fd_, -1));
    errno = EXDEV;
  }
  if (file.fd_ < 0) {
    error =
        file.fail("cannot open the unnamed temporary of process " + std::to_string(pid) + " in " + file.folder_, errno);
    return file;
  }
  file.inode_ = inode;
  file.device_ = device;
  return file;
}

bool NewFile::name_for_others(FileError& error) {
  if (!temporary_name_.empty()) return true;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string named = new_temporary_name();
    if (::linkat(AT_FDCWD, ("/proc/self/fd/" + std::to_string(fd_)).c_str(), folder_fd_, named.c_str(),
                 AT_SYMLINK_FOLLOW) == 0) {
      temporary_name_ = named;
      signal_slot_ = take_signal_slot(folder_fd_, named);
      return true;
    }
    if (errno != EEXIST) break;
  }
  error = fail("cannot name " + temporary_description(), errno);
  return false;
}

NewFile NewFile::join(const std::string& final_path, const std::string& temporary_name, uint64_t inode,
                      FileError& error) {
  NewFile file;
  file.final_path_ = final_path;
  const SplitPath split = split_path(final_path);
  file.folder_ = split.folder;
  if (!is_temporary_name(temporary_name)) {
    error = FileError{final_path + ": '" + temporary_name + "' is not one of our temporaries", EINVAL};
    return file;
  }
  file.folder_fd_ = ::open(split.folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (file.folder_fd_ < 0) {
    error = file.fail("cannot open its folder " + split.folder, errno);
    return file;
  }
  file.temporary_name_ = temporary_name;
  file.fd_ = ::openat(file.folder_fd_, temporary_name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (file.fd_ < 0) {
    error = file.fail("cannot open " + file.temporary_description(), errno);
    return file;
  }
  struct stat st {};
  if (::fstat(file.fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      static_cast<uint64_t>(st.st_ino) != inode || st.st_nlink != 1) {
    error = file.fail(file.temporary_description() + " is not the temporary the first rank created", EPERM);
    ::close(std::exchange(file.fd_, -1));
    return file;
  }
  file.inode_ = inode;
  return file;
}

bool NewFile::write(std::string_view data, FileError& error) {
  int code = 0;
  if (!write_all(fd_, data, -1, code)) {
    error = fail("cannot write " + temporary_description(), code);
    return false;
  }
  bytes_written_ += data.size();
  return true;
}

bool NewFile::write_at(uint64_t offset, std::string_view data, FileError& error) {
  int code = 0;
  if (!write_all(fd_, data, static_cast<int64_t>(offset), code)) {
    error = fail("cannot write " + temporary_description() + " at offset " + std::to_string(offset), code);
    return false;
  }
  return true;
}

bool NewFile::verify_at(uint64_t offset, std::string_view expected, FileError& error) {
  std::string back(expected.size(), '\0');
  size_t done = 0;
  while (done < back.size()) {
    const ssize_t n = ::pread(fd_, back.data() + done, back.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = fail("cannot read back " + temporary_description(), n < 0 ? errno : EIO);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (back != expected) {
    error = fail("read back from " + temporary_description() + " differs from what was written", EIO);
    return false;
  }
  return true;
}

bool NewFile::sync(FileError& error) {
  if (::fsync(fd_) != 0) {
    error = fail("cannot sync " + temporary_description(), errno);
    return false;
  }
  return true;
}

bool NewFile::finish(FileError& error, int64_t expected_size) {
  if (!sync(error)) return false;
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    error = fail("cannot check " + temporary_description(), errno);
    return false;
  }
  const int64_t expected = expected_size < 0 ? static_cast<int64_t>(bytes_written_) : expected_size;
  if (static_cast<int64_t>(st.st_size) != expected) {
    error = FileError{final_path_ + ": " + temporary_description() + " holds " + std::to_string(st.st_size) +
                          " bytes instead of " + std::to_string(expected) + ": not published",
                      EIO};
    return false;
  }
  return true;
}

namespace {

// `path`'s file name if `path` is in `folder`, else "" and `error` says why.
std::string name_in_folder(const std::string& path, const std::string& folder, const std::string& what,
                           FileError& error) {
  const SplitPath split = split_path(path);
  int code = 0;
  if (const std::string why = bad_file_name(split.name, code); code != 0) {
    error = FileError{path + ": cannot " + what + ": " + why, code};
    return {};
  }
  if (split.folder != folder) {
    error = FileError{path + ": cannot " + what + ": not in the folder " + folder + " of its temporary", EXDEV};
    return {};
  }
  return split.name;
}

}  // namespace

bool NewFile::add_name(const std::string& path, FileError& error) {
  const std::string name = name_in_folder(path, folder_, "publish", error);
  if (name.empty()) return false;
  int rc;
  if (temporary_name_.empty()) {
    rc = ::linkat(AT_FDCWD, ("/proc/self/fd/" + std::to_string(fd_)).c_str(), folder_fd_, name.c_str(),
                  AT_SYMLINK_FOLLOW);
    if (rc != 0 && errno == ENOENT) rc = ::linkat(fd_, "", folder_fd_, name.c_str(), AT_EMPTY_PATH);  // no /proc
  } else {
    rc = ::linkat(folder_fd_, temporary_name_.c_str(), folder_fd_, name.c_str(), 0);
  }
  if (rc != 0) {
    const int err = errno;
    error = FileError{
        path + (err == EEXIST ? ": exists" : ": cannot publish " + temporary_description()) + ": " + std::strerror(err),
        err};
    return false;
  }
  return true;
}

void NewFile::remove_name(const std::string& path) {
  FileError ignored;
  const std::string name = name_in_folder(path, folder_, "remove", ignored);
  if (name.empty() || folder_fd_ < 0 || fd_ < 0) return;
  struct stat st {};
  if (::fstatat(folder_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || static_cast<uint64_t>(st.st_ino) != inode_)
    return;  // not (or no longer) ours
  // An unnamed file that was linked once cannot be linked again after its last name
  // goes: keep it under a hidden name first (a named temporary from now on).
  FileError ignored_naming;
  if (!name_for_others(ignored_naming)) return;
  ::unlinkat(folder_fd_, name.c_str(), 0);
}

bool NewFile::publish(const std::string& path, Existing existing, FileError& error) {
  const std::string name = name_in_folder(path, folder_, "publish", error);
  if (name.empty()) return false;
  if (existing == Existing::keep) {
    if (!add_name(path, error)) {
      if (error.code != EPERM && error.code != EOPNOTSUPP && error.code != ENOSYS && error.code != EMLINK) return false;
      if (temporary_name_.empty()) return false;
      // A file system without hard links: rename, still never replacing.
      if (::syscall(SYS_renameat2, folder_fd_, temporary_name_.c_str(), folder_fd_, name.c_str(), RENAME_NOREPLACE) !=
          0) {
        const int err = errno;
        if (err == EINVAL || err == ENOSYS) {
          error = FileError{path + ": the file system can neither link nor rename without replacing: the complete " +
                                "file is left as " + temporary_description(),
                            err};
          created_ = false;  // keep it: it is the only copy
        } else {
          error = FileError{path + (err == EEXIST ? ": exists" : ": cannot publish " + temporary_description()) + ": " +
                                std::strerror(err),
                            err};
        }
        return false;
      }
      error = {};
      temporary_name_.clear();  // renamed: nothing left to remove
    }
    discard();
    return true;
  }
  if (!name_for_others(error)) return false;  // rename() needs a name
  if (::renameat(folder_fd_, temporary_name_.c_str(), folder_fd_, name.c_str()) != 0) {
    error = FileError{path + ": cannot rename " + temporary_description() + " to it: " + std::strerror(errno), errno};
    return false;
  }
  temporary_name_.clear();
  discard();
  return true;
}

bool NewFile::close(FileError& error) {
  const int fd = std::exchange(fd_, -1);
  const bool closed = fd < 0 || ::close(fd) == 0;
  if (!closed) error = fail("cannot close " + temporary_description(), errno);
  discard();
  return closed;
}

void NewFile::discard() {
  if (created_ && !temporary_name_.empty() && folder_fd_ >= 0) ::unlinkat(folder_fd_, temporary_name_.c_str(), 0);
  created_ = false;
  release_signal_slot(std::exchange(signal_slot_, -1));
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (folder_fd_ >= 0) ::close(std::exchange(folder_fd_, -1));
}

int remove_stale_temporaries(const std::string& folder) {
  const int folder_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd < 0) return 0;
  DIR* dir = ::fdopendir(folder_fd);
  if (dir == nullptr) {
    ::close(folder_fd);
    return 0;
  }
  const std::string own_host = host_tag();
  const time_t day_ago = std::time(nullptr) - 24 * 3600;
  int removed = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (!is_temporary_name(name)) continue;
    const std::string_view middle = name.substr(sizeof kTemporaryPrefix - 1);
    const std::string_view host = middle.substr(0, 8);
    const size_t pid_end = middle.rfind('-');
    const pid_t pid = static_cast<pid_t>(std::stoll(std::string(middle.substr(9, pid_end - 9))));
    struct stat st {};
    if (::fstatat(folder_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid())
      continue;
    const bool dead_here = host == own_host && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
    if ((dead_here || st.st_mtime < day_ago) && ::unlinkat(folder_fd, entry->d_name, 0) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

}  // namespace mpimon
