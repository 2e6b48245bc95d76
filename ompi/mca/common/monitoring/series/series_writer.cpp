#include "series/series_writer.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "files/atomic_file.h"
#include "formats/series_frame.h"
#include "formats/series_frame_scan.h"

namespace mpimon::series {

int64_t realtime_us() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000 + t.tv_nsec / 1000;
}

void live_totals(const Engine& engine, TotalsView& into) {
  into.clear();
  engine.counters().for_each_published([&](uint32_t key, const Counters& live) {
    into.push_back({Engine::peer_of(key), Engine::category_of(key), &live});
  });
  // The key order is the (peer, category) order.
  std::sort(into.begin(), into.end(), [](const TotalsEntry& a, const TotalsEntry& b) {
    return a.peer != b.peer ? a.peer < b.peer : a.category < b.category;
  });
}

std::string host_file_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "host";
  std::string safe(name);
  for (char& c : safe)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
          c == '_'))
      c = '_';
  if (safe == "." || safe == "..") safe = "host";
  return safe;
}

namespace {

// CPU time of the calling thread: what a snapshot costs the process, whatever else runs.
double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::string reason_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// A directory we may write our files into: ours, and nobody else can add or replace entries.
bool directory_is_ours(int fd, const std::string& path, std::string& error) {
  struct stat s {};
  if (::fstat(fd, &s) != 0) {
    error = reason_text("cannot examine", path);
    return false;
  }
  if (!S_ISDIR(s.st_mode) || s.st_uid != ::geteuid() || (s.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    error = path + ": not a directory of ours (owner, or writable by others)";
    return false;
  }
  return true;
}

}  // namespace

Created create_series_directory(const std::string& path, std::string& error) {
  // 0755 minus the umask, like every output (files/atomic_file.h): never writable by others, so
  // nobody else can plant or replace an entry in it.
  if (::mkdir(path.c_str(), 0755) != 0) {
    if (errno == EEXIST) return Created::exists;
    error = reason_text("cannot create", path);
    return Created::failed;
  }
  // Opened without following a link (in case the name was swapped meanwhile) and checked.
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    error = reason_text("cannot open", path);
    return Created::failed;
  }
  const bool ok = directory_is_ours(fd, path, error);
  ::close(fd);
  return ok ? Created::yes : Created::failed;
}

std::string start_frame(int32_t rank, const SeriesStart& start) {
  return encode_frame({FrameKind::start, rank, 0, realtime_us()}, format_start_payload(start));
}

namespace {

// Opens the existing host file `name` in the folder `dir` for appending: never creates,
// never follows a link; a plain file of ours with one name. -1 and errno ENOENT when
// there is none yet; -1 and `error` otherwise.
int open_existing_host_file(int dir, const std::string& name, const std::string& path, std::string& error) {
  const int fd = ::openat(dir, name.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) error = reason_text("cannot open", path);
    return -1;
  }
  struct stat s {};
  if (::fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) || s.st_uid != ::geteuid() || s.st_nlink != 1) {
    error = path + ": not a plain file of ours";
    ::close(fd);
    errno = EPERM;
    return -1;
  }
  return fd;
}

// The first process of the host: the file made whole by NewFile, its start frame in it.
// -1 and errno EEXIST when another process made it first.
int create_host_file(const std::string& path, const std::string& first_frame, std::string& error) {
  FileError failure;
  NewFile file = NewFile::create(path, failure);
  if (!failure) file.write(first_frame, failure);
  if (!failure) file.finish(failure);
  if (!failure) file.add_name(path, failure);
  if (failure) {
    if (failure.code != EEXIST) error = failure.message;
    errno = failure.code;
    return -1;
  }
  // Our own descriptor on the file, appending from now on like the others' (O_APPEND
  // belongs to the open file description, which the dup shares); NewFile's closes,
  // keeping the name.
  const int fd = ::fcntl(file.descriptor(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0 || ::fcntl(fd, F_SETFL, O_APPEND) != 0) {
    error = reason_text("cannot append to", path);
    if (fd >= 0) ::close(fd);
    errno = EIO;
    return -1;
  }
  file.discard();
  return fd;
}

}  // namespace

