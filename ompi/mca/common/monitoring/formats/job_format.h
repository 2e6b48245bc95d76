// The job file: one machine-readable text file per job holding every rank's non-zero
// (source, destination, category) records. Format "mpimon-job", version 3
// (docs/formats.md; versions 1 and 2 are still read: readers/job_reader.h; 3 adds the
// category io_shuffle and the io_* annotations):
//
//   # mpimon job file (one record per non-zero source, destination, category)
//   format mpimon-job 3
//   world_size 8
//   enable_level 2
//   open_mpi 4.1.4
//   start 2026-11-21T23:50:01Z
//   end 2026-11-21T23:50:02Z
//   records
//   <source> <destination> <category> <messages> <bytes> <bucket>:<count>[,<bucket>:<count>...]
//
// Categories by name (external, internal, coll, osc_sent, osc_recv, io_shuffle); histogram buckets as
// in the engine (0 = 0 bytes, k = [2^(k-1), 2^k)), non-zero ones only. Records of one
// source are contiguous (each rank writes its own block); blocks are in rank order.
//
//   ...                 (rank 0's records and annotations)
//   checksum 0 <bytes> <crc32c>
//   ...                 (rank 1's block)
//   checksum 1 <bytes> <crc32c>
//   ...
//   eof <bytes before this line>
//
// Version 2's integrity trailer: each rank's block (rank 0's starts with the header)
// ends with a `checksum` line giving the block's size and CRC-32C (formats/checksum.h), in rank
// order, one per rank; the last line gives the size of everything before it. The reader
// checks them all: a file cut short, zero-filled or altered is reported as "incomplete
// or corrupted job file", never read as less traffic.
//
// Lines after `records` that start with a lowercase letter are annotations of the COLL
// and OSC layers: `<keyword> <field> ...` (see docs/formats.md); the reader keeps them
// split into fields for those layers' tools. `checksum` and `eof` are reserved.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"

namespace mpimon {

struct JobHeader {
  int world_size = 0;
  int enable_level = 0;
  std::string open_mpi_version;
  std::string start_time;  // ISO 8601, UTC
  std::string end_time;
};

inline constexpr int kJobFormatVersion = 3;

// `version` 1: a job file made in memory without the integrity trailer (the time series'
// sums: their frames carry their own checksums).
std::string format_job_header(const JobHeader& header, int version = kJobFormatVersion);
// The record lines of one rank (its block of the file).
std::string format_job_records(int32_t source, const Snapshot& records);
// Ends one rank's block (rank 0's begins with the header) with its checksum line.
void seal_job_block(int32_t rank, std::string& block);
// The file's last line; `bytes_before`: the size of everything before it.
std::string job_end_line(uint64_t bytes_before);
// A whole version-2 file from the header and each rank's block (records and
// annotations), in rank order: what the collective writer produces, in one string.
std::string assemble_job_file(const JobHeader& header, const std::vector<std::string>& bodies);

// `program <name>`: the executable the job ran (rank 0's block; runtime/program_name.h),
// which the topology component compares with its own before it reorders by a job file
// (readers/job_reader.h: job_program reads it back).
std::string format_job_program(std::string_view program);

// A communicator or window name as one field of a dump line: `%`, control characters
// and (when `escape_space`) spaces become %XX (upper-case hex); never empty ("%00").
std::string escape_name(std::string_view name, bool escape_space);
// Its inverse (a malformed %XX is kept as it is).
std::string unescape_name(std::string_view field);

// "0-3,8,10-12": world ranks in their order, runs of consecutive ranks as first-last (one
// range for MPI_COMM_WORLD however large it is).
std::string format_rank_ranges(const std::vector<int32_t>& world_ranks);
// The inverse; false for malformed text (empty, a range that decreases, not digits) and
// for more members than `world_size` or a rank beyond it (memory stays bounded by the
// job's size whatever the text).
bool parse_rank_ranges(std::string_view text, int32_t world_size, std::vector<int32_t>& world_ranks);

// UTC "YYYY-MM-DDThh:mm:ssZ" of a time_t.
std::string iso8601_utc(long long seconds_since_epoch);

}  // namespace mpimon
