! The Fortran binding of mpimon_reorder (mpimon_reorder.h): `use mpimon`, then
!   call mpimon_reorder_f(MPI_COMM_WORLD, '', reordered, ierror)
!   call mpimon_reorder_by_f(MPI_COMM_WORLD, '', MPIMON_REORDER_EXTERNAL, reordered, ierror)
!   call mpimon_reorder_mark_f(MPI_COMM_WORLD, ierror)
! with integer handles (use mpi / mpif.h; with mpi_f08 pass comm%MPI_VAL). An empty
! topology means each host's own (hwloc); otherwise a synthetic description or XML file.
module mpimon
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  private
  public :: mpimon_reorder_f, mpimon_reorder_by_f, mpimon_reorder_mark_f
  public :: MPIMON_REORDER_ALL, MPIMON_REORDER_EXTERNAL, MPIMON_REORDER_INTERNAL

  ! The values of mpimon_reorder.h.
  integer, parameter :: MPIMON_REORDER_ALL = 0
  integer, parameter :: MPIMON_REORDER_EXTERNAL = 1
  integer, parameter :: MPIMON_REORDER_INTERNAL = 2

  interface
    function mpimon_reorder_by_fortran(comm, topology, traffic, reordered) &
        bind(C, name="mpimon_reorder_by_fortran") result(status)
      import :: c_int, c_char
      integer(c_int), value :: comm
      character(kind=c_char), dimension(*) :: topology
      integer(c_int), value :: traffic
      integer(c_int) :: reordered
      integer(c_int) :: status
    end function
    function mpimon_reorder_mark_fortran(comm) bind(C, name="mpimon_reorder_mark_fortran") result(status)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int) :: status
    end function
  end interface

contains

  subroutine mpimon_reorder_by_f(comm, topology, traffic, reordered, ierror)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: topology
    integer, intent(in) :: traffic
    integer, intent(out) :: reordered
    integer, intent(out), optional :: ierror
    integer(c_int) :: status, result
    status = mpimon_reorder_by_fortran(int(comm, c_int), trim(topology) // c_null_char, int(traffic, c_int), result)
    reordered = int(result)
    if (present(ierror)) ierror = int(status)
  end subroutine

  subroutine mpimon_reorder_f(comm, topology, reordered, ierror)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: topology
    integer, intent(out) :: reordered
    integer, intent(out), optional :: ierror
    call mpimon_reorder_by_f(comm, topology, MPIMON_REORDER_ALL, reordered, ierror)
  end subroutine

  subroutine mpimon_reorder_mark_f(comm, ierror)
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierror
    integer(c_int) :: status
    status = mpimon_reorder_mark_fortran(int(comm, c_int))
    if (present(ierror)) ierror = int(status)
  end subroutine

end module mpimon
