#include "event_log_reader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "readers/format_error.h"

namespace mpimon::mel {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(std::string_view source, size_t line, const std::string& what) {
  throw FormatError(std::string(source) + ":" + std::to_string(line) + ": expected " + what);
}

template <typename T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

LoggedValue value_of(std::string_view text) {
  LoggedValue v;
  if (parse_number(text, v.integer_value)) {
    v.kind = LoggedValue::integer;
  } else if (text.find_first_of(".eE") != std::string_view::npos && parse_number(text, v.number_value)) {
    v.kind = LoggedValue::number;
  } else {
    v.text_value = std::string(text);
  }
  return v;
}

// "'<name>'" at the start of `rest`: the name, and `rest` moved past it.
bool take_quoted(std::string_view& rest, std::string& name) {
  if (rest.size() < 2 || rest[0] != '\'') return false;
  const size_t close = rest.find('\'', 1);
  if (close == std::string_view::npos || close == 1) return false;
  name = std::string(rest.substr(1, close - 1));
  rest.remove_prefix(close + 1);
  return true;
}

constexpr const char* kEventLine =
    "an event line \"[<seconds>] '<event>' <element>=<value> ...\", a \"dropped\" line or a \"statistics:\" line";

void parse_event(std::string_view line, std::string_view source, size_t n, EventLog& log) {
  const size_t close = line.find(']');
  if (close == std::string_view::npos) fail(source, n, kEventLine);
  std::string_view seconds = line.substr(1, close - 1);
  while (!seconds.empty() && seconds.front() == ' ') seconds.remove_prefix(1);
  LoggedEvent event;
  event.line = n;
  if (!parse_number(seconds, event.seconds)) fail(source, n, "a time in seconds between [ and ]");
  std::string_view rest = line.substr(close + 1);
  if (rest.empty() || rest[0] != ' ') fail(source, n, kEventLine);
  rest.remove_prefix(1);
  if (!take_quoted(rest, event.name)) fail(source, n, "an event name in quotes after the time");
  while (!rest.empty()) {
    if (rest[0] != ' ') fail(source, n, "a space before each <element>=<value>");
    rest.remove_prefix(1);
    const size_t end = std::min(rest.find(' '), rest.size());
    const std::string_view item = rest.substr(0, end);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      fail(source, n, "<element>=<value>, found '" + std::string(item) + "'");
    event.elements.emplace_back(std::string(item.substr(0, eq)), value_of(item.substr(eq + 1)));
    rest.remove_prefix(end);
  }
  log.events.push_back(std::move(event));
}

void parse_dropped(std::string_view line, std::string_view source, size_t n, EventLog& log) {
  // "dropped N instance(s) of '<name>'"
  std::string_view rest = line.substr(8);
  const size_t space = rest.find(' ');
  LoggedDrop drop;
  drop.line = n;
  if (space == std::string_view::npos || !parse_number(rest.substr(0, space), drop.count))
    fail(source, n, "\"dropped <count> instances of '<event>'\"");
  rest.remove_prefix(space + 1);
  for (std::string_view word : {"instances of ", "instance of "})
    if (rest.substr(0, word.size()) == word) {
      rest.remove_prefix(word.size());
      break;
    }
  if (!take_quoted(rest, drop.name) || !rest.empty()) fail(source, n, "\"dropped <count> instances of '<event>'\"");
  log.drops.push_back(std::move(drop));
}

void parse_statistics(std::string_view line, std::string_view source, size_t n, EventLog& log) {
  const std::string_view body = line.substr(12);  // after "statistics: "
  log.statistics.emplace_back(body);
  for (const bool sent : {true, false}) {
    const std::string_view head = sent ? "sent peer=" : "received peer=";
    if (body.substr(0, head.size()) != head) continue;
    LoggedTraffic t;
    t.sent = sent;
    std::istringstream in{std::string(body.substr(head.size()))};
    std::string peer, messages, bytes;
    in >> peer >> messages >> bytes;
    if (!parse_number(std::string_view(peer), t.peer) || messages.rfind("messages=", 0) != 0 ||
        bytes.rfind("bytes=", 0) != 0 || !parse_number(std::string_view(messages).substr(9), t.messages) ||
        !parse_number(std::string_view(bytes).substr(6), t.bytes) || !in.eof())
      fail(source, n,
           std::string("\"statistics: ") + (sent ? "sent" : "received") + " peer=<rank> messages=<n> bytes=<n>\"");
    log.traffic.push_back(t);
  }
}

}  // namespace

EventLog parse_event_log(std::string_view text, std::string_view source_name) {
  EventLog log;
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw FormatError(std::string(source_name) + ": expected text, found a NUL byte at offset " + std::to_string(nul) +
                      " (a write that did not complete, or not an event log)");
  size_t n = 0, start = 0;
  bool last_is_statistics = false;
  while (start < text.size()) {
    ++n;
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) fail(source_name, n, "a line ending in a newline (the log is cut short)");
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    last_is_statistics = false;
    if (line.substr(0, 1) == "[") {
      parse_event(line, source_name, n, log);
    } else if (line.substr(0, 8) == "dropped ") {
      parse_dropped(line, source_name, n, log);
    } else if (line.substr(0, 12) == "statistics: ") {
      parse_statistics(line, source_name, n, log);
      last_is_statistics = true;
    } else {
      fail(source_name, n, kEventLine);
    }
  }
  if (!last_is_statistics)
    fail(source_name, n + 1,
         "the statistics lines at the end (the logger writes them at MPI_Finalize: the log is cut short or not an "
         "event log)");
  return log;
}

EventLog read_event_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_event_log(text.str(), path);
}

std::vector<std::pair<int32_t, std::string>> event_log_files(const std::string& path) {
  std::error_code ec;
  auto rank_of = [](std::string_view name) {
    // "<anything>.<rank>.log"
    if (name.size() < 5 || name.substr(name.size() - 4) != ".log") return -1;
    name.remove_suffix(4);
    const size_t dot = name.rfind('.');
    int32_t rank = -1;
    if (dot == std::string_view::npos || !parse_number(name.substr(dot + 1), rank)) return -1;
    return rank;
  };
  std::vector<std::pair<int32_t, std::string>> files;
  if (fs::is_regular_file(path, ec)) {
    files.emplace_back(rank_of(fs::path(path).filename().string()), path);
    return files;
  }
  const fs::path prefix(path);
  const fs::path folder = prefix.has_parent_path() ? prefix.parent_path() : fs::path(".");
  const std::string base = prefix.filename().string() + ".";
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(base, 0) != 0 || !it->is_regular_file(ec)) continue;
    const std::string_view tail = std::string_view(name).substr(base.size());
    int32_t rank = -1;
    if (tail.size() < 5 || tail.substr(tail.size() - 4) != ".log" ||
        !parse_number(tail.substr(0, tail.size() - 4), rank) || rank < 0)
      continue;
    files.emplace_back(rank, (prefix.has_parent_path() ? (folder / name) : fs::path(name)).string());
  }
  if (files.empty())
    throw FormatError(path + ": no event log (neither a file nor the prefix of <prefix>.<rank>.log files)");
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace mpimon::mel
