// The one way our components, the event logger and the tools write files. Everything
// that reaches disk goes through NewFile, so the same guarantees hold for every output
// (docs/reliability.md):
//
// - Whole or nothing: content goes to a temporary in the final file's folder, is synced
//   (fsync) and its size checked, and only then published under the final name. A full
//   disk, a dying process or a failing rank never leaves a partial file under a final name.
// - No planted links: the temporary is new, created exclusively (Linux O_TMPFILE: an
//   unnamed file, nothing to plant and nothing left behind if the process dies; elsewhere
//   a hidden, unpredictable name `.mpimon-<host>-<pid>-<random>.tmp` opened
//   O_CREAT|O_EXCL|O_NOFOLLOW). The final name is never opened: publishing is a link()
//   (never follows nor replaces what is there) or a rename() (replaces a link itself,
//   never its target). Symbolic links in the folder part of a path are the user's choice
//   and are followed.
// - Mode 0644, minus what the umask removes (never group/other-writable, even under
//   umask 000; a stricter umask such as 077 is honoured).
// - Never overwritten (Existing::keep): publishing fails with EEXIST, atomically (no
//   exists()-then-rename window); the caller picks another name (see files/output_names.h).
//   Existing::replace is for outputs the user named explicitly on a tool's command line.
// - Long paths: the folder is opened once and every operation is relative to it, so any
//   path whose folder the kernel accepts (PATH_MAX) and whose file name fits NAME_MAX
//   works; anything else is refused with ENAMETOOLONG, never truncated.
//
// Usage (one process):
//   FileError error;
//   NewFile file = NewFile::create("out/prof.3.prof", error);
//   if (!error) file.write(text, error);
//   if (!error) file.finish(error);                         // fsync + size check
//   if (!error) file.publish(file.final_path(), Existing::keep, error);
//   if (error) warn(error.message);                         // "<path>: <what>: <reason>"
//   // an unpublished temporary is removed by the destructor (or discard())
//
// Usage (several processes writing one file, the job file): one process creates the
// temporary; the others on its host join_unnamed() it through /proc (nothing is ever
// visible in the folder, so a job killed at any moment leaves nothing behind); if some
// process cannot (another host), the creator name_for_others() it and they join() it by
// name and inode. Each write_at()s its part; the creator publishes once all are done.
//
// Usage (a file that grows while readers may look, e.g. a time series): create(), write
// a first complete part, finish(), add_name(final) (never overwrites; the descriptor
// stays open), then keep write()-ing and sync()-ing; discard() closes at the end and
// keeps the name. Its format must then let a reader tell where the last complete part
// ends (a checksummed record, like the job file's blocks).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mpimon {

// Why a file operation failed. Empty message: success. `code` is the errno (EEXIST tells
// a caller to try another name).
struct FileError {
  std::string message;  // "<final path>: <what failed>: <reason>"
  int code = 0;
  explicit operator bool() const { return !message.empty(); }
};

// What publishing does when the final name exists (a file, a folder, a link, anything).
enum class Existing {
  keep,     // fail with EEXIST: nothing is ever overwritten
  replace,  // replace the name atomically (a planted link is replaced, its target untouched)
};

// Which kind of temporary create() makes.
enum class Temporary {
  unnamed_if_possible,  // O_TMPFILE where the file system has it (nothing left if we die), else named
  named,                // always a hidden name: other processes can join() it; rename() can replace
};

class NewFile {
 public:
  NewFile() = default;
  NewFile(NewFile&& other) noexcept;
  NewFile& operator=(NewFile&& other) noexcept;
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  ~NewFile();  // discard()s an unpublished temporary it created

