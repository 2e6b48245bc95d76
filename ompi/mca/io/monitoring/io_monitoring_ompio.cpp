// Everything the io adapter reads or writes in Open MPI's structs beyond the io module:
// ompio's file handle (its fbtl, fcoll and communicator), the frameworks ompio needs,
// Open MPI's communicator table. Open MPI 4.1.x layouts (common_ompio.h, fbtl.h): a 5.0
// adapter changes this file only (5.0's fbtl module adds fbtl_check_atomicity, which
// the copy below carries along).
//
// The file-system view: ompio hands every piece of file I/O to the file's fbtl module
// (f_fbtl), as a list of (offset, length) entries in f_io_array, before fbtl_posix's
// data sieving: these are ompio's requests, not system calls. There is one fbtl per
// file, so the file gets its own copy of the module with our four entry points, and the
// wrappers find the file through the handle's back pointer (f_fh).
#include "io_monitoring.h"
#include "io_monitoring_events.h"

#include <cstring>
#include <type_traits>
#include <utility>

// 4.1.x's common_ompio_print_queue.h (included by common_ompio.h) ends in END_C_DECLS
// without BEGIN_C_DECLS: in C++ that closes a brace nobody opened. Open it here, and
// include it first, alone, so that it closes this one.
// clang-format off
extern "C" {
#include <ompi/mca/common/ompio/common_ompio_print_queue.h>
// clang-format on
#include <ompi/mca/common/ompio/common_ompio.h>
#include <ompi/mca/fbtl/base/base.h>
#include <ompi/mca/fcoll/base/base.h>
#include <ompi/mca/fs/base/base.h>
#include <ompi/mca/sharedfp/base/base.h>
#include <opal/class/opal_pointer_array.h>

#include "runtime/runtime.h"

// Defined by libmpi (io_base_file_select.c) without a header.
extern "C" opal_mutex_t ompi_mpi_ompio_bootstrap_mutex;
// 4.1.x's mca_base_framework.h declares this without extern "C": the C symbol, by name.
extern "C" int framework_open(mca_base_framework_t* framework,
                              mca_base_open_flag_t flags) __asm__("mca_base_framework_open");

namespace mpimon::io {

struct MonitoredFile::FileSystem {
  mca_fbtl_base_module_t copy;         // what f_fbtl points to now (first: see real_fbtl)
  const mca_fbtl_base_module_t* real;  // what it pointed to
  MonitoredFile* file;
};

namespace ompio {

namespace {

ompio_file_t& handle_of(const ompi_file_t* fh) {
  return reinterpret_cast<mca_common_ompio_data_t*>(fh->f_io_selected_data)->ompio_fh;
}

// Our wrappers are reached only through f_fbtl pointing at a FileSystem's copy.
const MonitoredFile::FileSystem& file_system_of(const ompio_file_t* fh) {
  static_assert(std::is_standard_layout_v<MonitoredFile::FileSystem>);
  return *reinterpret_cast<const MonitoredFile::FileSystem*>(fh->f_fbtl);
}

// The entries of an operation the fbtl accepted (f_io_array is still the operation's).
void record_entries(MonitoredFile* file, const ompio_file_t* fh, mpi_io::Direction d) {
  ++file->file_system_operations;
  const mca_common_ompio_io_array_t* entries = fh->f_io_array;
  if (file->record != nullptr && recording()) [[likely]] {
    file->record->add_fs_operation(d, static_cast<size_t>(fh->f_num_of_io_entries), [entries](size_t i) {
      return std::pair<uint64_t, uint64_t>{static_cast<uint64_t>(reinterpret_cast<uintptr_t>(entries[i].offset)),
                                           entries[i].length};
    });
  }
  if (fs_events_listened()) [[unlikely]] {
    uint64_t bytes = 0;
    for (int i = 0; i < fh->f_num_of_io_entries; ++i) bytes += entries[i].length;
    const int64_t offset =
        fh->f_num_of_io_entries > 0 ? static_cast<int64_t>(reinterpret_cast<intptr_t>(entries[0].offset)) : -1;
    fs_event(fh->f_fh, d, offset, bytes, static_cast<uint64_t>(fh->f_num_of_io_entries));
  }
}

// The bytes of the operation's entries.
uint64_t entry_bytes(const ompio_file_t* fh) {
  uint64_t bytes = 0;
  for (int i = 0; i < fh->f_num_of_io_entries; ++i) bytes += fh->f_io_array[i].length;
  return bytes;
}

// An operation the fbtl failed: `failed` bytes it did not move, `moved` it did (docs/io.md,
// "Reached the file system"). It still accessed the file system (aggregator detection).
void record_failure(MonitoredFile* file, mpi_io::Direction d, uint64_t failed, uint64_t moved = 0) {
  ++file->file_system_operations;
  if (file->record != nullptr && recording()) file->record->add_fs_failure(d, failed, moved);
}

// What a blocking operation returned: an error (< 0), else the bytes it moved. A read
// may move fewer bytes than asked (the end of the file): it succeeded; a write that moved
// fewer failed by the rest (a full disk part-way through: fbtl_posix does not retry).
void record_result(MonitoredFile* file, const ompio_file_t* fh, mpi_io::Direction d, ssize_t rc) {
  if (rc < 0) [[unlikely]] {
    record_failure(file, d, entry_bytes(fh));
    return;
  }
  if (d == mpi_io::Direction::write) {
    // One entry (most operations): its length, without a pass over the list.
    const uint64_t bytes = fh->f_num_of_io_entries == 1 ? fh->f_io_array[0].length : entry_bytes(fh);
    if (static_cast<uint64_t>(rc) < bytes) [[unlikely]] {
      record_failure(file, d, bytes - static_cast<uint64_t>(rc), static_cast<uint64_t>(rc));
      return;
    }
  }
  record_entries(file, fh, d);
}

ssize_t monitored_preadv(ompio_file_t* fh) {
  const MonitoredFile::FileSystem& fs = file_system_of(fh);
  const ssize_t rc = fs.real->fbtl_preadv(fh);
  record_result(fs.file, fh, mpi_io::Direction::read, rc);
  return rc;
}

ssize_t monitored_pwritev(ompio_file_t* fh) {
  const MonitoredFile::FileSystem& fs = file_system_of(fh);
  const ssize_t rc = fs.real->fbtl_pwritev(fh);
  record_result(fs.file, fh, mpi_io::Direction::write, rc);
  return rc;
}

// Nonblocking: the result is the posting's (a failure at completion, inside the request,
// is not seen).
ssize_t monitored_ipreadv(ompio_file_t* fh, ompi_request_t* request) {
  const MonitoredFile::FileSystem& fs = file_system_of(fh);
  const ssize_t rc = fs.real->fbtl_ipreadv(fh, request);
  if (rc >= 0) [[likely]]
    record_entries(fs.file, fh, mpi_io::Direction::read);
  else
    record_failure(fs.file, mpi_io::Direction::read, entry_bytes(fh));
  return rc;
}

ssize_t monitored_ipwritev(ompio_file_t* fh, ompi_request_t* request) {
  const MonitoredFile::FileSystem& fs = file_system_of(fh);
  const ssize_t rc = fs.real->fbtl_ipwritev(fh, request);
  if (rc >= 0) [[likely]]
    record_entries(fs.file, fh, mpi_io::Direction::write);
  else
    record_failure(fs.file, mpi_io::Direction::write, entry_bytes(fh));
  return rc;
}

}  // namespace

int open_frameworks() {
  opal_mutex_lock(&ompi_mpi_ompio_bootstrap_mutex);
  int rc = framework_open(&ompi_fs_base_framework, static_cast<mca_base_open_flag_t>(0));
  if (rc == OMPI_SUCCESS) rc = framework_open(&ompi_fcoll_base_framework, static_cast<mca_base_open_flag_t>(0));
  if (rc == OMPI_SUCCESS) rc = framework_open(&ompi_fbtl_base_framework, static_cast<mca_base_open_flag_t>(0));
  if (rc == OMPI_SUCCESS) rc = framework_open(&ompi_sharedfp_base_framework, static_cast<mca_base_open_flag_t>(0));
  opal_mutex_unlock(&ompi_mpi_ompio_bootstrap_mutex);
  if (rc != OMPI_SUCCESS) return rc;
  // As the io base does (OPAL_ENABLE_PROGRESS_THREADS is 0 in Open MPI 4.1).
  if ((rc = mca_fs_base_find_available(false, true)) != OMPI_SUCCESS) return rc;
  if ((rc = mca_fcoll_base_find_available(false, true)) != OMPI_SUCCESS) return rc;
  if ((rc = mca_fbtl_base_find_available(false, true)) != OMPI_SUCCESS) return rc;
  return mca_sharedfp_base_find_available(false, true);
}

void wrap_file_system(ompi_file_t* fh, MonitoredFile& file) {
  ompio_file_t& handle = handle_of(fh);
  if (handle.f_fbtl == nullptr || file.file_system != nullptr) return;
  auto* fs = new MonitoredFile::FileSystem{*handle.f_fbtl, handle.f_fbtl, &file};
  fs->copy.fbtl_preadv = monitored_preadv;
  fs->copy.fbtl_pwritev = monitored_pwritev;
  if (fs->real->fbtl_ipreadv != nullptr) fs->copy.fbtl_ipreadv = monitored_ipreadv;
  if (fs->real->fbtl_ipwritev != nullptr) fs->copy.fbtl_ipwritev = monitored_ipwritev;
  file.file_system = fs;
  handle.f_fbtl = &fs->copy;
}

void release_file_system(MonitoredFile& file) {
  delete file.file_system;
  file.file_system = nullptr;
}

const char* fcoll_name(const ompi_file_t* fh) {
  const ompio_file_t& handle = handle_of(fh);
  return handle.f_fcoll_component != nullptr ? handle.f_fcoll_component->mca_component_name : "";
}

}  // namespace ompio

std::vector<uint64_t> live_context_ids() {
  const int size = opal_pointer_array_get_size(&ompi_mpi_communicators);
  std::vector<uint64_t> live((static_cast<size_t>(size) + 63) / 64, 0);
  for (int cid = 0; cid < size; ++cid)
    if (opal_pointer_array_get_item(&ompi_mpi_communicators, cid) != nullptr)
      live[cid / 64] |= uint64_t{1} << (cid % 64);
  return live;
}

}  // namespace mpimon::io