int open_host_file(const std::string& directory, const std::string& name, const std::string& first_frame,
                   std::string& error) {
  const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    error = reason_text("cannot open", directory);
    return -1;
  }
  const std::string path = directory + "/" + name;
  int fd = -1;
  if (directory_is_ours(dir, directory, error)) {
    // At most twice: the name appears between our look and our link only if another
    // process of the host made it meanwhile, and it never goes away.
    for (int attempt = 0; attempt < 2 && fd < 0 && error.empty(); ++attempt) {
      fd = open_existing_host_file(dir, name, path, error);
      if (fd >= 0) {
        if (::write(fd, first_frame.data(), first_frame.size()) != static_cast<ssize_t>(first_frame.size())) {
          error = reason_text("cannot write the start frame to", path);
          ::close(fd);
          fd = -1;
        }
      } else if (error.empty()) {
        fd = create_host_file(path, first_frame, error);
      }
    }
    if (fd < 0 && error.empty()) error = path + ": cannot open nor create it";
  }
  ::close(dir);
  return fd;
}

// ---------------------------------------------------------------------------------------
// Signals and exit: one writer per process.

namespace {

std::atomic<SeriesWriter*> active_writer{nullptr};
volatile sig_atomic_t signal_wake_fd = -1;
pid_t writer_pid = 0;
struct sigaction previous_sigterm {};
std::atomic<bool> sigterm_installed{false};

constexpr char kWakeSigterm = 't';
constexpr char kWakeQuit = 'q';
constexpr int64_t kHostPollMs = 5;  // how often a process that waits reads the host file

void on_sigterm(int signal) {
  const int saved_errno = errno;
  if (::getpid() != writer_pid) {
    // A forked child inherited us: it behaves as without us.
    ::sigaction(SIGTERM, &previous_sigterm, nullptr);
    ::raise(signal);  // delivered when this handler returns
  } else {
    const char byte = kWakeSigterm;
    [[maybe_unused]] const ssize_t n = ::write(signal_wake_fd, &byte, 1);  // async-signal-safe
  }
  errno = saved_errno;
}

void restore_sigterm() {
  if (sigterm_installed.exchange(false)) ::sigaction(SIGTERM, &previous_sigterm, nullptr);
}

void at_process_exit() {
  if (SeriesWriter* writer = active_writer.load()) writer->on_exit();
}

}  // namespace

SeriesWriter::SeriesWriter(int fd, std::string path, Options options, TotalsSource totals, LinesSource lines, Warn warn)
    : fd_(fd),
      path_(std::move(path)),
      options_(options),
      totals_(std::move(totals)),
      lines_(std::move(lines)),
      warn_(std::move(warn)) {}

SeriesWriter::~SeriesWriter() { abandon(); }

bool SeriesWriter::append(const std::string& frame) {
  // One write: appends of the processes sharing the file never interleave inside a frame.
  const ssize_t n = ::write(fd_, frame.data(), frame.size());
  if (n == static_cast<ssize_t>(frame.size())) return true;
  const std::string reason =
      n < 0 ? std::strerror(errno)
            : "short write (" + std::to_string(n) + " of " + std::to_string(frame.size()) + " bytes)";
  ++stats_.failed_writes;
  if (options_.report_failures && !warned_) {
    warned_ = true;
    warn_("time series " + path_ + ": cannot write a snapshot: " + reason +
          " (kept for the next snapshot; a torn frame is skipped by readers)");
  }
  return false;
}

uint64_t SeriesWriter::interval_at(int64_t time_us, bool round_up) const {
  const int64_t since = time_us - options_.job_start_us;
  int64_t k = since <= 0 ? 0 : since / options_.interval_us;
  if (round_up && since > 0 && since % options_.interval_us != 0) ++k;
  return std::max<uint64_t>(last_interval_ + 1, static_cast<uint64_t>(k));
}

