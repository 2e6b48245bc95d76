! The Fortran binding of mpimon_reorder (mpimon_reorder.h): `use mpimon`, then
!   call mpimon_reorder_f(MPI_COMM_WORLD, '', reordered, ierror)
! with integer handles (use mpi / mpif.h; with mpi_f08 pass comm%MPI_VAL). An empty
! topology means each host's own (hwloc); otherwise a synthetic description or XML file.
module mpimon
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  private
  public :: mpimon_reorder_f

  interface
    function mpimon_reorder_fortran(comm, topology, reordered) bind(C, name="mpimon_reorder_fortran") result(status)
      import :: c_int, c_char
      integer(c_int), value :: comm
      character(kind=c_char), dimension(*) :: topology
      integer(c_int) :: reordered
      integer(c_int) :: status
    end function
  end interface

contains

  subroutine mpimon_reorder_f(comm, topology, reordered, ierror)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: topology
    integer, intent(out) :: reordered
    integer, intent(out), optional :: ierror
    integer(c_int) :: status, result
    status = mpimon_reorder_fortran(int(comm, c_int), trim(topology) // c_null_char, result)
    reordered = int(result)
    if (present(ierror)) ierror = int(status)
  end subroutine

end module mpimon