  // A new, empty temporary in the folder of `final_path`.
  static NewFile create(const std::string& final_path, FileError& error,
                        Temporary kind = Temporary::unnamed_if_possible);
  // The same in a folder the caller already opened and checked (`folder_fd`, duplicated
  // here; the site log's dated folder, files/site_log.h): nothing is resolved by path
  // again. The file gets exactly `mode` (fchmod: the umask does not apply), e.g. 0400.
  static NewFile create_in(int folder_fd, const std::string& final_path, mode_t mode, FileError& error);
  // Opens, for writing, a named temporary another process created for `final_path`:
  // never creates, never follows a link, and checks it is the regular file `inode` owned
  // by this user. The joined file is never removed nor published by this process.
  static NewFile join(const std::string& final_path, const std::string& temporary_name, uint64_t inode,
                      FileError& error);
  // Opens, for writing, the unnamed temporary that process `pid` on this host holds as
  // descriptor `fd` (through /proc/<pid>/fd/<fd>), checking it is still unnamed and is
  // the inode `inode` of device `device`. Fails (EXDEV) for a process on another host or
  // in another pid namespace: the creator must then name it (name_for_others()).
  static NewFile join_unnamed(const std::string& final_path, int pid, int fd, uint64_t inode, uint64_t device,
                              FileError& error);
  // Gives an unnamed temporary a hidden name, so processes elsewhere can join() it.
  bool name_for_others(FileError& error);
  int descriptor() const { return fd_; }
  uint64_t device() const { return device_; }

  bool is_open() const { return fd_ >= 0; }
  const std::string& final_path() const { return final_path_; }
  // The temporary's name in the final folder ("" for an unnamed temporary).
  const std::string& temporary_name() const { return temporary_name_; }
  // Where the temporary is, for messages ("<folder>/<name>" or "an unnamed temporary in <folder>").
  std::string temporary_description() const;
  uint64_t inode() const { return inode_; }
  uint64_t bytes_written() const { return bytes_written_; }

  // Appends `data` (all of it, or an error).
  bool write(std::string_view data, FileError& error);
  // Writes `data` at `offset` (all of it, or an error); does not move the append position.
  bool write_at(uint64_t offset, std::string_view data, FileError& error);
  // Reads back [offset, offset + expected.size()) and compares it with `expected`.
  bool verify_at(uint64_t offset, std::string_view expected, FileError& error);
  // Makes the content durable (fsync: some file systems report a full disk only here).
  bool sync(FileError& error);
  // sync(), then checks that the file holds exactly `expected_size` bytes (default: what
  // this object appended).
  bool finish(FileError& error, int64_t expected_size = -1);

  // Gives the temporary the name `path` (in the same folder as final_path()). On success
  // the object no longer owns a temporary. On EEXIST with Existing::keep nothing changed:
  // call again with another name.
  bool publish(const std::string& path, Existing existing, FileError& error);
  // Removes the temporary (if this object created it) and closes.
  void discard();
  // For a joined file: closes and reports what close() reports (NFS and Lustre write
  // back and report a full disk there).
  bool close(FileError& error);

  // For a decision several processes take together (files/output_names.h): add_name() gives
  // the content the name `path` (same folder) without replacing anything and without
  // giving up the temporary; remove_name() takes back a name add_name() gave; discard()
  // then ends, keeping the names given. publish(path, Existing::keep) is add_name() +
  // discard().
  bool add_name(const std::string& path, FileError& error);
  void remove_name(const std::string& path);

 private:
  int folder_fd_ = -1;
  int fd_ = -1;
  bool created_ = false;  // this object made the temporary (and may remove it)
  uint64_t inode_ = 0, device_ = 0;
  uint64_t bytes_written_ = 0;
  std::string final_path_, folder_, temporary_name_;
  int signal_slot_ = -1;  // RemoveOnSignal slot while a named temporary exists
  FileError fail(const std::string& what, int code) const;
  // Creates the temporary in folder_fd_ (create, create_in).
  bool open_temporary(Temporary kind, mode_t mode, FileError& error);
};

// Whole-file conveniences (files/whole_file.cpp): true when the whole content is under `path`; else false and
// `error` says "<path>: <what>: <reason>" (nothing under `path` changed). write_new_file
// never overwrites (fails if `path` exists); write_file_atomically replaces `path` (tool
// outputs the user named).
bool write_new_file(const std::string& path, std::string_view content, FileError& error);
bool write_file_atomically(const std::string& path, std::string_view content, FileError& error);

// Removes named temporaries (`.mpimon-<host>-<pid>-<random>.tmp`) left in `folder` by
// processes that died: made on this host by a process that no longer exists, or not
// modified for a day (another host's). Returns how many were removed.
int remove_stale_temporaries(const std::string& folder);

// The folder part of `path` ("." when there is none), as NewFile resolves it.
std::string folder_of(const std::string& path);

// The name of a named temporary made now by this process (exposed for tests).
std::string new_temporary_name();
// True if `name` has the form of our named temporaries.
bool is_temporary_name(std::string_view name);

}  // namespace mpimon
