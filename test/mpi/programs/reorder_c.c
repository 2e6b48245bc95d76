/* An application that uses mpimon_reorder() from C, built by the tests with
 *   mpicc reorder_c.c $(pkg-config --cflags --libs mpimon-reorder)
 * Partners w and w + size/2 exchange 64 KiB, then the ranks are reordered; each process
 * prints its world rank and its rank in the reordered communicator. Then a phase
 * (mpimon_reorder_mark) in which neighbours w and w^1 exchange 64 KiB, reordered by the
 * phase's point-to-point traffic only (MPIMON_REORDER_EXTERNAL): "C phase: world <w> ->
 * <rank>". */
#include <mpi.h>
#include <mpimon_reorder.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static char out[65536], in[65536];
  const int partner = (rank + size / 2) % size;
  MPI_Sendrecv(out, 65536, MPI_CHAR, partner, 4, in, 65536, MPI_CHAR, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm better;
  if (mpimon_reorder(MPI_COMM_WORLD, NULL, &better) != MPI_SUCCESS) {
    printf("C: world %d: not reordered\n", rank);
  } else {
    int new_rank;
    MPI_Comm_rank(better, &new_rank);
    printf("C: world %d -> %d\n", rank, new_rank);
    MPI_Comm_free(&better);
  }
  if (mpimon_reorder_mark(MPI_COMM_WORLD) == MPI_SUCCESS) {
    MPI_Sendrecv(out, 65536, MPI_CHAR, rank ^ 1, 5, in, 65536, MPI_CHAR, rank ^ 1, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (mpimon_reorder_by(MPI_COMM_WORLD, NULL, MPIMON_REORDER_EXTERNAL, &better) == MPI_SUCCESS) {
      int new_rank;
      MPI_Comm_rank(better, &new_rank);
      printf("C phase: world %d -> %d\n", rank, new_rank);
      MPI_Comm_free(&better);
    }
  }
  MPI_Finalize();
  return 0;
}
