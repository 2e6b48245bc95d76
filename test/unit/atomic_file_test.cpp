// The one file writer (files/atomic_file.h): whole or nothing, never a temporary left, never
// through a planted link, never overwriting unless asked, 0644, long paths, a full disk.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <string>
#include <string_view>

#include "files/atomic_file.h"
#include "temp_dir.h"

namespace mpimon {
namespace {

namespace fs = std::filesystem;

// The whole-file conveniences as these tests compare them: the error's message, "" when the
// call succeeded (its bool must agree with the message: an error is never silent).
std::string message_of(bool written, const FileError& error) {
  if (written == static_cast<bool>(error)) return "<the result and the error disagree: " + error.message + ">";
  return error.message;
}
std::string replace_whole(const std::string& path, std::string_view content) {
  FileError error;
  const bool written = write_file_atomically(path, content, error);
  return message_of(written, error);
}
std::string create_whole(const std::string& path, std::string_view content) {
  FileError error;
  const bool written = write_new_file(path, content, error);
  return message_of(written, error);
}

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

::testing::AssertionResult names_path_and_reason(const std::string& message, const std::string& path, int error) {
  const std::string reason = std::strerror(error);
  if (message.rfind(path + ": ", 0) == 0 && message.find(reason) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' should start with '" << path << ": ' and contain '"
                                       << reason << "'";
}

TEST_F(AtomicFile, WritesTheContent) {
  const std::string path = dir_ + "/rank0.prof";
  EXPECT_EQ(replace_whole(path, "# POINT TO POINT\nE\t0\t1\t4 bytes\t1 msgs sent\n"), "");
  EXPECT_EQ(contents(path), "# POINT TO POINT\nE\t0\t1\t4 bytes\t1 msgs sent\n");
}

TEST_F(AtomicFile, LeavesOnlyTheFinalFileOnSuccess) {
  const std::string path = dir_ + "/rank0.prof";
  ASSERT_EQ(replace_whole(path, "x"), "");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"rank0.prof"});
}

TEST_F(AtomicFile, WritesEmptyContentAsAnEmptyFile) {
  const std::string path = dir_ + "/empty";
  ASSERT_EQ(replace_whole(path, ""), "");
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(fs::file_size(path), 0u);
}

TEST_F(AtomicFile, KeepsBinaryContentIncludingNulBytes) {
  const std::string path = dir_ + "/binary";
  const std::string content("a\0b\n\0\xff", 6);
  ASSERT_EQ(replace_whole(path, content), "");
  EXPECT_EQ(contents(path), content);
}

TEST_F(AtomicFile, WritesLargeContent) {
  const std::string path = dir_ + "/large";
  std::string content;
  for (int i = 0; content.size() < 8 * 1024 * 1024; ++i) content += std::to_string(i) + '\n';
  ASSERT_EQ(replace_whole(path, content), "");
  EXPECT_EQ(contents(path), content);
}

TEST_F(AtomicFile, OverwritesALongerExistingFileWhole) {
  const std::string path = dir_ + "/rank0.prof";
  std::ofstream(path) << std::string(10000, 'o') << "old tail\n";
  ASSERT_EQ(replace_whole(path, "new\n"), "");
  EXPECT_EQ(contents(path), "new\n");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"rank0.prof"});
}

TEST_F(AtomicFile, MissingFolderGivesMessageNamingPathAndReasonAndNoFile) {
  const std::string path = dir_ + "/no/such/folder/rank0.prof";
  const std::string message = replace_whole(path, "data");
  EXPECT_TRUE(names_path_and_reason(message, path, ENOENT));
  EXPECT_FALSE(fs::exists(dir_ + "/no"));
  EXPECT_TRUE(names_in(dir_).empty());
}

TEST_F(AtomicFile, FolderThatIsAFileGivesMessageNamingPathAndReasonAndNoFile) {
  const std::string file = dir_ + "/plain";
  std::ofstream(file) << "not a folder";
  const std::string path = file + "/rank0.prof";
  const std::string message = replace_whole(path, "data");
  EXPECT_TRUE(names_path_and_reason(message, path, ENOTDIR));
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"plain"});
  EXPECT_EQ(contents(file), "not a folder");
}

