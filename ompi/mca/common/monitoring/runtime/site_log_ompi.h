// The site log's collective part (files/site_log.h, docs/site-deployment.md): at the start
// of MPI_Finalize every rank sends its job-file block and its host name to world rank 0,
// which assembles the job file (formats/job_format.h: the same text the job file has, plus
// the `site` annotations), compresses it and publishes it in the dated folder. Any failure
// is one line on world rank 0's stderr; the job goes on and exits as it would have.
#pragma once

#include <string>

#include <mpi.h>

#include "formats/job_format.h"

namespace mpimon {

struct Settings;

// Collective over `comm` (MPI_COMM_WORLD's ranks in world-rank order). `header`: rank 0's;
// `body`: this rank's records and annotations (rank 0's with its `program` line).
void write_site_log(MPI_Comm comm, const Settings& settings, int world_rank, const JobHeader& header,
                    const std::string& body, long long start_time);

}  // namespace mpimon
