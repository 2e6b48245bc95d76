// The files of one process, open and closed, and which communicators belong to them.
// Pure C++ (no Open MPI header).
//
// Records. The io adapter opens a record when MPI_File_open succeeds and closes it after
// MPI_File_close. A closed record is kept for the end-of-job files, merged with an earlier
// closed record of the same identity (name and members, FileIdentity): reopening a file
// 10 000 times keeps one record. Memory grows with the distinct files a process opened,
// never with calls.
//
// The shuffle rule (docs/io.md). The communicators an MPI-IO library creates while
// MPI_File_open runs (ompio's and ROMIO's duplicate of the file's communicator) belong to
// the file until it is closed. A point-to-point message with a tag >= 0 that this process
// sends on such a communicator is the file's collective-I/O shuffle (category io_shuffle),
// not the application's traffic; negative tags there stay internal (collectives). The PML
// adapter asks only while some MPI-IO call that may communicate is running (the window):
// the registry calls its switches when the first such call begins and when the last ends,
// so sends outside MPI-IO calls take the unchanged hot path.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "analyses/mpi_io/file_record.h"
#include "analyses/window_sync.h"  // SyncClock

namespace mpimon::mpi_io {

class FileRegistry {
 public:
  void set_threaded(bool threaded) { threaded_ = threaded; }
  bool threaded() const { return threaded_; }
  // The clock of the records' time (ticks; seconds_per_tick() converts).
  const SyncClock& clock() const { return clock_; }

  // A new record for a file that was just opened (stable address until close()).
  FileRecord* open(FileIdentity identity);
  // The file was closed: its communicators no longer belong to it, and its record is kept
  // (merged with a closed twin of the same identity).
  void close(FileRecord* record);

  // The open file an MPI_File handle names (performance variables bound to files): set
  // when the open succeeded, cleared before close(). `visit(const FileRecord&)` runs under
  // the registry's lock; false when the handle names no open file.
  void bind_object(const void* file_object, FileRecord* record);
  void unbind_object(const void* file_object);
  template <typename Visit>
  bool with_record_of(const void* file_object, Visit&& visit) const {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(file_object);
    if (it == objects_.end()) return false;
    visit(static_cast<const FileRecord&>(*it->second));
    return true;
  }

  // Context ids of communicators that belong to a file. Ids at or beyond the limit are
  // never tagged (their shuffle stays in the application's traffic; add_communicator
  // returns false so that the adapter can say so once).
  static constexpr uint32_t kCommunicatorLimit = 1u << 16;
  bool add_communicator(uint32_t context_id, FileRecord* record);
  bool is_file_communicator(uint32_t context_id) const noexcept {
    return context_id < kCommunicatorLimit &&
           ((file_communicators_[context_id / 64].load(std::memory_order_relaxed) >> (context_id % 64)) & 1) != 0;
  }
  // A shuffle message on a file's communicator: added to that file's per-peer totals.
  void record_shuffle(uint32_t context_id, int32_t peer, uint64_t bytes);

  // The window. Switches are called with true when the first MPI-IO call that may
  // communicate begins and with false when the last one ends (under the registry's window
  // lock: they must only swap function pointers).
  using Switch = void (*)(bool active);
  void add_switch(Switch window_switch);
  void enter_communicating_call();
  void leave_communicating_call();

  // Every record, open ones first (in opening order), then closed ones; under the lock
  // (the time series reads while the application runs).
  template <typename Visit>
  void for_each(Visit&& visit) const {
    std::lock_guard lock(mutex_);
    for (const FileRecord& r : open_) visit(r);
    for (const FileRecord& r : closed_) visit(r);
  }
  size_t open_files() const;
  size_t closed_files() const;

 private:
  bool threaded_ = false;
  SyncClock clock_;
  mutable std::mutex mutex_;
  std::list<FileRecord> open_, closed_;  // std::list: addresses stay valid
  std::unordered_map<uint64_t, FileRecord*> closed_by_identity_;
  std::unordered_map<uint32_t, FileRecord*> communicators_;  // context id -> its file
  std::unordered_map<const void*, FileRecord*> objects_;     // MPI_File -> its open file
  std::atomic<uint64_t> file_communicators_[kCommunicatorLimit / 64] = {};

  std::mutex window_mutex_;
  std::vector<Switch> switches_;
  int window_depth_ = 0;
};

}  // namespace mpimon::mpi_io
