! SPDX-License-Identifier: BSD-3-Clause
!
! Messages go round a ring of processes on notified puts, with flow
! control: every process has two message slots in its window; a sender
! puts into the next process's slot and that process's counter 0 counts
! arrivals, and a receiver, once it has copied a message out, frees the
! slot with a notified put of an acknowledgement to its sender, whose
! counter 1 counts them. Nobody polls memory: each waits on a counter with
! MPI_Win_notify_threshold and MPI_Wait. Rank 0 sends the messages and
! checks each when it comes back, with every other rank's addition.
!
! Usage: mpiexec -n <processes> notify_ring_f08 [messages]
program notify_ring
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  use mpi_notify_f08
  implicit none

  integer, parameter :: length = 1024, slots = 2
  integer, parameter :: arrived = 0, freed = 1   ! the counters
  integer :: rank, nprocs, right, left, messages, k
  integer, pointer :: window_memory(:)
  integer, allocatable :: message(:)
  type(MPI_Win) :: win
  type(c_ptr) :: base
  character(len=16) :: argument

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  messages = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, argument)
    read (argument, *) messages
  end if

  ! The slots, then one element for acknowledgements (their value is not read).
  call MPI_Win_allocate(int((slots * length + 1) * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, &
                        MPI_COMM_WORLD, base, win)
  call c_f_pointer(base, window_memory, [slots * length + 1])
  call MPI_Win_set_num_notify(win, MPI_INFO_NULL, 2)
  allocate (message(length))
  call MPI_Win_lock_all(0, win)

  if (rank == 0) then
    do k = 1, min(slots, messages)
      call send(k)
    end do
    do k = 1, messages
      call receive(k)
      if (any(message /= k + nprocs * (nprocs - 1) / 2)) then
        write (*, '(a, i0, a)') "notify_ring: message ", k, " came back wrong"
        call MPI_Abort(MPI_COMM_WORLD, 1)
      end if
      if (k + slots <= messages) call send(k + slots)
    end do
    write (*, '(a, i0, a, i0, a)') "notify_ring: ", messages, " messages went round ", nprocs, &
      " processes and came back right"
  else
    do k = 1, messages
      call receive(k)
      message = message + rank
      call send(k)
    end do
  end if

  call MPI_Win_unlock_all(win)
  call MPI_Win_free(win)
  call MPI_Finalize()

contains

  ! Counter idx of this process has counted at least `count`.
  subroutine wait_until(idx, count)
    integer, intent(in) :: idx, count
    type(MPI_Request) :: request

    call MPI_Win_notify_threshold(win, idx, int(count, MPI_COUNT_KIND), request)
    call MPI_Wait(request, MPI_STATUS_IGNORE)
  end subroutine wait_until

  ! Message k into the right neighbour's slot, once it has freed that slot
  ! of message k - slots. Rank 0 makes the message.
  subroutine send(k)
    integer, intent(in) :: k
    integer(MPI_ADDRESS_KIND) :: slot

    if (rank == 0) message = k
    if (k > slots) call wait_until(freed, k - slots)
    slot = int(mod(k - 1, slots) * length, MPI_ADDRESS_KIND)
    call MPI_Put_notify(message, length, MPI_INTEGER, right, slot, length, MPI_INTEGER, arrived, win)
    call MPI_Win_flush(right, win)
  end subroutine send

  ! Message k out of its slot, and the slot handed back to the sender.
  subroutine receive(k)
    integer, intent(in) :: k
    integer :: first
    integer, save :: ack = 0

    call wait_until(arrived, k)
    first = mod(k - 1, slots) * length + 1
    message = window_memory(first:first + length - 1)
    call MPI_Put_notify(ack, 1, MPI_INTEGER, left, int(slots * length, MPI_ADDRESS_KIND), 1, &
                        MPI_INTEGER, freed, win)
    call MPI_Win_flush(left, win)
  end subroutine receive

end program notify_ring
