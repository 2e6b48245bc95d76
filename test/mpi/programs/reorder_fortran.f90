! An application that uses mpimon_reorder from Fortran (`use mpimon`), built by the tests
! with  mpif90 reorder_fortran.f90 $(pkg-config --cflags --libs mpimon-reorder)
! Partners w and w + size/2 exchange 64 KiB, then the ranks are reordered; each process
! prints its world rank and its rank in the reordered communicator. Then a phase
! (mpimon_reorder_mark_f) in which neighbours w and w^1 exchange 64 KiB, reordered by the
! phase's point-to-point traffic only (MPIMON_REORDER_EXTERNAL): "Fortran phase: world <w>
! -> <rank>".
program reorder_fortran
  use mpi
  use mpimon
  implicit none
  integer :: rank, size, partner, neighbour, ierror, better, new_rank
  character :: out(65536), in(65536)
  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierror)
  out = 'f'
  partner = mod(rank + size / 2, size)
  call MPI_Sendrecv(out, 65536, MPI_CHARACTER, partner, 4, in, 65536, MPI_CHARACTER, partner, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
  call mpimon_reorder_f(MPI_COMM_WORLD, '', better, ierror)
  if (ierror /= MPI_SUCCESS) then
    print '(a,i0,a)', 'Fortran: world ', rank, ': not reordered'
  else
    call MPI_Comm_rank(better, new_rank, ierror)
    print '(a,i0,a,i0)', 'Fortran: world ', rank, ' -> ', new_rank
    call MPI_Comm_free(better, ierror)
  end if
  call mpimon_reorder_mark_f(MPI_COMM_WORLD, ierror)
  if (ierror == MPI_SUCCESS) then
    neighbour = ieor(rank, 1)
    call MPI_Sendrecv(out, 65536, MPI_CHARACTER, neighbour, 5, in, 65536, MPI_CHARACTER, neighbour, 5, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
    call mpimon_reorder_by_f(MPI_COMM_WORLD, '', MPIMON_REORDER_EXTERNAL, better, ierror)
    if (ierror == MPI_SUCCESS) then
      call MPI_Comm_rank(better, new_rank, ierror)
      print '(a,i0,a,i0)', 'Fortran phase: world ', rank, ' -> ', new_rank
      call MPI_Comm_free(better, ierror)
    end if
  end if
  call MPI_Finalize(ierror)
end program
