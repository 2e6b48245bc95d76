#include "files/site_log.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>
#include <vector>

#include "formats/job_format.h"

namespace mpimon {

std::optional<std::string> site_log_root(const std::string& text, std::string& problem) {
  problem.clear();
  if (text.empty() || text == "none") return std::string();
  if (text[0] != '/') {
    problem = "mpimon_log_path '" + text + "' is not an absolute path (expected /<folder>, or none): no site log";
    return std::nullopt;
  }
  std::string root = text;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

namespace {

std::string safe_field(std::string_view text, bool allow_underscore) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || (allow_underscore && c == '_');
    out += kept ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") return "unknown";
  return out;
}

}  // namespace

std::string site_job_id(const std::function<const char*(const char*)>& getenv, long launcher_pid) {
  auto value = [&](const char* name) -> std::string {
    const char* v = getenv(name);
    return v != nullptr ? std::string(v) : std::string();
  };
  std::string id = value("SLURM_JOB_ID");
  if (!id.empty()) {
    if (const std::string step = value("SLURM_STEP_ID"); !step.empty()) id += "." + step;
  } else {
    for (const char* name : {"PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"}) {
      id = value(name);
      if (!id.empty()) break;
    }
  }
  if (id.empty()) id = std::to_string(launcher_pid);
  return safe_field(id, false);
}

std::string site_name_field(std::string_view text) { return safe_field(text, false); }

namespace {

std::tm utc(long long seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm parts{};
  ::gmtime_r(&t, &parts);
  return parts;
}

}  // namespace

std::string site_log_day(long long start_time) {
  const std::tm t = utc(start_time);
  char text[32];
  std::snprintf(text, sizeof text, "%04d/%02d/%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday);
  return text;
}

std::string site_log_file_name(const SiteLogName& name, const std::string& suffix) {
  const std::tm t = utc(name.start_time);
  char time_of_day[16];
  std::snprintf(time_of_day, sizeof time_of_day, "%02d%02d%02d", t.tm_hour, t.tm_min, t.tm_sec);
  return site_name_field(name.user) + "_" + site_name_field(name.executable) + "_id" + site_name_field(name.job_id) +
         "-" + std::to_string(name.pid) + "_" + time_of_day + (suffix.empty() ? "" : "-" + suffix) + ".mpimon";
}

std::string site_folder_problem(uid_t owner, mode_t mode, uid_t root_owner) {
  if (!S_ISDIR(mode)) return "not a folder";
  if (owner != 0 && owner != root_owner)
    return "owned by uid " + std::to_string(owner) + ", neither root nor the log root's owner (uid " +
           std::to_string(root_owner) + ")";
  if ((mode & (S_IWGRP | S_IWOTH)) != 0 && (mode & S_ISVTX) == 0)
    return "writable by group or others without the sticky bit";
  return {};
}

int open_site_day_folder(const std::string& root, const std::string& day, bool& group_readable, std::string& problem) {
  group_readable = false;
  // The root is the site's configured path: symbolic links in it are the admins' choice.
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    problem = root + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    problem = root + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  const uid_t root_owner = st.st_uid;
  if (std::string why = site_folder_problem(st.st_uid, st.st_mode, root_owner); !why.empty()) {
    problem = root + ": " + why;
    ::close(fd);
    return -1;
  }
  std::string path = root;
  size_t begin = 0;
  while (begin < day.size()) {
    const size_t end = std::min(day.find('/', begin), day.size());
    const std::string part = day.substr(begin, end - begin);
    begin = end + 1;
    path += "/" + part;
    const int next = ::openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    ::close(fd);
    if (next < 0) {
      problem = path + ": " + (err == ELOOP || err == ENOTDIR ? "not a folder (a symbolic link?)" : std::strerror(err));
      if (err == ENOENT) problem += " (the dated folders are made ahead by `mpimon admin mk-log-dirs`)";
      return -1;
    }
    fd = next;
    if (::fstat(fd, &st) != 0) {
      problem = path + ": " + std::strerror(errno);
      ::close(fd);
      return -1;
    }
    if (std::string why = site_folder_problem(st.st_uid, st.st_mode, root_owner); !why.empty()) {
      problem = path + ": " + why;
      ::close(fd);
      return -1;
    }
  }
  group_readable = (st.st_mode & S_ISGID) != 0;
  return fd;
}

std::string gzip_compress(std::string_view text) {
  z_stream stream{};
  if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("cannot start zlib's compression");
  std::string out;
  out.resize(deflateBound(&stream, static_cast<uLong>(text.size())));
  // deflateBound holds for one deflate() call with Z_FINISH on inputs below 4 GiB; larger
  // texts are fed in pieces.
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(std::min<size_t>(out.size(), 1u << 30));
  size_t consumed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (stream.avail_in == 0 && consumed < text.size()) {
      const size_t piece = std::min<size_t>(text.size() - consumed, 1u << 30);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + consumed));
      stream.avail_in = static_cast<uInt>(piece);
      consumed += piece;
    }
    if (stream.avail_out == 0) {
      const size_t used = out.size();
      out.resize(used * 2 + 4096);
      stream.next_out = reinterpret_cast<Bytef*>(out.data() + used);
      stream.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - used, 1u << 30));
    }
    rc = deflate(&stream, consumed == text.size() && stream.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      deflateEnd(&stream);
      throw std::runtime_error("zlib's compression failed");
    }
  }
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