void SeriesWriter::write_snapshot(FrameKind kind, uint64_t interval, std::string_view end_reason,
                                  const Snapshot* records, const std::vector<std::string>* lines) {
  const double began = thread_cpu_seconds();
  std::lock_guard lock(mutex_);
  if (closed_) return;
  const int64_t now = realtime_us();
  if (interval == 0) interval = interval_at(now, true);
  if (kind == FrameKind::snapshot && options_.host_processes > 1) {
    struct stat s {};
    if (::fstat(fd_, &s) == 0 && now - candidate_.time_us >= kHostWaitUs) {
      mark_ = candidate_;
      candidate_ = {now, s.st_size};
    }
  }
  if (records)
    totals_now_ = view_of(*records);
  else
    totals_(totals_now_);
  const std::string frame = encode_frame({kind, options_.rank, interval, now},
                                         encoder_.payload(totals_now_, lines ? *lines : lines_(), end_reason));
  if (append(frame)) {
    encoder_.commit();
    last_interval_ = interval;
    ++stats_.frames;
    stats_.bytes += frame.size();
  }
  const double seconds = thread_cpu_seconds() - began;
  stats_.seconds_total += seconds;
  stats_.seconds_max = std::max(stats_.seconds_max, seconds);
}

void SeriesWriter::start() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    warn_("time series " + path_ + ": cannot create the wake-up pipe: " + std::strerror(errno) + "; no snapshots");
    return;
  }
  wake_read_ = fds[0];
  wake_write_ = fds[1];
  pid_ = ::getpid();  // the process whose series this is (not a later fork's child)
  SeriesWriter* expected = nullptr;
  if (!active_writer.compare_exchange_strong(expected, this)) return;  // one per process
  writer_pid = pid_;
  signal_wake_fd = wake_write_;
  if (options_.catch_sigterm) {
    struct sigaction ours {};
    ours.sa_handler = on_sigterm;
    ours.sa_flags = SA_RESTART;
    ::sigfillset(&ours.sa_mask);
    struct sigaction before {};
    // A process that ignores SIGTERM does not die of it: nothing to save then.
    if (::sigaction(SIGTERM, nullptr, &before) == 0 && before.sa_handler != SIG_IGN) {
      previous_sigterm = before;
      if (::sigaction(SIGTERM, &ours, nullptr) == 0) sigterm_installed = true;
    }
  }
  if (options_.final_at_exit) {
    static std::once_flag registered;
    std::call_once(registered, [] { std::atexit(at_process_exit); });
  }
  // The thread starts with every signal blocked: signals go to the application's threads,
  // where the previous handlers expect them.
  sigset_t all, before;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  thread_ = std::thread([this] { run(); });
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  ::pthread_setname_np(thread_.native_handle(), "mpimon-series");
}

SeriesWriter::Wake SeriesWriter::drain_wake_pipe() {
  Wake wake;
  char bytes[16];
  for (ssize_t n; (n = ::read(wake_read_, bytes, sizeof bytes)) > 0;)
    for (ssize_t i = 0; i < n; ++i) {
      wake.quit = wake.quit || bytes[i] == kWakeQuit;
      wake.sigterm = wake.sigterm || bytes[i] == kWakeSigterm;
    }
  return wake;
}

