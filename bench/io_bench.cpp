// MPI-IO call loops for instruction-count benchmarks (bench/io_overhead.sh).
//
//   mpimon_bench_io <write_at|write_at_all> <bytes> <K>
//
// Opens bench-io.dat on MPI_COMM_WORLD, then K times: MPI_File_write_at (or _all) of
// <bytes> bytes at offset world rank x <bytes> (the same bytes again and again: the file
// stays small), then closes it. Everything but the K calls happens outside
// MPI_File_write_at(_all), so `valgrind --tool=callgrind
// --toggle-collect=PMPI_File_write_at` counts only them; two values of K give one call.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4 || (std::strcmp(argv[1], "write_at") != 0 && std::strcmp(argv[1], "write_at_all") != 0)) {
    if (rank == 0) std::fprintf(stderr, "usage: mpimon_bench_io <write_at|write_at_all> <bytes> <K>\n");
    MPI_Finalize();
    return 2;
  }
  const bool collective = std::strcmp(argv[1], "write_at_all") == 0;
  const int bytes = std::atoi(argv[2]);
  const long k = std::atol(argv[3]);
  std::vector<char> buffer(static_cast<size_t>(bytes > 0 ? bytes : 1), 'x');
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, "bench-io.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
      MPI_SUCCESS) {
    std::fprintf(stderr, "mpimon_bench_io: cannot open bench-io.dat\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const MPI_Offset offset = static_cast<MPI_Offset>(rank) * bytes;
  for (long i = 0; i < k; ++i) {
    const int rc = collective ? MPI_File_write_at_all(fh, offset, buffer.data(), bytes, MPI_BYTE, MPI_STATUS_IGNORE)
                              : MPI_File_write_at(fh, offset, buffer.data(), bytes, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
