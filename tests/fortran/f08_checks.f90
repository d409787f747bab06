! SPDX-License-Identifier: BSD-3-Clause
!
! What test_f08 checks besides the operations: that a window made through
! mpi_f08 is the library's, its attributes and counters, windows of the
! other constructors (MPI_Win_create, MPI_Win_create_dynamic with
! MPI_Win_attach), and the failure report.
module f08_checks
  use mpi_f08
  use mpi_notify_f08
  implicit none
  private
  public :: rank, nprocs, check, wait_for
  public :: check_window_is_the_librarys, check_counters_attach, check_final_counters
  public :: other_window_flavors

  integer :: rank = -1, nprocs = 0

contains

  ! A failed check ends the whole job with a non-zero exit.
  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what

    if (condition) return
    write (*, '(a, i0, 2a)') "test_f08: rank ", rank, " failed: ", what
    flush (6)
    call MPI_Abort(MPI_COMM_WORLD, 1)
    error stop 1
  end subroutine check

  ! Waits, through a threshold request and MPI_Wait, until counter idx has
  ! counted `count` operations.
  subroutine wait_for(win, idx, count)
    type(MPI_Win), intent(in) :: win
    integer, intent(in) :: idx
    integer(MPI_COUNT_KIND), intent(in) :: count
    type(MPI_Request) :: request
    type(MPI_Status) :: status
    integer :: ierr

    call MPI_Win_notify_threshold(win, idx, count, request, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Win_notify_threshold")
    call MPI_Wait(request, status, ierr)
    call check(ierr == MPI_SUCCESS .and. request == MPI_REQUEST_NULL, "MPI_Wait on a threshold request")
  end subroutine wait_for

  ! The library serves the window (it reports its backend), hides what it
  ! changed of the host window, and answers the notification attributes
  ! as values; a new window has no counters.
  subroutine check_window_is_the_librarys(win, bytes, max_counters)
    type(MPI_Win), intent(in) :: win
    integer, intent(in) :: bytes, max_counters
    integer(MPI_ADDRESS_KIND) :: value
    logical :: found, served
    type(MPI_Info) :: info
    character(len=MPI_MAX_INFO_KEY) :: key
    integer :: nkeys, i, count

    call MPI_Win_get_info(win, info)
    call MPI_Info_get_nkeys(info, nkeys)
    served = .false.
    do i = 0, nkeys - 1
      call MPI_Info_get_nthkey(info, i, key)
      served = served .or. key == MPINOTIFY_INFO_KEY_BACKEND
    end do
    call MPI_Info_free(info)
    call check(served, "the window made by mpi_f08's MPI_Win_allocate is served by the library")

    call MPI_Win_get_attr(win, MPI_WIN_SIZE, value, found)
    call check(found .and. value == bytes, "MPI_WIN_SIZE is the size asked for")
    call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, value, found)
    call check(found .and. value == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR")
    call MPI_Win_get_attr(win, MPI_WIN_NOTIFICATION_NUM_UB, value, found)
    call check(found .and. value == max_counters, "MPI_WIN_NOTIFICATION_NUM_UB is the assertion")
    call MPI_Win_get_attr(win, MPI_WIN_NOTIFICATION_NUM_SB, value, found)
    call check(found .and. value == max_counters, "MPI_WIN_NOTIFICATION_NUM_SB is the assertion")
    call MPI_Win_get_attr(win, MPI_WIN_NOTIFICATION_VALUE_UB, value, found)
    call check(found .and. value == huge(0_MPI_COUNT_KIND), "MPI_WIN_NOTIFICATION_VALUE_UB")
    call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, value, found)
    call check(found .and. value == 4, "MPI_WIN_DISP_UNIT from the host")

    call MPI_Win_get_num_notify(win, rank, count)
    call check(count == 0, "a new window has no counters")
  end subroutine check_window_is_the_librarys

  subroutine check_counters_attach(win, right, n)
    type(MPI_Win), intent(in) :: win
    integer, intent(in) :: right, n
    integer :: count, idx, ierr
    integer(MPI_COUNT_KIND) :: value

    call MPI_Win_set_num_notify(win, MPI_INFO_NULL, n, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Win_set_num_notify")
    call MPI_Win_get_num_notify(win, right, count, ierr)
    call check(ierr == MPI_SUCCESS .and. count == n, "MPI_Win_get_num_notify of the neighbour")
    call MPI_Win_get_num_notify(win, rank, count)
    call check(count == n, "MPI_Win_get_num_notify of this rank")
    do idx = 0, n - 1
      call MPI_Win_get_notify_value(win, idx, value)
      call check(value == 0, "new counters are zero")
    end do
  end subroutine check_counters_attach

  subroutine check_final_counters(win, expected)
    type(MPI_Win), intent(in) :: win
    integer(MPI_COUNT_KIND), intent(in) :: expected(0:)
    integer(MPI_COUNT_KIND) :: value
    integer :: idx
    character(len=96) :: what

    do idx = 0, size(expected) - 1
      call MPI_Win_get_notify_value(win, idx, value)
      write (what, '(a, i0, a, i0, a, i0)') "counter ", idx, " counted exactly its operations: ", &
        value, " for ", expected(idx)
      call check(value == expected(idx), trim(what))
    end do
  end subroutine check_final_counters

  ! A notified put into a window of each other constructor, made through
  ! mpi_f08 (MPI_Win_create and MPI_Win_attach take buffers).
  subroutine other_window_flavors(right, left)
    integer, intent(in) :: right, left
    integer, allocatable, target, asynchronous :: created(:), attached(:)
    integer(MPI_ADDRESS_KIND) :: address, addresses(0:nprocs - 1)
    integer :: src(4), i, ierr
    type(MPI_Win) :: win

    src = [(rank * 30 + i, i = 1, 4)]
    allocate (created(8), attached(8))
    created = -1
    attached = -1

    call MPI_Win_create(created, int(8 * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Win_create")
    call MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1)
    call MPI_Win_lock_all(0, win)
    call MPI_Put_notify(src, 4, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, 4, MPI_INTEGER, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify into an MPI_Win_create window")
    call MPI_Win_flush(right, win)
    call wait_for(win, 0, 1_MPI_COUNT_KIND)
    call check(all(created(3:6) == [(left * 30 + i, i = 1, 4)]) .and. created(1) == -1, &
               "MPI_Win_create window: data")
    call MPI_Win_unlock_all(win)
    call MPI_Win_free(win)

    call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call MPI_Win_attach(win, attached, int(8 * 4, MPI_ADDRESS_KIND), ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Win_attach")
    call MPI_Get_address(attached, address)
    call MPI_Allgather(address, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD)
    call MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1)
    call MPI_Win_lock_all(0, win)
    call MPI_Put_notify(src, 4, MPI_INTEGER, right, addresses(right), 4, MPI_INTEGER, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify into attached memory")
    call MPI_Win_flush(right, win)
    call wait_for(win, 0, 1_MPI_COUNT_KIND)
    call check(all(attached(1:4) == [(left * 30 + i, i = 1, 4)]), "dynamic window: data")
    call MPI_Win_unlock_all(win)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Win_detach(win, attached, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Win_detach")
    call MPI_Win_free(win)
  end subroutine other_window_flavors

end module f08_checks
