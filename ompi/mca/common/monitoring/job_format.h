// The job file: one machine-readable text file per job holding every rank's non-zero
// (source, destination, category) records. Format "mpimon-job", version 1:
//
//   # mpimon job file (one record per non-zero source, destination, category)
//   format mpimon-job 1
//   world_size 8
//   enable_level 2
//   open_mpi 4.1.4
//   start 2026-11-21T23:50:01Z
//   end 2026-11-21T23:50:02Z
//   records
//   <source> <destination> <category> <messages> <bytes> <bucket>:<count>[,<bucket>:<count>...]
//
// Categories by name (external, internal, coll, osc_sent, osc_recv); histogram buckets as
// in the engine (0 = 0 bytes, k = [2^(k-1), 2^k)), non-zero ones only. Records of one
// source are contiguous (each rank writes its own block); blocks are in rank order.
//
// Lines after `records` that start with a lowercase letter are annotations of the COLL
// and OSC layers: `<keyword> <field> ...` (see docs/formats.md); the reader keeps them
// split into fields for those layers' tools.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine.h"
#include "prof_format.h"  // FormatError

namespace mpimon {

struct JobHeader {
  int world_size = 0;
  int enable_level = 0;
  std::string open_mpi_version;
  std::string start_time;  // ISO 8601, UTC
  std::string end_time;
};

struct JobRecord {
  int32_t source = 0;
  int32_t destination = 0;
  Category category = Category::external;
  Counters counters;
  size_t line = 0;  // 1-based line number in the file
};

struct JobAnnotation {
  std::string keyword;
  std::vector<std::string> fields;
  size_t line = 0;
};

struct JobFile {
  JobHeader header;
  std::vector<JobRecord> records;
  std::vector<JobAnnotation> annotations;
};

inline constexpr int kJobFormatVersion = 1;

std::string format_job_header(const JobHeader& header);
// The record lines of one rank (its block of the file).
std::string format_job_records(int32_t source, const Snapshot& records);

JobFile parse_job_file(std::string_view text, std::string_view source_name);
// The same, streaming: each record and annotation to a callback (large files without
// holding every record); returns the header.
JobHeader for_each_job_record(std::string_view text, std::string_view source_name,
                              const std::function<void(const JobRecord&)>& on_record,
                              const std::function<void(JobAnnotation&&)>& on_annotation = {});
JobFile read_job_file(const std::string& path);  // throws FormatError

// A communicator or window name as one field of a dump line: `%`, control characters
// and (when `escape_space`) spaces become %XX (upper-case hex); never empty ("%00").
std::string escape_name(std::string_view name, bool escape_space);
// Its inverse (a malformed %XX is kept as it is).
std::string unescape_name(std::string_view field);

// UTC "YYYY-MM-DDThh:mm:ssZ" of a time_t.
std::string iso8601_utc(long long seconds_since_epoch);

}  // namespace mpimon
