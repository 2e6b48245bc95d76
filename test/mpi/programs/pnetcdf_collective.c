/* PnetCDF (Debian's libpnetcdf-dev), as an application uses it: one variable of <ranks> x
 * 1024 doubles, each rank's row written with ncmpi_put_vara_double_all, then read back with
 * ncmpi_get_vara_double_all (collective data mode), through MPI-IO. The program sends
 * nothing itself.
 *
 *   pnetcdf_collective <file>
 * Prints "rank <r>: OK pnetcdf" when the data read back is what was written; rank 0 also
 * prints "file size <bytes>" after closing the file. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <sys/stat.h>

#define ROW 1024

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* name = argc > 1 ? argv[1] : "pnetcdf.nc";
  double out[ROW], in[ROW];
  for (int i = 0; i < ROW; ++i) out[i] = rank * ROW + i;
  int ok = 1, file, dims[2], var;
  ok &= ncmpi_create(MPI_COMM_WORLD, name, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &file) == NC_NOERR;
  ok &= ncmpi_def_dim(file, "rank", size, &dims[0]) == NC_NOERR;
  ok &= ncmpi_def_dim(file, "column", ROW, &dims[1]) == NC_NOERR;
  ok &= ncmpi_def_var(file, "rows", NC_DOUBLE, 2, dims, &var) == NC_NOERR;
  ok &= ncmpi_enddef(file) == NC_NOERR;
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, ROW};
  ok &= ncmpi_put_vara_double_all(file, var, start, count, out) == NC_NOERR;
  ok &= ncmpi_close(file) == NC_NOERR;

  ok &= ncmpi_open(MPI_COMM_WORLD, name, NC_NOWRITE, MPI_INFO_NULL, &file) == NC_NOERR;
  ok &= ncmpi_inq_varid(file, "rows", &var) == NC_NOERR;
  ok &= ncmpi_get_vara_double_all(file, var, start, count, in) == NC_NOERR;
  for (int i = 0; i < ROW; ++i) ok &= in[i] == out[i];
  ok &= ncmpi_close(file) == NC_NOERR;

  MPI_Barrier(MPI_COMM_WORLD);
  struct stat st;
  if (rank == 0 && stat(name, &st) == 0) printf("file size %lld\n", (long long)st.st_size);
  printf("rank %d: %s pnetcdf\n", rank, ok ? "OK" : "FAILED");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