bool looks_gzipped(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

std::string gzip_decompress(std::string_view data, uint64_t limit) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) throw std::runtime_error("cannot start zlib's decompression");
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  if (data.size() > (1ull << 31)) {
    inflateEnd(&stream);
    throw std::runtime_error("compressed data larger than 2 GiB");
  }
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = rc == Z_BUF_ERROR ? "truncated gzip data" : "malformed gzip data";
      inflateEnd(&stream);
      throw std::runtime_error(why);
    }
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > limit) {
      inflateEnd(&stream);
      throw std::runtime_error("gzip data expands beyond " + std::to_string(limit) + " bytes");
    }
    if (rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      throw std::runtime_error("truncated gzip data");
    }
  }
  const bool trailing = stream.avail_in != 0;
  inflateEnd(&stream);
  if (trailing) throw std::runtime_error("bytes after the end of the gzip data");
  return out;
}

std::string format_site_annotations(const SiteLogName& name, const std::vector<std::string>& rank_hosts) {
  std::string out = "site user " + escape_name(name.user, true) + "\nsite executable " +
                    escape_name(name.executable, true) + "\nsite job_id " + escape_name(name.job_id, true) +
                    "\nsite pid " + std::to_string(name.pid) + "\n";
  // Hosts in order of their first rank; ranks per host as ranges. O(ranks) with a map
  // from name to position.
  std::vector<std::string> hosts;
  std::vector<std::vector<int32_t>> members;
  std::map<std::string, size_t> position;
  for (size_t r = 0; r < rank_hosts.size(); ++r) {
    auto [it, fresh] = position.emplace(rank_hosts[r], hosts.size());
    if (fresh) {
      hosts.push_back(rank_hosts[r]);
      members.emplace_back();
    }
    members[it->second].push_back(static_cast<int32_t>(r));
  }
  out += "site hosts " + std::to_string(hosts.size()) + "\n";
  for (size_t h = 0; h < hosts.size(); ++h)
    out += "site host " + escape_name(hosts[h], true) + " " + format_rank_ranges(members[h]) + "\n";
  return out;
}

std::string publish_site_log(int day_folder, const std::string& folder_path, const SiteLogName& name, mode_t mode,
                             std::string_view content, std::string& problem) {
  FileError error;
  const std::string first = folder_path + "/" + site_log_file_name(name);
  NewFile file = NewFile::create_in(day_folder, first, mode, error);
  if (!error) file.write(content, error);
  if (!error) file.finish(error);
  if (error) {
    problem = error.message;
    return {};
  }
  std::string path = first;
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (file.publish(path, Existing::keep, error)) {
      ::fsync(day_folder);
      return path;
    }
    if (error.code != EEXIST) break;
    // Taken: another job of the same second, or a name someone guessed. A random suffix.
    uint32_t random = 0;
    if (::getrandom(&random, sizeof random, 0) != sizeof random) random = static_cast<uint32_t>(::getpid()) ^ attempt;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%08x", random);
    error = {};
    path = folder_path + "/" + site_log_file_name(name, suffix);
  }
  problem = error.message;
  return {};
}

}  // namespace mpimon
