// Reading the event logger's logs (docs/event-logger.md, "Output" and "Statistics"): one
// file per rank, `<prefix>.<rank>.log`. The logger's own format had no reader until the
// Python package needed one; this is it (pure C++, no MPI, no Python): a line is an event
// `[<seconds>] '<name>' <element>=<value> ...`, a `dropped N instance(s) of '<name>'`
// notice or a `statistics: ...` line, and a whole log ends with its statistics (the
// logger writes them at MPI_Finalize, then publishes the file). Anything else is a
// FormatError "<file>:<line>: expected ...", as the other readers say it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpimon::mel {

// One element's value: an integer when the text is one, else a number, else the text (an
// enum item's name, '?').
struct LoggedValue {
  enum Kind { integer, number, text } kind = text;
  int64_t integer_value = 0;
  double number_value = 0;
  std::string text_value;
};

struct LoggedEvent {
  double seconds = 0;
  std::string name;
  std::vector<std::pair<std::string, LoggedValue>> elements;  // in the type's order
  size_t line = 0;
};

struct LoggedDrop {
  std::string name;
  int64_t count = 0;
  size_t line = 0;
};

// `statistics: sent|received peer=P messages=N bytes=B`.
struct LoggedTraffic {
  bool sent = true;
  int64_t peer = 0;
  uint64_t messages = 0, bytes = 0;
};

struct EventLog {
  std::vector<LoggedEvent> events;
  std::vector<LoggedDrop> drops;
  std::vector<LoggedTraffic> traffic;
  std::vector<std::string> statistics;  // every statistics line, as written (without "statistics: ")
};

EventLog parse_event_log(std::string_view text, std::string_view source_name);
EventLog read_event_log(const std::string& path);  // FormatError, also "<path>: cannot open: <reason>"

// The logs of a run: `path` itself if it is a file, else the files `<path>.<rank>.log`
// (MEL_OUTPUT=<path>), in rank order, with their ranks (-1 for a file whose name has no
// rank). FormatError when there are none.
std::vector<std::pair<int32_t, std::string>> event_log_files(const std::string& path);

}  // namespace mpimon::mel
