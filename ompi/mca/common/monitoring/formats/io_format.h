// The I/O records in the dump formats (docs/formats.md, "MPI-IO"). Pure C++: written by
// the runtime at the end of the job, at flush phases and at every time-series snapshot;
// read back by io_reader.h.
//
// .prof lines, in the "# MPI-IO" section after the per-peer "# F" lines (prof_format.h);
// they start with '#', so Open MPI's profile2mat and aggregate_profile skip them; names
// percent-encode '%', tabs and control characters, spaces kept:
//
//   # IO_FILE	<me>	<identity>	<name>	<io>	<fcoll|->	<open> open	<close> close	<set_view>
//   set_view
//     	<sync> sync	<set_size> set_size	<seek> seek	<n> nonblocking	<n> split	<n> collective	<n>
//     aggregated 	<s> s read	<s> s write	<s> s meta
//   # IO_ASKED	<me>	<identity>	<access>	<calls> calls	<B> bytes	<h0>,...,<h65>
//   # IO_FS	<me>	<identity>	<read|write>	<n> ops	<n> entries	<B> bytes	<n> consecutive	<n>
//   sequential
//     	<B> end	<h0>,...,<h65>
//   # IO_SHUFFLE	<me>	<identity>	<peer>	<B> bytes	<n> msgs sent
//   # IO_FS_FAILED	<me>	<identity>	<read|write>	<n> failed ops	<B> failed bytes
//
// Job-file annotations (format version 3; names escaped as communicator names):
//
//   io_file <identity> <name> <world ranks as ranges, e.g. 0-3>          (first member only)
//   io_rank <me> <identity> <io> <fcoll|-> <open> <close> <set_view> <sync> <set_size> <seek>
//           <nonblocking> <split> <collective> <aggregated> <read s> <write s> <meta s>
//   io_asked <me> <identity> <access> <calls> <bytes> <bucket>:<count>,...
//   io_fs <me> <identity> <read|write> <ops> <entries> <bytes> <consecutive> <sequential> <end> <bucket>:<count>,...
//   io_shuffle <me> <identity> <peer> <messages> <bytes>
//   io_fs_failed <me> <identity> <read|write> <failed ops> <failed bytes>   (added in version 3:
//           readers that do not know it skip it, as every unknown annotation)
//
// One file per identity and rank: a process's records of one identity (a file reopened,
// or open twice at once) are summed. Lines only for what happened: io_asked per access
// family with calls, io_fs per direction with operations, io_fs_failed per direction with
// failed operations, io_shuffle per peer.
#pragma once

#include <string>

#include "analyses/mpi_io/file_registry.h"

namespace mpimon::mpi_io {

// Every file of `registry`, one block per identity, in identity order.
std::string format_prof_files(int32_t me, const FileRegistry& registry, double seconds_per_tick);
std::string format_job_files(int32_t me, const FileRegistry& registry, double seconds_per_tick);

// The pieces, for one identity's summed totals (tests, and the formats above).
struct FileSummary {
  FileIdentity identity;
  std::string io, fcoll;
  FileTotals totals;
};
std::vector<FileSummary> summarize(const FileRegistry& registry);

}  // namespace mpimon::mpi_io
