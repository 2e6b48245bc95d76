// MPI-IO programs for the io layer's tests (io_test.cpp). Each writes into its working
// directory, sends nothing itself, and prints "rank <r>: OK <mode>" when its own checks
// (data read back, error classes) pass.
//
//   io_patterns write_at_all <bytes>
//       every rank writes <bytes> at offset rank x <bytes> of out.dat (MPI_COMM_WORLD),
//       with one MPI_File_write_at_all (rank 0 then checks the file with POSIX calls).
//   io_patterns read_at_all <bytes>
//       every rank writes its block of in.dat with POSIX calls, then reads it back with one
//       MPI_File_read_at_all.
//   io_patterns kinds [blocking-collectives]
//       every data-access function once on kinds.dat, each with its own size (MPI_BYTE):
//       write_at 1, iwrite_at 2, write_at_all 4, iwrite_at_all 8, write_at_all_begin 16,
//       write 32, iwrite 64, write_all 128, iwrite_all 256, write_all_begin 512,
//       write_shared 1024, iwrite_shared 2048, write_ordered 4096, write_ordered_begin
//       8192; then the same reads; metadata: set_view 2, sync 1, set_size 1, preallocate
//       1, seek 2, seek_shared 2. With blocking-collectives: without the nonblocking
//       collective ones (iwrite_at_all, iwrite_all, iread_at_all, iread_all), which crash
//       inside Open MPI 4.1.4's romio321 (a NULL function in MPIOI_File_iwrite_all) with
//       or without mpimon.
//   io_patterns split
//       MPI_Comm_split by rank parity; each half opens half.<color>.dat on its
//       communicator and writes 4096 bytes per rank with write_at_all.
//   io_patterns many <files>
//       <files> files many.<i>.dat on MPI_COMM_WORLD, 8 bytes per rank each (write_at_all).
//   io_patterns reopen <times>
//       reopen.dat opened, written (write_at, 8 bytes at rank x 8) and closed <times> times.
//   io_patterns pvars
//       the io_monitoring_* performance variables on pvar.dat: handles bound to the file
//       (and io_monitoring_messages_size to MPI_COMM_WORLD) started after the open; every
//       rank writes 8 bytes twice (write_at) and 4096 bytes once (write_at_all); each rank
//       checks the values (the aggregator is rank 0), that MPI_FILE_NULL is refused and
//       that a handle fails its reads once the file is closed.
//   io_patterns errors
//       calls that fail, printing "rank <r>: <what> -> <error class>": a missing folder, a
//       missing file opened read-only, a bad access mode, a write to a read-only file, a
//       file removed while open (writes still succeed: POSIX), then opened again.
//   io_patterns full
//       on a full disk (the test mounts one at full/): full/out.dat opened on
//       MPI_COMM_WORLD, 65536 bytes per rank with write_at_all, then with write_at, close,
//       printing "rank <r>: <what> -> <error class>" as errors does.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int rank = 0, size = 1;
std::string failures;

void check(bool ok, const std::string& what) {
  if (!ok) failures += " [" + what + "]";
}

void check_rc(int rc, const std::string& what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    failures += " [" + what + ": " + text + "]";
  }
}

MPI_File open(MPI_Comm comm, const std::string& name, int amode) {
  MPI_File fh = MPI_FILE_NULL;
  check_rc(MPI_File_open(comm, name.c_str(), amode, MPI_INFO_NULL, &fh), "open " + name);
  return fh;
}

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>('a' + (i + seed) % 26);
  return data;
}

