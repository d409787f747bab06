! SPDX-License-Identifier: BSD-3-Clause
!
! The mpi_f08 bindings under mpiexec (2 or more ranks, a ring): every
! notified operation, its request and large-count forms, the counters, a
! threshold request waited with MPI_Wait, array sections, the error
! paths, and that windows, synchronisation and waits made through mpi_f08
! reach the library. Each check runs on the rank that knows the answer; a
! failed one aborts the job with a non-zero exit.
program test_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  use mpi_notify_f08
  use f08_checks
  implicit none

  ! Window layout (1-based elements of mem; displacement = element - 1).
  integer, parameter :: nwin = 128, num_counters = 8
  integer, parameter :: at_put = 1, at_get = 9, at_acc = 17, at_shared = 21, at_getacc = 22
  integer, parameter :: at_rput = 25, at_rgetacc = 29
  integer, parameter :: at_large = 33, at_large_get = 37, at_large_acc = 41, at_large_rput = 43
  integer, parameter :: at_large_getacc = 45
  integer, parameter :: at_sec1 = 49, at_sec2 = 57, at_sec_prefix = 69, at_sec_get = 77
  integer, parameter :: at_plain = 81, at_bottom = 85, at_untouched = 90
  ! Counters and how many increments each rank's counter expects.
  integer, parameter :: c_put = 0, c_get = 1, c_acc = 2, c_shared = 3, c_getacc = 4
  integer, parameter :: c_request = 5, c_large = 6, c_section = 7

  type(MPI_Win) :: win
  type(MPI_Info) :: info
  type(c_ptr) :: base
  integer, pointer :: mem(:)
  integer :: left, right, i, ierr
  integer(MPI_COUNT_KIND) :: expected(0:num_counters - 1)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call check(nprocs >= 2, "needs at least two processes")
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)

  ! A window whose creation asserts at most 8 counters.
  call MPI_Info_create(info)
  call MPI_Info_set(info, MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "8")
  call MPI_Win_allocate(int(nwin * 4, MPI_ADDRESS_KIND), 4, info, MPI_COMM_WORLD, base, win)
  call MPI_Info_free(info)
  call c_f_pointer(base, mem, [nwin])
  call check_window_is_the_librarys(win, nwin * 4, num_counters)
  mem = -5
  mem(at_get:at_get + 7) = [(rank * 1000 + i, i = 1, 8)]
  mem(at_acc:at_acc + 3) = 0
  mem(at_shared) = 0
  mem(at_getacc) = 7
  mem(at_rgetacc) = 100
  mem(at_large_get:at_large_get + 3) = [(rank * 2000 + i, i = 1, 4)]
  mem(at_large_acc:at_large_acc + 1) = 0
  mem(at_large_getacc) = 50
  mem(at_sec_get:at_sec_get + 3) = [(rank * 3000 + i, i = 1, 4)]

  call check_counters_attach(win, right, num_counters)
  ! What each counter holds at the end (the put's was reset).
  expected = [0, 1, 1, 0, 1, 10, 5, 5]
  if (rank == 0) expected(c_shared) = nprocs

  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_lock_all(0, win)
  call notified_operations(win, mem, right, left)
  call request_forms(win, mem, right, left)
  call completion_calls(win, right)
  call large_count_forms(win, mem, right, left)
  call array_sections(win, mem, right, left)
  call plain_rma_through_the_library(win, mem, right, left)
  call error_paths(win, right)
  call MPI_Win_flush_all(win)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_unlock_all(win)

  ! The failed calls moved nothing and counted nothing.
  call check(all(mem(at_untouched:at_untouched + 9) == -5), "failed calls left the memory alone")
  call check_final_counters(win, expected)
  call MPI_Win_free(win, ierr)
  call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, "MPI_Win_free")

  call other_window_flavors(right, left)

  call MPI_Finalize()
  if (rank == 0) print '(a, i0, a)', "test_f08: passed on ", nprocs, " processes"

