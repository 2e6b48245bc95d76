// The event logger's OTF2 output (MEL_FORMAT=otf2, docs/event-logger.md "OTF2"): the
// events of every rank in one OTF2 archive, <MEL_OUTPUT>.otf2/traces.otf2, which
// otf2-print, Vampir and OTF2's Python reader open. Built only when Debian's
// libotf2-trace-dev was found (MPIMON_HAVE_OTF2); without it, MEL_FORMAT=otf2 says so
// once and the text log is written.
//
// During the run each event becomes one fixed-size record in the rank's memory (40
// bytes: what OTF2 needs of it, nothing formatted); at MPI_Finalize, inside PMPI_Finalize
// after mpimon's own dump (so the monitoring counts none of it), the ranks write the
// archive together: each its location's events, rank 0 the global definitions (one
// location per rank, communicators and windows by their ids, one region per collective
// and synchronisation kind, the clock), into <name>.otf2.tmp, renamed when every rank is
// done. Nothing is overwritten: an existing archive of that name stays, and this run's
// is not written (said on stderr).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "event_log.h"

namespace mpimon::mel {

// MEL_FORMAT: "text" (default), "otf2", or both ("text,otf2").
struct OutputFormats {
  bool text = true;
  bool otf2 = false;
};
// Unknown words: `error` names them (the text log is written then).
OutputFormats parse_output_formats(const std::string& value, std::string& error);

// One event as OTF2 needs it.
struct TraceRecord {
  enum Kind : uint8_t { send, recv, coll_begin, coll_end, rma, sync_begin, sync_end, io_begin, io_end };
  double seconds = 0;  // on the logger's timeline (since MPI_Init)
  Kind kind = send;
  uint8_t op = 0;  // collective: index into the kind names; sync: likewise; io: kIoWrite, kIoCollective, kIoNonblocking
  int32_t object = 0;        // comm_id, win_id or file_id (MPI_File_c2f: the process's own)
  int32_t peer = -1;         // world rank: receiver, sender, RMA target, collective root (-1: none)
  int32_t tag = 0;           // p2p tag
  uint64_t bytes = 0;        // message size; RMA: bytes sent (put); collective: this process's
  uint64_t other_bytes = 0;  // RMA: bytes received (get); collective: the request (nonblocking); io: matching id
};
// The bits of an MPI-IO record's `op`.
inline constexpr uint8_t kIoWrite = 1, kIoCollective = 2, kIoNonblocking = 4;

class Trace {
 public:
  // `origin_realtime_ns`: CLOCK_REALTIME at the timeline's second 0.
  explicit Trace(int64_t origin_realtime_ns) : origin_ns_(origin_realtime_ns) {}
  // Keeps the event if it is one OTF2 records (point-to-point, collective, RMA, sync,
  // MPI-IO data access: a begin and an end record, the call's start and return).
  void record(const EventType& type, const std::vector<Value>& values, double seconds);
  const std::vector<TraceRecord>& records() const { return records_; }
  int64_t origin_ns() const { return origin_ns_; }
  // The names the kinds of collectives and synchronisations take in this process (the
  // event types' enum names: the same in every process of a job).
  const std::vector<std::string>& collective_kinds() const { return coll_kinds_; }
  const std::vector<std::string>& sync_kinds() const { return sync_kinds_; }

 private:
  int64_t origin_ns_;
  std::vector<TraceRecord> records_;
  std::vector<std::string> coll_kinds_, sync_kinds_;
  uint64_t io_operations_ = 0;  // the matching ids of MPI-IO operations
};

// Collective over MPI_COMM_WORLD (every rank calls it, `trace` null where a rank logs
// nothing): writes the archive <archive_prefix>.otf2. Returns "" or what went wrong.
std::string write_otf2_archive(const Trace* trace, const std::string& archive_prefix, int world_rank);

bool otf2_built();  // false: MEL_FORMAT=otf2 is refused (no libotf2 at build time)

}  // namespace mpimon::mel
