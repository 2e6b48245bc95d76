#include "analyses/mpi_io/file_registry.h"

#include <algorithm>

namespace mpimon::mpi_io {

FileRecord* FileRegistry::open(FileIdentity identity) {
  std::lock_guard lock(mutex_);
  open_.emplace_back(std::move(identity), threaded_);
  return &open_.back();
}

void FileRegistry::close(FileRecord* record) {
  std::lock_guard lock(mutex_);
  for (auto it = communicators_.begin(); it != communicators_.end();) {
    if (it->second == record) {
      file_communicators_[it->first / 64].fetch_and(~(uint64_t{1} << (it->first % 64)), std::memory_order_relaxed);
      it = communicators_.erase(it);
    } else {
      ++it;
    }
  }
  const auto self = std::find_if(open_.begin(), open_.end(), [&](const FileRecord& r) { return &r == record; });
  if (self == open_.end()) return;
  const uint64_t key = record->identity().hash();
  const auto twin = closed_by_identity_.find(key);
  if (twin != closed_by_identity_.end() && twin->second->identity().name == record->identity().name) {
    twin->second->merge(record->totals());
    open_.erase(self);
    return;
  }
  closed_.splice(closed_.end(), open_, self);
  closed_by_identity_.emplace(key, &closed_.back());
}

void FileRegistry::bind_object(const void* file_object, FileRecord* record) {
  std::lock_guard lock(mutex_);
  objects_[file_object] = record;
}

void FileRegistry::unbind_object(const void* file_object) {
  std::lock_guard lock(mutex_);
  objects_.erase(file_object);
}

bool FileRegistry::add_communicator(uint32_t context_id, FileRecord* record) {
  if (context_id >= kCommunicatorLimit) return false;
  std::lock_guard lock(mutex_);
  communicators_[context_id] = record;
  file_communicators_[context_id / 64].fetch_or(uint64_t{1} << (context_id % 64), std::memory_order_relaxed);
  return true;
}

void FileRegistry::record_shuffle(uint32_t context_id, int32_t peer, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const auto it = communicators_.find(context_id);
  if (it != communicators_.end()) it->second->add_shuffle(peer, bytes);
}

void FileRegistry::add_switch(Switch window_switch) {
  std::lock_guard lock(window_mutex_);
  switches_.push_back(window_switch);
  if (window_depth_ > 0) window_switch(true);
}

void FileRegistry::enter_communicating_call() {
  std::lock_guard lock(window_mutex_);
  if (window_depth_++ == 0)
    for (const Switch s : switches_) s(true);
}

void FileRegistry::leave_communicating_call() {
  std::lock_guard lock(window_mutex_);
  if (--window_depth_ == 0)
    for (const Switch s : switches_) s(false);
}

size_t FileRegistry::open_files() const {
  std::lock_guard lock(mutex_);
  return open_.size();
}

size_t FileRegistry::closed_files() const {
  std::lock_guard lock(mutex_);
  return closed_.size();
}

}  // namespace mpimon::mpi_io