// write_file_atomically(path, "data") as a user that folder permissions apply to: root
// ignores them, so as root the call runs in a child process switched to user "nobody".
std::string write_as_unprivileged_user(const std::string& path) {
  if (::geteuid() != 0) return replace_whole(path, "data");
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "<pipe failed>";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    constexpr uid_t kNobody = 65534;
    std::string message =
        ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0 ? replace_whole(path, "data") : "<setuid failed>";
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
  const std::string message = replace_whole(path, "data");
  EXPECT_NE(message.find(std::strerror(EISDIR)), std::string::npos) << message;
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"taken"});
  EXPECT_EQ(names_in(path), std::set<std::string>{"inside"});
}

TEST_F(AtomicFile, FailureLeavesAnExistingFileUntouched) {
  const std::string path = dir_ + "/taken";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  const std::string neighbour = dir_ + "/rank1.prof";
  ASSERT_EQ(replace_whole(neighbour, "rank 1\n"), "");
  EXPECT_NE(replace_whole(path, "data"), "");
  EXPECT_EQ(contents(neighbour), "rank 1\n");
  EXPECT_EQ(names_in(dir_), (std::set<std::string>{"rank1.prof", "taken"}));
}

// ---------------------------------------------------------------------------------------
// Never overwritten, never through a link (issue 16 item 9)

TEST_F(AtomicFile, NewFileNeverOverwritesAnExistingFile) {
  const std::string path = dir_ + "/prof.0.prof";
  std::ofstream(path) << "earlier run\n";
  const std::string message = create_whole(path, "this run\n");
  EXPECT_TRUE(names_path_and_reason(message, path, EEXIST));
  EXPECT_EQ(contents(path), "earlier run\n");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"prof.0.prof"}) << "no temporary left";
}

TEST_F(AtomicFile, PlantedLinkAtTheFinalNameIsNeitherFollowedNorOverwritten) {
  const std::string victim = dir_ + "/victim", path = dir_ + "/mpimon-job.txt";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  EXPECT_TRUE(names_path_and_reason(create_whole(path, "data\n"), path, EEXIST));
  EXPECT_EQ(contents(victim), "precious\n");
  EXPECT_TRUE(fs::is_symlink(path));
  // Even a dangling link counts as taken.
  const std::string dangling = dir_ + "/dangling";
  ASSERT_EQ(::symlink((dir_ + "/nowhere").c_str(), dangling.c_str()), 0);
  EXPECT_TRUE(names_path_and_reason(create_whole(dangling, "data\n"), dangling, EEXIST));
  EXPECT_FALSE(fs::exists(dir_ + "/nowhere"));
}

