// Preloaded into the ranks of a job (mpirun -x LD_PRELOAD=...): the world rank named by
// MPIMON_TEST_DIE_RANK kills itself with SIGKILL at its first pwrite into a temporary:
// the job file's, unnamed (`/folder/#<inode> (deleted)`) or named (`.mpimon-...tmp`);
// only the job file is written with pwrite. A real death in the middle of the job file,
// for the tests of what is left behind (files_test.cpp).
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool should_die(int fd) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* victim = std::getenv("MPIMON_TEST_DIE_RANK");
  if (rank == nullptr || victim == nullptr || std::strcmp(rank, victim) != 0) return false;
  char target[4096] = {};
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  if (::readlink(link.c_str(), target, sizeof target - 1) < 0) return false;
  return std::strstr(target, "/.mpimon-") != nullptr ||
         (std::strstr(target, "/#") != nullptr && std::strstr(target, " (deleted)") != nullptr);
}

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" ssize_t pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  if (should_die(fd)) ::raise(SIGKILL);
  static auto real = next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  return real(fd, buffer, count, offset);
}

extern "C" ssize_t pwrite64(int fd, const void* buffer, size_t count, off_t offset) {
  if (should_die(fd)) ::raise(SIGKILL);
  static auto real = next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite64");
  return real(fd, buffer, count, offset);
}
