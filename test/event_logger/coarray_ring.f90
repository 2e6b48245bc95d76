! A Fortran coarray program (OpenCoarrays over Open MPI): five rounds in which every
! image writes into its right neighbour's coarray. Its communication runs on windows and
! communicators made inside libcaf_mpi and through the Fortran bindings, which the event
! logger's C wrappers never see. Prints "image <n>: OK" or what differed.
program coarray_ring
  implicit none
  integer :: token[*]
  integer :: me, n, left, round
  logical :: ok
  me = this_image()
  n = num_images()
  left = merge(n, me - 1, me == 1)
  ok = .true.
  do round = 1, 5
    token[merge(1, me + 1, me == n)] = 100 * me + round
    sync all
    if (token /= 100 * left + round) ok = .false.
    sync all
  end do
  if (ok) then
    print '(a, i0, a)', 'image ', me, ': OK'
  else
    print '(a, i0, a)', 'image ', me, ': FAILED'
  end if
end program coarray_ring