TEST_F(AtomicFile, ReplacingReplacesAPlantedLinkNotItsTarget) {
  const std::string victim = dir_ + "/victim", path = dir_ + "/report.html";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  ASSERT_EQ(replace_whole(path, "<html>\n"), "");
  EXPECT_EQ(contents(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(contents(path), "<html>\n");
}

TEST_F(AtomicFile, LinksPlantedAtTheOldPredictableTemporaryNamesAreNeverTouched) {
  // The names earlier versions used: <path>.tmp.<pid> and .<name>.mpimon-tmp.<jobid>.
  const std::string victim = dir_ + "/victim", path = dir_ + "/prof.0.prof";
  std::ofstream(victim) << "precious\n";
  for (const std::string& name : {path + ".tmp." + std::to_string(::getpid()), dir_ + "/.prof.0.prof.mpimon-tmp.0"})
    ASSERT_EQ(::symlink(victim.c_str(), name.c_str()), 0);
  ASSERT_EQ(create_whole(path, "data\n"), "");
  ASSERT_EQ(replace_whole(dir_ + "/out.svg", "<svg/>\n"), "");
  EXPECT_EQ(contents(victim), "precious\n");
}

TEST_F(AtomicFile, TemporaryNamesAreUnpredictableAndRecognisable) {
  std::set<std::string> names;
  for (int i = 0; i < 100; ++i) names.insert(new_temporary_name());
  EXPECT_EQ(names.size(), 100u);
  for (const std::string& name : names) {
    EXPECT_TRUE(is_temporary_name(name)) << name;
    EXPECT_NE(name.find("-" + std::to_string(::getpid()) + "-"), std::string::npos) << name;
    EXPECT_LT(name.size(), 64u) << "short, whatever the final name";
  }
  for (const char* other :
       {"prof.0.prof", ".mpimon-zz-1-0123456789abcdef.tmp", ".mpimon-0123abcd--0123456789abcdef.tmp",
        ".mpimon-0123abcd-12-0123456789abcdef.tmp/x", ".mpimon-0123abcd-12-0123456789abcde.tmp"})
    EXPECT_FALSE(is_temporary_name(other)) << other;
}

TEST_F(AtomicFile, NamedTemporaryIsCreatedExclusivelyAndJoinedOnlyByInode) {
  const std::string path = dir_ + "/job.txt";
  FileError error;
  NewFile creator = NewFile::create(path, error, Temporary::named);
  ASSERT_FALSE(error) << error.message;
  ASSERT_TRUE(is_temporary_name(creator.temporary_name()));
  NewFile joined = NewFile::join(path, creator.temporary_name(), creator.inode(), error);
  ASSERT_FALSE(error) << error.message;
  ASSERT_TRUE(joined.write_at(5, "world", error)) << error.message;
  ASSERT_TRUE(creator.write_at(0, "hello", error)) << error.message;
  EXPECT_TRUE(joined.verify_at(5, "world", error)) << error.message;
  EXPECT_FALSE(joined.verify_at(0, "HELLO", error));
  error = {};
  joined.discard();
  ASSERT_TRUE(creator.finish(error, 10)) << error.message;
  ASSERT_TRUE(creator.publish(path, Existing::keep, error)) << error.message;
  EXPECT_EQ(contents(path), "helloworld");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"job.txt"}) << "the joined side never removes nor publishes";

  // Joining refuses a link planted at the temporary's name, and another file.
  NewFile second = NewFile::create(dir_ + "/job2.txt", error, Temporary::named);
  ASSERT_FALSE(error);
  const std::string name = second.temporary_name();
  const std::string full = dir_ + "/" + name;
  ASSERT_EQ(::rename(full.c_str(), (dir_ + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink((dir_ + "/job.txt").c_str(), full.c_str()), 0);
  NewFile::join(dir_ + "/job2.txt", name, second.inode(), error);
  EXPECT_EQ(error.code, ELOOP) << error.message;
  ASSERT_EQ(::unlink(full.c_str()), 0);
  std::ofstream(full) << "a planted regular file";
  error = {};
  NewFile::join(dir_ + "/job2.txt", name, second.inode(), error);
  EXPECT_EQ(error.code, EPERM) << error.message;
  EXPECT_EQ(contents(dir_ + "/job.txt"), "helloworld");
}

TEST_F(AtomicFile, FilesAre0644EvenUnderUmask000) {
  const mode_t old = ::umask(0);
  const std::string kept = dir_ + "/new.prof", replaced = dir_ + "/out.html";
  const std::string a = create_whole(kept, "x"), b = replace_whole(replaced, "y");
  ::umask(old);
  ASSERT_EQ(a, "");
  ASSERT_EQ(b, "");
  struct stat st {};
  ASSERT_EQ(::stat(kept.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_EQ(::stat(replaced.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(AtomicFile, AStricterUmaskIsHonoured) {
  const mode_t old = ::umask(077);
  const std::string path = dir_ + "/private.prof";
  const std::string message = create_whole(path, "x");
  ::umask(old);
  ASSERT_EQ(message, "");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(AtomicFile, AnUnnamedTemporaryLeavesNoNameWhileWritten) {
  FileError error;
  NewFile file = NewFile::create(dir_ + "/prof.3.prof", error);
  ASSERT_FALSE(error) << error.message;
  if (!file.temporary_name().empty()) GTEST_SKIP() << "this file system has no O_TMPFILE: named temporaries";
  ASSERT_TRUE(file.write("data", error));
  EXPECT_TRUE(names_in(dir_).empty());
  file.discard();
  EXPECT_TRUE(names_in(dir_).empty());
}

TEST_F(AtomicFile, AddNameAndRemoveNameLetSeveralRanksRetract) {
  FileError error;
  NewFile file = NewFile::create(dir_ + "/prof.0.prof", error);
  ASSERT_FALSE(error);
  ASSERT_TRUE(file.write("data", error));
  ASSERT_TRUE(file.add_name(dir_ + "/prof.0.prof", error)) << error.message;
  file.remove_name(dir_ + "/prof.0.prof");
  ASSERT_TRUE(file.add_name(dir_ + "/prof.1.0.prof", error)) << error.message;
  EXPECT_FALSE(file.add_name(dir_ + "/prof.1.0.prof", error));
  EXPECT_EQ(error.code, EEXIST);
  EXPECT_FALSE(file.add_name("/elsewhere/prof.0.prof", error));
  EXPECT_EQ(error.code, EXDEV);
  file.discard();
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"prof.1.0.prof"});
  EXPECT_EQ(contents(dir_ + "/prof.1.0.prof"), "data");
}

// ---------------------------------------------------------------------------------------
// Long paths (issue 16 item 6)

TEST_F(AtomicFile, AFileNameOfNameMaxBytesWorksAndOneMoreIsRefusedCleanly) {
  const std::string longest = dir_ + "/" + std::string(255, 'n');
  ASSERT_EQ(create_whole(longest, "x"), "");
  EXPECT_EQ(contents(longest), "x");
  const std::string too_long = dir_ + "/" + std::string(256, 'n');
  EXPECT_TRUE(names_path_and_reason(create_whole(too_long, "x"), too_long, ENAMETOOLONG));
  const std::string ten_thousand = dir_ + "/" + std::string(10000, 'x');
  EXPECT_TRUE(names_path_and_reason(create_whole(ten_thousand, "x"), ten_thousand, ENAMETOOLONG));
  EXPECT_EQ(names_in(dir_).size(), 1u);
}

TEST_F(AtomicFile, APathLongerThanPathMaxWorksWhenItsFolderFits) {
  // Folders of 240-byte names up to just below PATH_MAX (4 096), then a 250-byte file
  // name: more than the kernel takes in one open(), but the folder and the name each fit.
  std::string folder = dir_;
  while (folder.size() + 241 < 4090) {
    folder += "/" + std::string(240, 'd');
    ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0);
  }
  const std::string path = folder + "/" + std::string(250, 'f');  // > PATH_MAX in all
  ASSERT_GT(path.size(), 4096u);
  ASSERT_EQ(create_whole(path, "deep"), "");
  const int folder_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(folder_fd, 0);
  struct stat st {};
  EXPECT_EQ(::fstatat(folder_fd, std::string(250, 'f').c_str(), &st, 0), 0);
  EXPECT_EQ(st.st_size, 4);
  ::close(folder_fd);
}

// ---------------------------------------------------------------------------------------
// Stale temporaries and killed processes (issue 16 item 3)

TEST_F(AtomicFile, NamedTemporaryIsRemovedWhenTheProcessIsTerminated) {
  const pid_t child = ::fork();
  if (child == 0) {
    FileError error;
    NewFile file = NewFile::create(dir_ + "/job.txt", error, Temporary::named);
    if (error) ::_exit(3);
    file.write("half", error);
    ::raise(SIGTERM);  // what mpirun sends every rank when one dies
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM) << "the previous disposition still applies";
  EXPECT_TRUE(names_in(dir_).empty());
}

TEST_F(AtomicFile, StaleTemporariesOfDeadProcessesAreRemovedOthersKept) {
  // A temporary of a process killed with SIGKILL (nothing could run).
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    FileError error;
    NewFile file = NewFile::create(dir_ + "/job.txt", error, Temporary::named);
    const std::string name = file.temporary_name() + "\n";
    if (::write(pipe_fds[1], name.data(), name.size()) < 0) ::_exit(5);
    ::pause();
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  char buffer[128] = {};
  ASSERT_GT(::read(pipe_fds[0], buffer, sizeof buffer - 1), 0);
  ::close(pipe_fds[0]);
  const std::string dead_name(buffer, std::strchr(buffer, '\n'));
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(fs::exists(dir_ + "/" + dead_name));

  FileError error;
  NewFile live = NewFile::create(dir_ + "/live.txt", error, Temporary::named);  // this process: alive
  ASSERT_FALSE(error);
  const std::string other_host_recent = ".mpimon-00000000-1-0123456789abcdef.tmp";
  const std::string other_host_old = ".mpimon-00000000-2-0123456789abcdef.tmp";
  std::ofstream(dir_ + "/" + other_host_recent) << "x";
  std::ofstream(dir_ + "/" + other_host_old) << "x";
  const struct timeval old_times[2] = {{::time(nullptr) - 3 * 86400, 0}, {::time(nullptr) - 3 * 86400, 0}};
  ASSERT_EQ(::utimes((dir_ + "/" + other_host_old).c_str(), old_times), 0);
  std::ofstream(dir_ + "/prof.0.prof") << "not ours to remove";

  EXPECT_EQ(remove_stale_temporaries(dir_), 2);
  EXPECT_EQ(names_in(dir_), (std::set<std::string>{live.temporary_name(), other_host_recent, "prof.0.prof"}));
}

// ---------------------------------------------------------------------------------------
// A full disk (issue 16 item 1): a real tmpfs of 64 KiB in a private mount namespace.

// Runs `body(folder)` in a child process where `folder` is a fresh tmpfs of `kib` KiB;
// returns false (and why) when this machine cannot (not root, no namespaces).
bool in_small_tmpfs(const std::string& folder, int kib, const std::function<int(const std::string&)>& body,
                    std::string& why, int& result) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return false;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    char status = 'u';
    if (::unshare(CLONE_NEWNS) == 0 && ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
        ::mount("tmpfs", folder.c_str(), "tmpfs", 0, ("size=" + std::to_string(kib) + "k").c_str()) == 0)
      status = 'm';
    if (::write(pipe_fds[1], &status, 1) != 1 || status != 'm') ::_exit(0);
    ::_exit(body(folder));
  }
  ::close(pipe_fds[1]);
  char status = 0;
  const bool read_ok = ::read(pipe_fds[0], &status, 1) == 1;
  ::close(pipe_fds[0]);
  int wait_status = 0;
  ::waitpid(child, &wait_status, 0);
  if (!read_ok || status != 'm') {
    why = "cannot mount a tmpfs in a private mount namespace (needs root: unshare(CLONE_NEWNS))";
    return false;
  }
  result = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 100 + WTERMSIG(wait_status);
  return true;
}

TEST_F(AtomicFile, AFullDiskLeavesNoFileAndSaysNoSpace) {
  const std::string folder = dir_ + "/small";
  ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0);
  std::string why;
  int result = -1;
  const bool ran = in_small_tmpfs(
      folder, 64,
      [](const std::string& f) {
        const std::string content(200 * 1024, 'x');  // more than the 64 KiB there is
        for (const bool replace : {false, true}) {
          const std::string path = f + "/prof.0.prof";
          const std::string message = replace ? replace_whole(path, content) : create_whole(path, content);
          if (message.find(std::strerror(ENOSPC)) == std::string::npos) return 1;
          if (message.rfind(path + ": cannot write", 0) != 0) return 2;
          if (!fs::is_empty(f)) return 3;  // no final file, no temporary
        }
        // The space comes back: a file that fits is written whole.
        if (create_whole(f + "/small.prof", std::string(1000, 'y')) != "") return 4;
        return fs::file_size(f + "/small.prof") == 1000 ? 0 : 5;
      },
      why, result);
  if (!ran) GTEST_SKIP() << why;
  EXPECT_EQ(result, 0);
}

}  // namespace
}  // namespace mpimon