contains

  subroutine notified_operations(win, mem, right, left)
    type(MPI_Win), intent(in) :: win
    integer, pointer, intent(in) :: mem(:)
    integer, intent(in) :: right, left
    integer :: src(8), got(8), one, old, ierr, i
    integer(MPI_COUNT_KIND) :: value
    logical :: done
    type(MPI_Request) :: request

    ! Put: the target sees the data once its counter says so.
    src = [(rank * 100 + i, i = 1, 8)]
    call MPI_Put_notify(src, 8, MPI_INTEGER, right, int(at_put - 1, MPI_ADDRESS_KIND), 8, MPI_INTEGER, &
                        c_put, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify")
    call MPI_Win_flush(right, win)
    call wait_for(win, c_put, 1_MPI_COUNT_KIND)
    call check(all(mem(at_put:at_put + 7) == [(left * 100 + i, i = 1, 8)]), "notified put: data")

    ! Get: the origin has the data after the flush; the target is counted.
    got = 0
    call MPI_Get_notify(got, 8, MPI_INTEGER, right, int(at_get - 1, MPI_ADDRESS_KIND), 8, MPI_INTEGER, &
                        c_get, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Get_notify")
    call MPI_Win_flush(right, win)
    call check(all(got == [(right * 1000 + i, i = 1, 8)]), "notified get: data")
    call wait_for(win, c_get, 1_MPI_COUNT_KIND)

    ! Accumulate into the neighbour; and every rank into rank 0, on one
    ! counter that rank 0 polls with MPI_Test.
    call MPI_Accumulate_notify(src(1:4), 4, MPI_INTEGER, right, int(at_acc - 1, MPI_ADDRESS_KIND), 4, &
                               MPI_INTEGER, MPI_SUM, c_acc, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Accumulate_notify")
    one = 1
    call MPI_Accumulate_notify(one, 1, MPI_INTEGER, 0, int(at_shared - 1, MPI_ADDRESS_KIND), 1, &
                               MPI_INTEGER, MPI_SUM, c_shared, win)
    call MPI_Win_flush_all(win)
    call wait_for(win, c_acc, 1_MPI_COUNT_KIND)
    call check(all(mem(at_acc:at_acc + 3) == [(left * 100 + i, i = 1, 4)]), "notified accumulate: data")
    if (rank == 0) then
      call MPI_Win_notify_threshold(win, c_shared, int(nprocs, MPI_COUNT_KIND), request)
      done = .false.
      do while (.not. done)
        call MPI_Test(request, done, MPI_STATUS_IGNORE)
      end do
      call check(mem(at_shared) == nprocs, "accumulates of every rank on one counter")
    end if

    ! Get_accumulate: the origin gets the old value, the target the sum.
    one = 5
    old = -1
    call MPI_Get_accumulate_notify(one, 1, MPI_INTEGER, old, 1, MPI_INTEGER, right, &
                                   int(at_getacc - 1, MPI_ADDRESS_KIND), 1, MPI_INTEGER, MPI_SUM, &
                                   c_getacc, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Get_accumulate_notify")
    call MPI_Win_flush(right, win)
    call check(old == 7, "notified get_accumulate: old value")
    call wait_for(win, c_getacc, 1_MPI_COUNT_KIND)
    call check(mem(at_getacc) == 12, "notified get_accumulate: new value")

    ! The counter read and reset: the put's counter holds 1 until reset.
    call MPI_Win_get_notify_value(win, c_put, value, ierr)
    call check(ierr == MPI_SUCCESS .and. value == 1, "MPI_Win_get_notify_value")
    call MPI_Win_reset_notify_value(win, c_put, value, ierr)
    call check(ierr == MPI_SUCCESS .and. value == 1, "MPI_Win_reset_notify_value returns the value")
    call MPI_Win_get_notify_value(win, c_put, value)
    call check(value == 0, "MPI_Win_reset_notify_value zeroes the counter")
  end subroutine notified_operations

  subroutine request_forms(win, mem, right, left)
    type(MPI_Win), intent(in) :: win
    integer, pointer, intent(in) :: mem(:)
    integer, intent(in) :: right, left
    integer :: src(4), add, old, ierr, i
    type(MPI_Request) :: requests(2)
    type(MPI_Status) :: statuses(2)

    src = [(rank * 10 + i, i = 1, 4)]
    add = 1
    old = -1
    call MPI_Rput_notify(src, 4, MPI_INTEGER, right, int(at_rput - 1, MPI_ADDRESS_KIND), 4, MPI_INTEGER, &
                         c_request, win, requests(1), ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Rput_notify")
    call MPI_Rget_accumulate_notify(add, 1, MPI_INTEGER, old, 1, MPI_INTEGER, right, &
                                    int(at_rgetacc - 1, MPI_ADDRESS_KIND), 1, MPI_INTEGER, MPI_SUM, &
                                    c_request, win, requests(2), ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Rget_accumulate_notify")
    call MPI_Waitall(2, requests, statuses, ierr)
    call check(ierr == MPI_SUCCESS .and. requests(1) == MPI_REQUEST_NULL .and. &
               requests(2) == MPI_REQUEST_NULL, "MPI_Waitall on notified requests")
    call check(old == 100, "request get_accumulate: old value")
    ! A completed request form's notification reaches the target unflushed.
    call wait_for(win, c_request, 2_MPI_COUNT_KIND)
    call check(all(mem(at_rput:at_rput + 3) == [(left * 10 + i, i = 1, 4)]), "request put: data")
    call check(mem(at_rgetacc) == 101, "request get_accumulate: new value")
  end subroutine request_forms

  ! The other ways to complete requests, each on notified requests: the
  ! any, some and all forms, MPI_Request_get_status, MPI_Request_free.
  subroutine completion_calls(win, right)
    type(MPI_Win), intent(in) :: win
    integer, intent(in) :: right
    type(MPI_Request) :: requests(3), threshold(1)
    type(MPI_Status) :: statuses(3), status
    integer :: got(2, 3), src(2), index, outcount, indices(3), done_count, k, ierr
    logical :: done(3), flag
    integer(MPI_ADDRESS_KIND) :: from, into

    from = int(at_get - 1, MPI_ADDRESS_KIND)
    into = int(at_rput - 1, MPI_ADDRESS_KIND)
    src = [rank * 10 + 1, rank * 10 + 2]
    got = 0
    do k = 1, 3
      call MPI_Rget_notify(got(:, k), 2, MPI_INTEGER, right, from, 2, MPI_INTEGER, c_request, win, &
                           requests(k))
    end do
    done = .false.
    do k = 1, 3
      call MPI_Waitany(3, requests, index, status, ierr)
      call check(ierr == MPI_SUCCESS .and. index >= 1 .and. index <= 3, "MPI_Waitany: a 1-based index")
      call check(.not. done(index) .and. requests(index) == MPI_REQUEST_NULL, "MPI_Waitany: each once")
      done(index) = .true.
    end do
    call MPI_Waitany(3, requests, index, MPI_STATUS_IGNORE)
    call check(index == MPI_UNDEFINED, "MPI_Waitany of no active request: MPI_UNDEFINED")
    call check(all(got(1, :) == right * 1000 + 1) .and. all(got(2, :) == right * 1000 + 2), &
               "MPI_Waitany: data")

    do k = 1, 2
      call MPI_Rput_notify(src, 2, MPI_INTEGER, right, into, 2, MPI_INTEGER, c_request, win, requests(k))
    end do
    done_count = 0
    do while (done_count < 2)
      call MPI_Testsome(2, requests(1:2), outcount, indices, statuses, ierr)
      call check(ierr == MPI_SUCCESS .and. outcount >= 0, "MPI_Testsome")
      call check(all(indices(1:outcount) >= 1 .and. indices(1:outcount) <= 2), &
                 "MPI_Testsome: 1-based indices")
      done_count = done_count + outcount
    end do
    call MPI_Waitsome(2, requests(1:2), outcount, indices, MPI_STATUSES_IGNORE)
    call check(outcount == MPI_UNDEFINED, "MPI_Waitsome of no active request: MPI_UNDEFINED")

    do k = 1, 2
      call MPI_Rput_notify(src, 2, MPI_INTEGER, right, into, 2, MPI_INTEGER, c_request, win, requests(k))
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(2, requests(1:2), flag, MPI_STATUSES_IGNORE)
    end do
    call check(requests(1) == MPI_REQUEST_NULL .and. requests(2) == MPI_REQUEST_NULL, "MPI_Testall")

    ! Freed before completion: the flush completes it, the target counts it.
    call MPI_Rput_notify(src, 2, MPI_INTEGER, right, into, 2, MPI_INTEGER, c_request, win, requests(1))
    call MPI_Request_free(requests(1), ierr)
    call check(ierr == MPI_SUCCESS .and. requests(1) == MPI_REQUEST_NULL, "MPI_Request_free")
    call MPI_Win_flush(right, win)

    ! A threshold already reached: MPI_Request_get_status sees it done and
    ! leaves it to MPI_Testany to free.
    call MPI_Win_notify_threshold(win, c_get, 1_MPI_COUNT_KIND, threshold(1))
    flag = .false.
    do while (.not. flag)
      call MPI_Request_get_status(threshold(1), flag, status)
    end do
    call check(threshold(1) /= MPI_REQUEST_NULL, "MPI_Request_get_status leaves the request")
    call MPI_Testany(1, threshold, index, flag, MPI_STATUS_IGNORE)
    call check(flag .and. index == 1 .and. threshold(1) == MPI_REQUEST_NULL, "MPI_Testany")
  end subroutine completion_calls

  subroutine large_count_forms(win, mem, right, left)
    type(MPI_Win), intent(in) :: win
    integer, pointer, intent(in) :: mem(:)
    integer, intent(in) :: right, left
    integer(MPI_COUNT_KIND), parameter :: n1 = 1, n2 = 2, n4 = 4
    integer :: src(4), got(4), old, ierr, i
    type(MPI_Request) :: request

    src = [(rank * 20 + i, i = 1, 4)]
    got = 0
    old = -1
    call MPI_Put_notify(src, n4, MPI_INTEGER, right, int(at_large - 1, MPI_ADDRESS_KIND), n4, &
                        MPI_INTEGER, c_large, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify, large count")
    call MPI_Get_notify(got, n4, MPI_INTEGER, right, int(at_large_get - 1, MPI_ADDRESS_KIND), n4, &
                        MPI_INTEGER, c_large, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Get_notify, large count")
    call MPI_Accumulate_notify(src, n2, MPI_INTEGER, right, int(at_large_acc - 1, MPI_ADDRESS_KIND), n2, &
                               MPI_INTEGER, MPI_SUM, c_large, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Accumulate_notify, large count")
    call MPI_Get_accumulate_notify(src(4), n1, MPI_INTEGER, old, n1, MPI_INTEGER, right, &
                                   int(at_large_getacc - 1, MPI_ADDRESS_KIND), n1, MPI_INTEGER, MPI_SUM, &
                                   c_large, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Get_accumulate_notify, large count")
    call MPI_Rput_notify(src(3:4), n2, MPI_INTEGER, right, int(at_large_rput - 1, MPI_ADDRESS_KIND), n2, &
                         MPI_INTEGER, c_large, win, request, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Rput_notify, large count")
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    call MPI_Win_flush(right, win)
    call check(all(got == [(right * 2000 + i, i = 1, 4)]), "large get: data")
    call check(old == 50, "large get_accumulate: old value")
    call wait_for(win, c_large, 5_MPI_COUNT_KIND)
    call check(all(mem(at_large:at_large + 3) == [(left * 20 + i, i = 1, 4)]), "large put: data")
    call check(all(mem(at_large_acc:at_large_acc + 1) == [left * 20 + 1, left * 20 + 2]), &
               "large accumulate: data")
    call check(mem(at_large_getacc) == 50 + left * 20 + 4, "large get_accumulate: new value")
    call check(all(mem(at_large_rput:at_large_rput + 1) == [left * 20 + 3, left * 20 + 4]), &
               "large request put: data")
  end subroutine large_count_forms

  ! Non-contiguous sections travel element by element (docs/usage.md).
  subroutine array_sections(win, mem, right, left)
    type(MPI_Win), intent(in) :: win
    integer, pointer, intent(in) :: mem(:)
    integer, intent(in) :: right, left
    integer :: line(16), grid(5, 4), into(12), ierr, i, j
    integer :: sent_grid(5, 4)
    integer(MPI_ADDRESS_KIND) :: address
    type(MPI_Datatype) :: absolute

    line = [(rank * 50 + i, i = 1, 16)]
    grid = reshape([(rank * 500 + i, i = 1, 20)], [5, 4])
    sent_grid = reshape([(left * 500 + i, i = 1, 20)], [5, 4])
    into = -1
    call MPI_Put_notify(line(1:16:2), 8, MPI_INTEGER, right, int(at_sec1 - 1, MPI_ADDRESS_KIND), 8, &
                        MPI_INTEGER, c_section, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify of a strided section")
    call MPI_Put_notify(grid(2:4, :), 12, MPI_INTEGER, right, int(at_sec2 - 1, MPI_ADDRESS_KIND), 12, &
                        MPI_INTEGER, c_section, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify of a 2-d section")
    ! The first 7 elements of a 3x3 section: two whole columns and one more.
    call MPI_Put_notify(grid(1:5:2, 2:4), 7, MPI_INTEGER, right, int(at_sec_prefix - 1, MPI_ADDRESS_KIND), &
                        7, MPI_INTEGER, c_section, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify of part of a 2-d section")
    ! A get into a reversed strided section leaves the elements between.
    call MPI_Get_notify(into(10:1:-3), 4, MPI_INTEGER, right, int(at_sec_get - 1, MPI_ADDRESS_KIND), 4, &
                        MPI_INTEGER, c_section, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Get_notify into a section")
    ! MPI_BOTTOM with a datatype of absolute addresses.
    call MPI_Get_address(line(3), address)
    call MPI_Type_create_hindexed(1, [2], [address], MPI_INTEGER, absolute)
    call MPI_Type_commit(absolute)
    call MPI_Put_notify(MPI_BOTTOM, 1, absolute, right, int(at_bottom - 1, MPI_ADDRESS_KIND), 2, &
                        MPI_INTEGER, c_section, win, ierr)
    call check(ierr == MPI_SUCCESS, "MPI_Put_notify from MPI_BOTTOM")
    call MPI_Type_free(absolute)
    call MPI_Win_flush(right, win)
    call check(all(into([10, 7, 4, 1]) == [(right * 3000 + i, i = 1, 4)]), "get into a section: data")
    call check(all(into([2, 3, 5, 6, 8, 9, 11, 12]) == -1), "get into a section: the gaps")

    call wait_for(win, c_section, 5_MPI_COUNT_KIND)
    call check(all(mem(at_bottom:at_bottom + 1) == [left * 50 + 3, left * 50 + 4]), "MPI_BOTTOM: data")
    call check(all(mem(at_sec1:at_sec1 + 7) == [(left * 50 + i, i = 1, 16, 2)]), "strided section: data")
    call check(all(mem(at_sec2:at_sec2 + 11) == [((sent_grid(i, j), i = 2, 4), j = 1, 4)]), &
               "2-d section: data")
    call check(all(mem(at_sec_prefix:at_sec_prefix + 6) == &
                   [sent_grid(1, 2), sent_grid(3, 2), sent_grid(5, 2), sent_grid(1, 3), sent_grid(3, 3), &
                    sent_grid(5, 3), sent_grid(1, 4)]), "part of a 2-d section: data")
  end subroutine array_sections

  ! Plain RMA made through mpi_f08 is seen by the library, which then does
  ! not skip the host's flush; the target reads after a barrier.
  subroutine plain_rma_through_the_library(win, mem, right, left)
    type(MPI_Win), intent(in) :: win
    integer, pointer, intent(in) :: mem(:)
    integer, intent(in) :: right, left
    integer :: src(4), i

    src = [(rank * 7 + i, i = 1, 4)]
    call MPI_Put(src, 4, MPI_INTEGER, right, int(at_plain - 1, MPI_ADDRESS_KIND), 4, MPI_INTEGER, win)
    call MPI_Win_flush(right, win)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Win_sync(win)
    call check(all(mem(at_plain:at_plain + 3) == [(left * 7 + i, i = 1, 4)]), "plain MPI_Put: data")
  end subroutine plain_rma_through_the_library

  subroutine error_paths(win, right)
    type(MPI_Win), intent(in) :: win
    integer, intent(in) :: right
    integer :: src(16), grid(5, 4), ierr, errclass, length
    integer(MPI_COUNT_KIND) :: value
    type(MPI_Request) :: request
    character(len=MPI_MAX_ERROR_STRING) :: text
    integer(MPI_ADDRESS_KIND) :: disp

    src = 1
    grid = 1
    disp = int(at_untouched - 1, MPI_ADDRESS_KIND)
    call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)
    ! An index outside the target's counters.
    call MPI_Put_notify(src, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, num_counters, win, ierr)
    call check(ierr == MPI_ERR_RMA_NOTIFICATION, "index past the counters: MPI_ERR_RMA_NOTIFICATION")
    call MPI_Error_class(ierr, errclass)
    call check(errclass == MPI_ERR_RMA_NOTIFICATION, "MPI_Error_class of MPI_ERR_RMA_NOTIFICATION")
    call MPI_Error_string(ierr, text, length)
    call check(length > 0 .and. index(text(1:length), "MPI_ERR_RMA_NOTIFICATION") > 0, &
               "MPI_Error_string of MPI_ERR_RMA_NOTIFICATION")
    call MPI_Get_notify(src, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, -1, win, ierr)
    call check(ierr == MPI_ERR_RMA_NOTIFICATION, "negative index: MPI_ERR_RMA_NOTIFICATION")
    call MPI_Accumulate_notify(src, 1_MPI_COUNT_KIND, MPI_INTEGER, right, disp, 1_MPI_COUNT_KIND, &
                               MPI_INTEGER, MPI_SUM, num_counters + 3, win, ierr)
    call check(ierr == MPI_ERR_RMA_NOTIFICATION, "large count form: MPI_ERR_RMA_NOTIFICATION")
    call MPI_Rput_notify(src, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, num_counters, win, request, ierr)
    call check(ierr == MPI_ERR_RMA_NOTIFICATION, "request form: MPI_ERR_RMA_NOTIFICATION")
    call MPI_Win_get_notify_value(win, num_counters, value, ierr)
    call check(ierr == MPI_ERR_RMA_NOTIFICATION, "MPI_Win_get_notify_value: MPI_ERR_RMA_NOTIFICATION")
    call MPI_Win_notify_threshold(win, -2, 1_MPI_COUNT_KIND, request, ierr)
    call check(ierr == MPI_ERR_RMA_NOTIFICATION, "MPI_Win_notify_threshold: MPI_ERR_RMA_NOTIFICATION")
    ! Without ierror the call returns as well (the handler returns).
    call MPI_Put_notify(src, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, num_counters, win)
    ! Sections that cannot travel element by element: MPI_ERR_BUFFER.
    call MPI_Put_notify(src(1:16:2), 9, MPI_INTEGER, right, disp, 9, MPI_INTEGER, c_put, win, ierr)
    call check(ierr == MPI_ERR_BUFFER, "count past a section's end: MPI_ERR_BUFFER")
    call MPI_Put_notify(grid(1:2, :), 4, MPI_DOUBLE_PRECISION, right, disp, 4, MPI_DOUBLE_PRECISION, &
                        c_put, win, ierr)
    call check(ierr == MPI_ERR_BUFFER, "element size unlike the datatype's: MPI_ERR_BUFFER")
    call MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL)
  end subroutine error_paths

end program test_f08
