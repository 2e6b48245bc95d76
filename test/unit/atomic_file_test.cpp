// write_file_atomically: the file appears whole or not at all, never a temporary left.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "atomic_file.h"
#include "temp_dir.h"

namespace mpimon {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public test::TempDirTest {
 protected:
  static std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // Names in a folder (no recursion).
  static std::set<std::string> names_in(const std::string& folder) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
    return names;
  }
};

::testing::AssertionResult names_path_and_reason(const std::string& message, const std::string& path,
                                                 int error) {
  const std::string reason = std::strerror(error);
  if (message.rfind(path + ": ", 0) == 0 && message.find(reason) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' should start with '" << path
                                       << ": ' and contain '" << reason << "'";
}

TEST_F(AtomicFile, WritesTheContent) {
  const std::string path = dir_ + "/rank0.prof";
  EXPECT_EQ(write_file_atomically(path, "# POINT TO POINT\nE\t0\t1\t4 bytes\t1 msgs sent\n"), "");
  EXPECT_EQ(contents(path), "# POINT TO POINT\nE\t0\t1\t4 bytes\t1 msgs sent\n");
}

TEST_F(AtomicFile, LeavesOnlyTheFinalFileOnSuccess) {
  const std::string path = dir_ + "/rank0.prof";
  ASSERT_EQ(write_file_atomically(path, "x"), "");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"rank0.prof"});
}

TEST_F(AtomicFile, WritesEmptyContentAsAnEmptyFile) {
  const std::string path = dir_ + "/empty";
  ASSERT_EQ(write_file_atomically(path, ""), "");
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(fs::file_size(path), 0u);
}

TEST_F(AtomicFile, KeepsBinaryContentIncludingNulBytes) {
  const std::string path = dir_ + "/binary";
  const std::string content("a\0b\n\0\xff", 6);
  ASSERT_EQ(write_file_atomically(path, content), "");
  EXPECT_EQ(contents(path), content);
}

TEST_F(AtomicFile, WritesLargeContent) {
  const std::string path = dir_ + "/large";
  std::string content;
  for (int i = 0; content.size() < 8 * 1024 * 1024; ++i) content += std::to_string(i) + '\n';
  ASSERT_EQ(write_file_atomically(path, content), "");
  EXPECT_EQ(contents(path), content);
}

TEST_F(AtomicFile, OverwritesALongerExistingFileWhole) {
  const std::string path = dir_ + "/rank0.prof";
  std::ofstream(path) << std::string(10000, 'o') << "old tail\n";
  ASSERT_EQ(write_file_atomically(path, "new\n"), "");
  EXPECT_EQ(contents(path), "new\n");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"rank0.prof"});
}

TEST_F(AtomicFile, MissingFolderGivesMessageNamingPathAndReasonAndNoFile) {
  const std::string path = dir_ + "/no/such/folder/rank0.prof";
  const std::string message = write_file_atomically(path, "data");
  EXPECT_TRUE(names_path_and_reason(message, path, ENOENT));
  EXPECT_FALSE(fs::exists(dir_ + "/no"));
  EXPECT_TRUE(names_in(dir_).empty());
}

TEST_F(AtomicFile, FolderThatIsAFileGivesMessageNamingPathAndReasonAndNoFile) {
  const std::string file = dir_ + "/plain";
  std::ofstream(file) << "not a folder";
  const std::string path = file + "/rank0.prof";
  const std::string message = write_file_atomically(path, "data");
  EXPECT_TRUE(names_path_and_reason(message, path, ENOTDIR));
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"plain"});
  EXPECT_EQ(contents(file), "not a folder");
}

// write_file_atomically(path, "data") as a user that folder permissions apply to: root
// ignores them, so as root the call runs in a child process switched to user "nobody".
std::string write_as_unprivileged_user(const std::string& path) {
  if (::geteuid() != 0) return write_file_atomically(path, "data");
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "<pipe failed>";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    constexpr uid_t kNobody = 65534;
    std::string message = ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0 ? write_file_atomically(path, "data")
                                                                          : "<setuid failed>";
    const char* data = message.data();
    size_t left = message.size();
    while (left > 0) {
      const ssize_t n = ::write(pipe_fds[1], data, left);
      if (n <= 0) break;
      data += n;
      left -= static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return message;
}

TEST_F(AtomicFile, UnwritableFolderGivesMessageNamingPathAndReasonAndNoFile) {
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);  // others may search it, not write
  const std::string folder = dir_ + "/read-only";
  ASSERT_EQ(::mkdir(folder.c_str(), 0555), 0);
  ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
  const std::string path = folder + "/rank0.prof";
  const std::string message = write_as_unprivileged_user(path);
  EXPECT_TRUE(names_path_and_reason(message, path, EACCES));
  EXPECT_TRUE(names_in(folder).empty());
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"read-only"});
}

TEST_F(AtomicFile, FailedRenameRemovesTheTemporary) {
  // The final name is a folder: the temporary is written, then the rename fails.
  const std::string path = dir_ + "/taken";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  std::ofstream(path + "/inside") << "keep";
  const std::string message = write_file_atomically(path, "data");
  EXPECT_TRUE(names_path_and_reason(message, path, EISDIR));
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"taken"});
  EXPECT_EQ(names_in(path), std::set<std::string>{"inside"});
}

TEST_F(AtomicFile, FailureLeavesAnExistingFileUntouched) {
  const std::string path = dir_ + "/taken";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  const std::string neighbour = dir_ + "/rank1.prof";
  ASSERT_EQ(write_file_atomically(neighbour, "rank 1\n"), "");
  EXPECT_NE(write_file_atomically(path, "data"), "");
  EXPECT_EQ(contents(neighbour), "rank 1\n");
  EXPECT_EQ(names_in(dir_), (std::set<std::string>{"rank1.prof", "taken"}));
}

}  // namespace
}  // namespace mpimon