int write_at_all(size_t bytes) {
  const std::vector<char> out = pattern(bytes, rank);
  MPI_File fh = open(MPI_COMM_WORLD, "out.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY);
  check_rc(MPI_File_write_at_all(fh, static_cast<MPI_Offset>(rank * bytes), out.data(), static_cast<int>(bytes),
                                 MPI_BYTE, MPI_STATUS_IGNORE),
           "write_at_all");
  check_rc(MPI_File_close(&fh), "close");
  if (rank == 0) {
    std::vector<char> file(size * bytes + 1);
    FILE* in = std::fopen("out.dat", "rb");
    const size_t n = in != nullptr ? std::fread(file.data(), 1, file.size(), in) : 0;
    if (in != nullptr) std::fclose(in);
    check(n == size * bytes, "the file holds every rank's block");
    for (int r = 0; r < size && n == size * bytes; ++r)
      check(std::vector<char>(file.begin() + r * bytes, file.begin() + (r + 1) * bytes) == pattern(bytes, r),
            "block of rank " + std::to_string(r));
  }
  return 0;
}

int read_at_all(size_t bytes) {
  const std::vector<char> out = pattern(bytes, rank);
  if (rank == 0) std::fclose(std::fopen("in.dat", "wb"));
  MPI_Barrier(MPI_COMM_WORLD);
  FILE* file = std::fopen("in.dat", "r+b");
  check(file != nullptr && std::fseek(file, static_cast<long>(rank * bytes), SEEK_SET) == 0 &&
            std::fwrite(out.data(), 1, bytes, file) == bytes,
        "POSIX write");
  if (file != nullptr) std::fclose(file);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<char> in(bytes);
  MPI_File fh = open(MPI_COMM_WORLD, "in.dat", MPI_MODE_RDONLY);
  check_rc(MPI_File_read_at_all(fh, static_cast<MPI_Offset>(rank * bytes), in.data(), static_cast<int>(bytes), MPI_BYTE,
                                MPI_STATUS_IGNORE),
           "read_at_all");
  check_rc(MPI_File_close(&fh), "close");
  check(in == out, "read back what was written");
  return 0;
}

void wait(MPI_Request& request, const char* what) { check_rc(MPI_Wait(&request, MPI_STATUS_IGNORE), what); }

int kinds(bool nonblocking_collectives) {
  const MPI_Offset block = 65536;  // each rank's region for explicit offsets and its individual pointer
  const MPI_Offset base = rank * block;
  std::vector<char> buffer(8192, 'k');
  char* b = buffer.data();
  MPI_Request r;
  MPI_File fh = open(MPI_COMM_WORLD, "kinds.dat", MPI_MODE_CREATE | MPI_MODE_RDWR);
  check_rc(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view");
  check_rc(MPI_File_preallocate(fh, size * block), "preallocate");
  for (const bool write : {true, false}) {
    // Explicit offsets.
    if (write) {
      check_rc(MPI_File_write_at(fh, base, b, 1, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
      check_rc(MPI_File_iwrite_at(fh, base + 1, b, 2, MPI_BYTE, &r), "iwrite_at");
      wait(r, "iwrite_at wait");
      check_rc(MPI_File_write_at_all(fh, base + 3, b, 4, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
      if (nonblocking_collectives) {
        check_rc(MPI_File_iwrite_at_all(fh, base + 7, b, 8, MPI_BYTE, &r), "iwrite_at_all");
        wait(r, "iwrite_at_all wait");
      }
      check_rc(MPI_File_write_at_all_begin(fh, base + 15, b, 16, MPI_BYTE), "write_at_all_begin");
      check_rc(MPI_File_write_at_all_end(fh, b, MPI_STATUS_IGNORE), "write_at_all_end");
    } else {
      check_rc(MPI_File_read_at(fh, base, b, 1, MPI_BYTE, MPI_STATUS_IGNORE), "read_at");
      check_rc(MPI_File_iread_at(fh, base + 1, b, 2, MPI_BYTE, &r), "iread_at");
      wait(r, "iread_at wait");
      check_rc(MPI_File_read_at_all(fh, base + 3, b, 4, MPI_BYTE, MPI_STATUS_IGNORE), "read_at_all");
      if (nonblocking_collectives) {
        check_rc(MPI_File_iread_at_all(fh, base + 7, b, 8, MPI_BYTE, &r), "iread_at_all");
        wait(r, "iread_at_all wait");
      }
      check_rc(MPI_File_read_at_all_begin(fh, base + 15, b, 16, MPI_BYTE), "read_at_all_begin");
      check_rc(MPI_File_read_at_all_end(fh, b, MPI_STATUS_IGNORE), "read_at_all_end");
    }
    // The individual file pointer, from base + 31 on.
    check_rc(MPI_File_seek(fh, base + 31, MPI_SEEK_SET), "seek");
    if (write) {
      check_rc(MPI_File_write(fh, b, 32, MPI_BYTE, MPI_STATUS_IGNORE), "write");
      check_rc(MPI_File_iwrite(fh, b, 64, MPI_BYTE, &r), "iwrite");
      wait(r, "iwrite wait");
      check_rc(MPI_File_write_all(fh, b, 128, MPI_BYTE, MPI_STATUS_IGNORE), "write_all");
      if (nonblocking_collectives) {
        check_rc(MPI_File_iwrite_all(fh, b, 256, MPI_BYTE, &r), "iwrite_all");
        wait(r, "iwrite_all wait");
      }
      check_rc(MPI_File_write_all_begin(fh, b, 512, MPI_BYTE), "write_all_begin");
      check_rc(MPI_File_write_all_end(fh, b, MPI_STATUS_IGNORE), "write_all_end");
    } else {
      check_rc(MPI_File_read(fh, b, 32, MPI_BYTE, MPI_STATUS_IGNORE), "read");
      check_rc(MPI_File_iread(fh, b, 64, MPI_BYTE, &r), "iread");
      wait(r, "iread wait");
      check_rc(MPI_File_read_all(fh, b, 128, MPI_BYTE, MPI_STATUS_IGNORE), "read_all");
      if (nonblocking_collectives) {
        check_rc(MPI_File_iread_all(fh, b, 256, MPI_BYTE, &r), "iread_all");
        wait(r, "iread_all wait");
      }
      check_rc(MPI_File_read_all_begin(fh, b, 512, MPI_BYTE), "read_all_begin");
      check_rc(MPI_File_read_all_end(fh, b, MPI_STATUS_IGNORE), "read_all_end");
    }
    // The shared file pointer, after every rank's region.
    if (write) {
      check_rc(MPI_File_seek_shared(fh, size * block, MPI_SEEK_SET), "seek_shared");
      check_rc(MPI_File_write_shared(fh, b, 1024, MPI_BYTE, MPI_STATUS_IGNORE), "write_shared");
      check_rc(MPI_File_iwrite_shared(fh, b, 2048, MPI_BYTE, &r), "iwrite_shared");
      wait(r, "iwrite_shared wait");
      MPI_Barrier(MPI_COMM_WORLD);  // the shared pointer moved by every rank's shared writes
      check_rc(MPI_File_write_ordered(fh, b, 4096, MPI_BYTE, MPI_STATUS_IGNORE), "write_ordered");
      check_rc(MPI_File_write_ordered_begin(fh, b, 8192, MPI_BYTE), "write_ordered_begin");
      check_rc(MPI_File_write_ordered_end(fh, b, MPI_STATUS_IGNORE), "write_ordered_end");
      check_rc(MPI_File_sync(fh), "sync");
    } else {
      // Back to where the shared writes began, with the individual pointer's seek (the
      // shared pointer is moved by seek_shared, counted once above): read_shared reads
      // from the shared pointer, which only seek_shared sets, so reset it here.
      MPI_Barrier(MPI_COMM_WORLD);
      check_rc(MPI_File_seek_shared(fh, size * block, MPI_SEEK_SET), "seek_shared again");
      check_rc(MPI_File_read_shared(fh, b, 1024, MPI_BYTE, MPI_STATUS_IGNORE), "read_shared");
      check_rc(MPI_File_iread_shared(fh, b, 2048, MPI_BYTE, &r), "iread_shared");
      wait(r, "iread_shared wait");
      MPI_Barrier(MPI_COMM_WORLD);
      check_rc(MPI_File_read_ordered(fh, b, 4096, MPI_BYTE, MPI_STATUS_IGNORE), "read_ordered");
      check_rc(MPI_File_read_ordered_begin(fh, b, 8192, MPI_BYTE), "read_ordered_begin");
      check_rc(MPI_File_read_ordered_end(fh, b, MPI_STATUS_IGNORE), "read_ordered_end");
    }
  }
  check_rc(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view");
  MPI_Offset file_size = 0;
  check_rc(MPI_File_get_size(fh, &file_size), "get_size");
  check_rc(MPI_File_set_size(fh, file_size), "set_size");
  check_rc(MPI_File_close(&fh), "close");
  return 0;
}

int split() {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int half_rank = 0;
  MPI_Comm_rank(half, &half_rank);
  const std::vector<char> out = pattern(4096, rank);
  MPI_File fh = open(half, "half." + std::to_string(rank % 2) + ".dat", MPI_MODE_CREATE | MPI_MODE_WRONLY);
  check_rc(MPI_File_write_at_all(fh, half_rank * 4096, out.data(), 4096, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
  check_rc(MPI_File_close(&fh), "close");
  MPI_Comm_free(&half);
  return 0;
}

int many(int files) {
  const std::vector<char> out = pattern(8, rank);
  for (int i = 0; i < files; ++i) {
    MPI_File fh = open(MPI_COMM_WORLD, "many." + std::to_string(i) + ".dat", MPI_MODE_CREATE | MPI_MODE_WRONLY);
    check_rc(MPI_File_write_at_all(fh, rank * 8, out.data(), 8, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
    check_rc(MPI_File_close(&fh), "close");
  }
  return 0;
}

int reopen(int times) {
  const std::vector<char> out = pattern(8, rank);
  for (int i = 0; i < times; ++i) {
    MPI_File fh = open(MPI_COMM_WORLD, "reopen.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY);
    check_rc(MPI_File_write_at(fh, rank * 8, out.data(), 8, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
    check_rc(MPI_File_close(&fh), "close");
  }
  return 0;
}

// One performance variable's handle bound to `object`.
struct Pvar {
  MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
  int count = 0;
  bool ok = false;
};

Pvar bind(MPI_T_pvar_session session, const char* name, int klass, void* object) {
  Pvar p;
  int index = -1;
  if (MPI_T_pvar_get_index(name, klass, &index) != MPI_SUCCESS) {
    failures += std::string(" [no pvar ") + name + "]";
    return p;
  }
  p.ok = MPI_T_pvar_handle_alloc(session, index, object, &p.handle, &p.count) == MPI_SUCCESS;
  check(p.ok, std::string("handle on ") + name);
  if (p.ok) check_rc(MPI_T_pvar_start(session, p.handle), std::string("start ") + name);
  return p;
}

template <typename T>
std::vector<T> values(MPI_T_pvar_session session, const Pvar& p, const char* name) {
  std::vector<T> v(static_cast<size_t>(p.count));
  if (p.ok) check_rc(MPI_T_pvar_read(session, p.handle, v.data()), std::string("read ") + name);
  return v;
}

int pvars() {
  MPI_T_pvar_session session;
  MPI_T_pvar_session_create(&session);
  MPI_File fh = open(MPI_COMM_WORLD, "pvar.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY);
  MPI_Comm world = MPI_COMM_WORLD;
  Pvar calls = bind(session, "io_monitoring_calls", MPI_T_PVAR_CLASS_COUNTER, &fh);
  Pvar sizes = bind(session, "io_monitoring_size", MPI_T_PVAR_CLASS_AGGREGATE, &fh);
  Pvar fs_count = bind(session, "io_monitoring_fs_count", MPI_T_PVAR_CLASS_COUNTER, &fh);
  Pvar fs_size = bind(session, "io_monitoring_fs_size", MPI_T_PVAR_CLASS_AGGREGATE, &fh);
  Pvar time = bind(session, "io_monitoring_time", MPI_T_PVAR_CLASS_TIMER, &fh);
  Pvar aggregator = bind(session, "io_monitoring_aggregator_count", MPI_T_PVAR_CLASS_COUNTER, &fh);
  Pvar shuffle = bind(session, "io_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &world);
  check(calls.count == 12 && sizes.count == 12 && fs_count.count == 2 && fs_size.count == 2 && time.count == 3 &&
            aggregator.count == 1 && shuffle.count == size,
        "value counts 12, 12, 2, 2, 3, 1, size");

  const std::vector<char> out = pattern(4096, rank);
  check_rc(MPI_File_write_at(fh, 16 * rank, out.data(), 8, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
  check_rc(MPI_File_write_at(fh, 16 * rank + 8, out.data(), 8, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
  check_rc(MPI_File_write_at_all(fh, 4096 * (rank + 1), out.data(), 4096, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");

  const auto c = values<unsigned long long>(session, calls, "calls");
  const auto b = values<unsigned long long>(session, sizes, "size");
  const size_t write_at = 6, write_at_all = 7;  // the families' order
  for (size_t i = 0; i < c.size(); ++i) {
    check(c[i] == (i == write_at ? 2u : i == write_at_all ? 1u : 0u), "calls[" + std::to_string(i) + "]");
    check(b[i] == (i == write_at ? 16u : i == write_at_all ? 4096u : 0u), "size[" + std::to_string(i) + "]");
  }
  const auto fc = values<unsigned long long>(session, fs_count, "fs_count");
  const auto fsz = values<unsigned long long>(session, fs_size, "fs_size");
  if (fc.size() == 2 && fsz.size() == 2) {
    check(fc[0] == 0 && fsz[0] == 0, "nothing read");
    check(fc[1] == (rank == 0 ? 3u : 2u), "fs operations: two of its own, one aggregated at rank 0");
    check(fsz[1] == 16u + (rank == 0 ? 4096u * size : 0u), "fs bytes");
  }
  const auto t = values<double>(session, time, "time");
  if (t.size() == 3) check(t[0] == 0 && t[1] > 0 && t[2] >= 0, "time: no read, some write");
  const auto a = values<unsigned long long>(session, aggregator, "aggregator_count");
  if (a.size() == 1) check(a[0] == (rank == 0 ? 1u : 0u), "aggregator_count");
  const auto s = values<unsigned long long>(session, shuffle, "messages_size");
  for (int p = 0; p < static_cast<int>(s.size()); ++p)
    check(s[p] == (p == 0 ? 4096u : 0u), "shuffle to rank " + std::to_string(p));

  // MPI_FILE_NULL is not a file.
  MPI_File null = MPI_FILE_NULL;
  int index = -1, count = 0;
  MPI_T_pvar_handle h;
  MPI_T_pvar_get_index("io_monitoring_calls", MPI_T_PVAR_CLASS_COUNTER, &index);
  check(MPI_T_pvar_handle_alloc(session, index, &null, &h, &count) == MPI_T_ERR_INVALID, "MPI_FILE_NULL refused");

  check_rc(MPI_File_close(&fh), "close");
  std::vector<unsigned long long> after(12);
  check(!calls.ok || MPI_T_pvar_read(session, calls.handle, after.data()) != MPI_SUCCESS,
        "a handle on a closed file fails its reads");
  for (Pvar* p : {&calls, &sizes, &fs_count, &fs_size, &time, &aggregator, &shuffle})
    if (p->ok) MPI_T_pvar_handle_free(session, &p->handle);
  MPI_T_pvar_session_free(&session);
  return 0;
}

std::string error_class(int rc) {
  int klass = 0;
  MPI_Error_class(rc, &klass);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(klass, text, &length);
  return std::to_string(klass) + " (" + text + ")";
}

void say(const std::string& what, int rc) {
  std::printf("rank %d: %s -> %s\n", rank, what.c_str(), rc == MPI_SUCCESS ? "success" : error_class(rc).c_str());
  std::fflush(stdout);
}

int errors() {
  MPI_File fh = MPI_FILE_NULL;
  say("open in a missing folder",
      MPI_File_open(MPI_COMM_WORLD, "missing/folder/x.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  say("open a missing file read-only",
      MPI_File_open(MPI_COMM_WORLD, "missing.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  say("open read-only and write-only",
      MPI_File_open(MPI_COMM_WORLD, "amode.dat", MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  // A file that exists, opened read-only, written to.
  if (rank == 0) std::fclose(std::fopen("readonly.dat", "w"));
  MPI_Barrier(MPI_COMM_WORLD);
  char byte = 'x';
  if (MPI_File_open(MPI_COMM_WORLD, "readonly.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS) {
    say("write to a read-only file", MPI_File_write_at(fh, rank, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    say("read past the end", MPI_File_read_at(fh, 100, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_File_close(&fh);
  }
  // A file removed while it is open: writes still succeed (POSIX); opening it again
  // read-only fails.
  if (MPI_File_open(MPI_COMM_WORLD, "vanishing.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
      MPI_SUCCESS) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) ::unlink("vanishing.dat");
    MPI_Barrier(MPI_COMM_WORLD);
    say("write_at_all to a removed file", MPI_File_write_at_all(fh, rank, &byte, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    say("close a removed file", MPI_File_close(&fh));
  }
  say("open the removed file read-only",
      MPI_File_open(MPI_COMM_WORLD, "vanishing.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  say("delete a missing file", MPI_File_delete("missing.dat", MPI_INFO_NULL));
  return 0;
}

// Whatever the full disk makes the real module return, as it comes. With `pvars` (ours
// only), also what io_monitoring_fs_failed_count/_size say before the close:
// "rank <r>: fs_failed pvars: <read ops> <read bytes> <write ops> <write bytes>".
int full_disk(bool read_pvars) {
  std::vector<char> data(65536, 'x');
  const int bytes = static_cast<int>(data.size());
  MPI_File fh = MPI_FILE_NULL;
  const int rc = MPI_File_open(MPI_COMM_WORLD, "full/out.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  say("open on a full disk", rc);
  if (rc != MPI_SUCCESS) return 0;
  MPI_T_pvar_session session;
  Pvar failed_count, failed_size;
  if (read_pvars) {
    MPI_T_pvar_session_create(&session);
    failed_count = bind(session, "io_monitoring_fs_failed_count", MPI_T_PVAR_CLASS_COUNTER, &fh);
    failed_size = bind(session, "io_monitoring_fs_failed_size", MPI_T_PVAR_CLASS_AGGREGATE, &fh);
    check(failed_count.count == 2 && failed_size.count == 2, "fs_failed value counts 2, 2");
  }
  say("write_at_all on a full disk",
      MPI_File_write_at_all(fh, MPI_Offset{rank} * bytes, data.data(), bytes, MPI_BYTE, MPI_STATUS_IGNORE));
  say("write_at on a full disk",
      MPI_File_write_at(fh, MPI_Offset{size + rank} * bytes, data.data(), bytes, MPI_BYTE, MPI_STATUS_IGNORE));
  if (read_pvars) {
    const auto n = values<unsigned long long>(session, failed_count, "fs_failed_count");
    const auto b = values<unsigned long long>(session, failed_size, "fs_failed_size");
    if (n.size() == 2 && b.size() == 2)
      std::printf("rank %d: fs_failed pvars: %llu %llu %llu %llu\n", rank, n[0], b[0], n[1], b[1]);
    for (Pvar* p : {&failed_count, &failed_size})
      if (p->ok) MPI_T_pvar_handle_free(session, &p->handle);
    MPI_T_pvar_session_free(&session);
  }
  // No MPI_File_sync: on a full disk Open MPI 4.1.4's ompio fails it on rank 0 only, which
  // then leaves the collective and the other ranks hang in MPI_File_close (without mpimon
  // too: docs/io.md, "Bad input").
  say("close on a full disk", MPI_File_close(&fh));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mode = argc > 1 ? argv[1] : "";
  const long arg = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;
  if (mode == "write_at_all") {
    write_at_all(static_cast<size_t>(arg));
  } else if (mode == "read_at_all") {
    read_at_all(static_cast<size_t>(arg));
  } else if (mode == "kinds") {
    kinds(!(argc > 2 && std::string(argv[2]) == "blocking-collectives"));
  } else if (mode == "split") {
    split();
  } else if (mode == "many") {
    many(static_cast<int>(arg));
  } else if (mode == "reopen") {
    reopen(static_cast<int>(arg));
  } else if (mode == "errors") {
    errors();
  } else if (mode == "full") {
    full_disk(argc > 2 && std::string(argv[2]) == "pvars");
  } else if (mode == "pvars") {
    pvars();
  } else {
    if (rank == 0) std::fprintf(stderr, "io_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::printf("rank %d: %s %s%s\n", rank, failures.empty() ? "OK" : "FAILED", mode.c_str(), failures.c_str());
  std::fflush(stdout);
  MPI_T_finalize();  // before MPI_Finalize: the reverse crashes Open MPI 4.1
  MPI_Finalize();
  return 0;
}