bool SeriesWriter::wait_for_host_finals(std::chrono::steady_clock::time_point deadline) {
  if (options_.host_processes <= 1) return true;
  int reader = -1;
  off_t from = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return true;
    from = (realtime_us() - candidate_.time_us >= kHostWaitUs ? candidate_ : mark_).size;
    // A descriptor that reads (ours only appends): the same file through /proc, else by name.
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    reader = ::open(self.c_str(), O_RDONLY | O_CLOEXEC);
    if (reader < 0) reader = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (reader < 0) return true;  // cannot tell: the signal takes effect now
  std::vector<int32_t> ended;   // ranks with a final frame since `from`
  std::string bytes;
  bool quit = false;
  for (;;) {
    bytes.clear();
    char chunk[1 << 16];
    for (ssize_t n; (n = ::pread(reader, chunk, sizeof chunk, from + static_cast<off_t>(bytes.size()))) > 0;)
      bytes.append(chunk, static_cast<size_t>(n));
    std::vector<ScanIssue> issues;
    scan_frames(
        bytes,
        [&](const Frame& f) {
          if (f.header.kind == FrameKind::final && std::find(ended.begin(), ended.end(), f.header.rank) == ended.end())
            ended.push_back(f.header.rank);
        },
        issues);
    // A frame still being appended reads as a torn tail: read it again next time.
    size_t whole = bytes.size();
    for (const ScanIssue& issue : issues)
      if (issue.kind == ScanIssue::torn_tail) whole = issue.offset;
    from += static_cast<off_t>(whole);
    if (ended.size() >= static_cast<size_t>(options_.host_processes)) break;
    const int64_t left_us =
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left_us <= 0) break;
    pollfd wake{wake_read_, POLLIN, 0};
    if (::poll(&wake, 1, static_cast<int>(std::min<int64_t>(kHostPollMs, (left_us + 999) / 1000))) > 0 &&
        drain_wake_pipe().quit) {
      quit = true;
      break;
    }
  }
  ::close(reader);
  return !quit;
}

void SeriesWriter::run() {
  uint64_t next = interval_at(realtime_us(), false);
  if (next == 0) next = 1;
  bool sigterm_done = false;
  for (;;) {
    const int64_t target = options_.job_start_us + static_cast<int64_t>(next) * options_.interval_us;
    const int64_t wait_us = target - realtime_us();
    pollfd wake{wake_read_, POLLIN, 0};
    const int timeout_ms = wait_us <= 0 ? 0 : static_cast<int>(std::min<int64_t>((wait_us + 999) / 1000, INT_MAX));
    if (::poll(&wake, 1, timeout_ms) > 0) {
      const Wake woken = drain_wake_pipe();
      if (woken.sigterm && !sigterm_done) {  // before a quit: the signal must not be lost
        sigterm_done = true;
        const auto signalled = std::chrono::steady_clock::now();
        write_snapshot(FrameKind::final, 0, "signal 15", nullptr, nullptr);
        // Not before the host's other processes have theirs: the first death of a rank ends
        // the grace Open MPI gives the others (docs/time-series.md, "Signals").
        const bool go_on = wait_for_host_finals(signalled + std::chrono::microseconds(kHostWaitUs)) && !woken.quit;
        // Now what the signal would have done without us: the previous handler, or the
        // default action (termination). The process may survive it (a handler of its own):
        // then the snapshots go on.
        restore_sigterm();
        ::kill(::getpid(), SIGTERM);
        if (!go_on) return;
        std::lock_guard lock(mutex_);
        next = std::max(next, last_interval_ + 1);
        continue;
      }
      if (woken.quit) return;
    }
    const int64_t now = realtime_us();
    if (now < target) continue;
    {
      std::lock_guard lock(mutex_);
      next = interval_at(now, false);
    }
    write_snapshot(FrameKind::snapshot, next, {}, nullptr, nullptr);
    ++next;
  }
}

void SeriesWriter::stop_thread() {
  if (thread_.joinable()) {
    const char byte = kWakeQuit;
    [[maybe_unused]] const ssize_t n = ::write(wake_write_, &byte, 1);
    thread_.join();
  }
}

void SeriesWriter::finish(const Snapshot& records, const std::vector<std::string>& lines) {
  stop_thread();
  write_snapshot(FrameKind::final, 0, "finalize", &records, &lines);
  abandon();
}

void SeriesWriter::on_exit() {
  if (::getpid() != pid_) return;  // a forked child's exit: not this process's end
  stop_thread();
  write_snapshot(FrameKind::final, 0, "exit", nullptr, nullptr);
  abandon();
}

void SeriesWriter::abandon() {
  stop_thread();
  SeriesWriter* self = this;
  if (active_writer.compare_exchange_strong(self, nullptr)) {
    restore_sigterm();
    signal_wake_fd = -1;
  }
  std::lock_guard lock(mutex_);
  if (closed_) return;
  closed_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  // The wake-up pipe stays open: a signal handler running on another thread right now
  // may still write to it (closing could hand its number to another file).
}

WriterStats SeriesWriter::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace mpimon::series
