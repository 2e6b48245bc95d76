// The event logger's pure part (no MPI): which events the user asked for, how one event
// instance becomes a log line, and the per-rank statistics printed at MPI_Finalize.
// event_logger.cpp (the PMPI library) turns MPI_T type information and payloads into
// the descriptions below and calls these functions; unit tests call them directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpimon::mel {

// ---------------------------------------------------------------------------------------
// MEL_EVENTS

// Event names separated by commas, colons, semicolons or white space, in order, without
// duplicates. Empty or only separators: no names (the logger then takes every event).
std::vector<std::string> parse_event_list(std::string_view text);

// The warning for names in MEL_EVENTS that no event type has; empty when all are known.
std::string unknown_events_warning(const std::vector<std::string>& unknown);

// ---------------------------------------------------------------------------------------
// Event types and payloads

// How an element's bytes are read: the basic MPI datatypes reduced to what printing needs.
enum class ValueKind { signed_integer, unsigned_integer, floating, character, boolean, unknown };

struct ElementType {
  std::string name;  // "peer", "bytes"; "element<i>" when the type names none
  ValueKind kind = ValueKind::unknown;
  size_t size = 0;                       // bytes; 0 when the datatype is unknown
  size_t displacement = 0;               // in the payload
  std::vector<std::string> value_names;  // enum item names: value i prints as value_names[i]
};

struct EventType {
  std::string name;
  std::vector<ElementType> elements;
  // A payload buffer size that MPI_T_event_copy cannot overrun: the last element's end,
  // counting unknown datatypes as the largest basic type, rounded up, with slack.
  size_t copy_buffer_size() const;
};

// "a,b,c" -> {"a", "b", "c"} (the "mpimon_enum_<element>" info values). Empty -> {}.
std::vector<std::string> split_value_names(std::string_view comma_list);

// The info key that holds the value names of element `element_name`.
std::string value_names_info_key(const std::string& element_name);

// One decoded element.
struct Value {
  ValueKind kind = ValueKind::unknown;
  int64_t signed_value = 0;
  uint64_t unsigned_value = 0;
  double floating_value = 0;
  // Integer value as signed, if it is an integer (or character/boolean).
  bool as_integer(int64_t& out) const;
};

// Reads every element from a payload laid out at the elements' displacements. Elements
// that do not fit in `size` bytes, or whose datatype is unknown, decode as unknown.
std::vector<Value> decode_payload(const EventType& type, const unsigned char* payload, size_t size);

// `[<seconds>] '<name>' key=value key=value ...` (no newline). Enum-valued elements print
// their item name; unknown values print as '?'.
std::string format_event_line(double seconds, const EventType& type, const std::vector<Value>& values);

// `dropped N instances of '<name>'`.
std::string format_dropped_line(long long count, const std::string& event_name);

// Seconds between two timestamps of one source.
double ticks_to_seconds(long long ticks, long long origin, long long ticks_per_second);

// One timeline for the timestamps of every source: seconds since the logger's origin
// (MPI_Init). MPI_T says timestamps compare only within a source; sources that name the
// same clock (source info key mpimon_clock) and count the same ticks per second share
// one origin exactly; another source is placed by a reading of it taken between two
// readings of the reference source (error: half the time between those two).
class Timeline {
 public:
  // The reference source, read at the origin.
  void set_reference(int source, long long ticks_per_second, const std::string& clock, long long origin);
  // Source `source` read `ticks` between the reference's readings `before` and `after`.
  void add_source(int source, long long ticks_per_second, const std::string& clock, long long before, long long ticks,
                  long long after);
  bool knows(int source) const;
  // Seconds on the timeline of timestamp `ticks` of a known source.
  double seconds(int source, long long ticks) const;

 private:
  struct Placement {
    long long ticks_per_second = 0;
    long long ticks = 0;  // a timestamp of the source ...
    double seconds = 0;   // ... and where it falls on the timeline
  };
  int reference_ = -1;
  long long reference_ticks_per_second_ = 0, origin_ = 0;
  std::string reference_clock_;
  std::map<int, Placement> sources_;
};

// ---------------------------------------------------------------------------------------
// Statistics

struct PeerTraffic {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

struct DurationSummary {
  uint64_t count = 0;
  double total = 0, min = 0, max = 0;
  double average() const { return count == 0 ? 0 : total / static_cast<double>(count); }
  void add(double seconds);
};

// Accumulates, from the communication events (communication_events.h):
// - messages and bytes sent per destination world rank (mpimon_pml_send_posted),
// - messages and bytes received per source world rank (mpimon_pml_recv_completed),
// - how long receives stayed posted: recv_posted and recv_completed paired by `request`,
// - how many instances of each event were logged or dropped.
class Statistics {
 public:
  // The events being logged (MEL_EVENTS; empty: all). A statistic whose events are left
  // out is reported as not logged, not as zero.
  void set_logged_events(std::vector<std::string> names) { logged_ = std::move(names); }
  void record(const EventType& type, const std::vector<Value>& values, double seconds);
  void record_dropped(const std::string& event_name, long long count);

  const std::map<int64_t, PeerTraffic>& sent() const { return sent_; }
  const std::map<int64_t, PeerTraffic>& received() const { return received_; }
  const DurationSummary& receive_posted_time() const { return receive_posted_; }
  size_t receives_still_posted() const { return posted_receives_.size(); }

  // The report, one line per item, each ending in '\n':
  //   statistics: events '<name>' logged=N dropped=M
  //   statistics: sent peer=P messages=N bytes=B
  //   statistics: received peer=P messages=N bytes=B
  //   statistics: receive posted-to-completed seconds count=N total=T average=A min=m max=M
  //   statistics: receives posted and not completed=N
  // and, for a statistic whose events MEL_EVENTS leaves out:
  //   statistics: <what> not logged (MEL_EVENTS leaves out <event>[, <event>])
  std::string report() const;

 private:
  bool logged(const char* event_name) const;
  std::vector<std::string> logged_;
  std::map<std::string, std::pair<uint64_t, uint64_t>> events_;  // name -> (logged, dropped)
  std::map<int64_t, PeerTraffic> sent_, received_;
  std::map<uint64_t, double> posted_receives_;  // request -> posted at (seconds)
  DurationSummary receive_posted_;
};

// Index of the element called `name` in `type`, or -1.
int element_index(const EventType& type, std::string_view name);

// ---------------------------------------------------------------------------------------
// Output

// MEL_OUTPUT=<prefix>: the log of world rank `rank`.
std::string log_file_path(const std::string& prefix, int rank);

// Prefixes every line of `text` (lines end in '\n') with `prefix`.
std::string prefix_lines(const std::string& text, const std::string& prefix);

}  // namespace mpimon::mel
