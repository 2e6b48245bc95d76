// MPI_T performance variables of the MPI-IO records (docs/io.md), Open MPI style names
// `io_monitoring_*`, type unsigned long long except the timer (double):
//
//   io_monitoring_calls           COUNTER    MPI_FILE  12 values: calls per access family
//   io_monitoring_size            AGGREGATE  MPI_FILE  12 values: bytes asked per family
//   io_monitoring_fs_count        COUNTER    MPI_FILE  2 values: file-system operations (read, write)
//   io_monitoring_fs_size         AGGREGATE  MPI_FILE  2 values: their bytes
//   io_monitoring_time            TIMER      MPI_FILE  3 values: seconds in read, write, metadata calls
//   io_monitoring_aggregator_count COUNTER   MPI_FILE  1 value: collective calls this process aggregated
//   io_monitoring_messages_count  SIZE       MPI_COMM  per peer: shuffle messages sent (all files)
//   io_monitoring_messages_size   SIZE       MPI_COMM  per peer: their bytes
//
// Families in the order of mpi_io::Access (read_at, read_at_all, read, read_all,
// read_shared, read_ordered, write_at, ...). A handle reads the file it is bound to from
// its open on; after MPI_File_close its reads fail (the object is gone). Registered with
// the point-to-point variables (at MPI_Init), so that tools find them before the first
// file is opened.
#pragma once

namespace mpimon::mpi_io {

void register_file_variables();

}  // namespace mpimon::mpi_io
