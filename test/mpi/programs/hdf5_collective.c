/* Parallel HDF5 (Debian's libhdf5-openmpi-dev), as an application uses it: one dataset
 * of <ranks> x 1024 doubles, each rank's row written, then read back, with collective
 * transfers (H5FD_MPIO_COLLECTIVE) through MPI-IO. The program sends nothing itself.
 *
 *   hdf5_collective <file>
 * Prints "rank <r>: OK hdf5" when the data read back is what was written; rank 0 also
 * prints "file size <bytes>" after closing the file. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>

#define ROW 1024

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* name = argc > 1 ? argv[1] : "hdf5.h5";
  double out[ROW], in[ROW];
  for (int i = 0; i < ROW; ++i) out[i] = rank * ROW + i;
  int ok = 1;

  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hsize_t dims[2] = {(hsize_t)size, ROW};
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t dataset = H5Dcreate2(file, "rows", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t start[2] = {(hsize_t)rank, 0}, count[2] = {1, ROW};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t memory = H5Screate_simple(2, count, NULL);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  ok &= H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, dxpl, out) >= 0;
  H5Dclose(dataset);
  H5Fclose(file);

  file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
  dataset = H5Dopen2(file, "rows", H5P_DEFAULT);
  ok &= H5Dread(dataset, H5T_NATIVE_DOUBLE, memory, space, dxpl, in) >= 0;
  for (int i = 0; i < ROW; ++i) ok &= in[i] == out[i];
  H5Dclose(dataset);
  H5Fclose(file);
  H5Pclose(dxpl);
  H5Sclose(memory);
  H5Sclose(space);
  H5Pclose(fapl);

  MPI_Barrier(MPI_COMM_WORLD);
  struct stat st;
  if (rank == 0 && stat(name, &st) == 0) printf("file size %lld\n", (long long)st.st_size);
  printf("rank %d: %s hdf5\n", rank, ok ? "OK" : "FAILED");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
