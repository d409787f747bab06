! SPDX-License-Identifier: BSD-3-Clause
!
! The C functions behind the Fortran procedures that take buffers
! (rma_glue.c): buffers go over as TS 29113 descriptors, handles as their
! MPI_VAL. Private to libmpinotify_f08; programs use mpi_notify_f08.
module mpinotify_f08_glue
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_intptr_t, c_size_t, c_sizeof
  implicit none
  private
  public :: rma_glue, fetch_and_op_glue, compare_and_swap_glue
  public :: win_create_glue, win_attach_glue, win_detach_glue
  public :: RMA_PUT, RMA_GET, RMA_ACCUMULATE, RMA_GET_ACCUMULATE
  public :: RMA_LARGE, RMA_REQUEST, RMA_NOTIFIED
  public :: count_kind, aint_kind

  ! C's MPI_Count and MPI_Aint (INTEGER(MPI_COUNT_KIND) and
  ! INTEGER(MPI_ADDRESS_KIND) convert to them without loss).
  integer, parameter :: count_kind = c_long_long, aint_kind = c_intptr_t

  ! The call to make (f08_glue.h: F08_PUT ..., F08_LARGE ...).
  integer(c_int), parameter :: RMA_PUT = 0, RMA_GET = 1, RMA_ACCUMULATE = 2, RMA_GET_ACCUMULATE = 3
  integer(c_int), parameter :: RMA_LARGE = 1, RMA_REQUEST = 2, RMA_NOTIFIED = 4

  interface
    integer(c_int) function rma_glue(kind, flags, origin, origin_count, origin_type, &
                                     result, result_count, result_type, target_rank, target_disp, &
                                     target_count, target_type, op, idx, win, request) &
        bind(C, name="mpinotify_f08_rma")
      import :: c_int, count_kind, aint_kind
      integer(c_int), value :: kind, flags
      type(*), dimension(..), asynchronous :: origin, result
      integer(count_kind), value :: origin_count, result_count, target_count
      integer(c_int), value :: origin_type, result_type, target_rank, target_type, op, idx, win
      integer(aint_kind), value :: target_disp
      integer(c_int), intent(inout) :: request
    end function rma_glue

    integer(c_int) function fetch_and_op_glue(origin, result, datatype, target_rank, target_disp, &
                                              op, win) bind(C, name="mpinotify_f08_fetch_and_op")
      import :: c_int, aint_kind
      type(*), dimension(..), asynchronous :: origin, result
      integer(c_int), value :: datatype, target_rank, op, win
      integer(aint_kind), value :: target_disp
    end function fetch_and_op_glue

    integer(c_int) function compare_and_swap_glue(origin, compare, result, datatype, target_rank, &
                                                  target_disp, win) &
        bind(C, name="mpinotify_f08_compare_and_swap")
      import :: c_int, aint_kind
      type(*), dimension(..), asynchronous :: origin, compare, result
      integer(c_int), value :: datatype, target_rank, win
      integer(aint_kind), value :: target_disp
    end function compare_and_swap_glue

    integer(c_int) function win_create_glue(base, size, disp_unit, info, comm, win) &
        bind(C, name="mpinotify_f08_win_create")
      import :: c_int, aint_kind
      type(*), dimension(..), asynchronous :: base
      integer(aint_kind), value :: size
      integer(c_int), value :: disp_unit, info, comm
      integer(c_int), intent(inout) :: win
    end function win_create_glue

    integer(c_int) function win_attach_glue(win, base, size) bind(C, name="mpinotify_f08_win_attach")
      import :: c_int, aint_kind
      integer(c_int), value :: win
      type(*), dimension(..), asynchronous :: base
      integer(aint_kind), value :: size
    end function win_attach_glue

    integer(c_int) function win_detach_glue(win, base) bind(C, name="mpinotify_f08_win_detach")
      import :: c_int
      integer(c_int), value :: win
      type(*), dimension(..), asynchronous :: base
    end function win_detach_glue
  end interface

contains

  ! What mpi_f08 has of its own, which reaches the C side as ordinary
  ! arguments (buffers.c asks for it once): the addresses of its special
  ! variables, the size of TYPE(MPI_Status), and the Fortran keyvals of
  ! the window attributes the library answers (MPICH's differ from C's).
  subroutine report_sentinels() bind(C, name="mpinotify_f08_report_sentinels")
    use mpi_f08, only: MPI_BOTTOM, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_WIN_SIZE, &
                       MPI_WIN_CREATE_FLAVOR
    interface
      subroutine store(bottom, status_ignore, statuses_ignore, status_size, win_size_keyval, &
                       win_create_flavor_keyval) bind(C, name="mpinotify_f08_store_sentinels")
        import :: c_int, c_size_t
        type(*) :: bottom, status_ignore
        type(*), dimension(*) :: statuses_ignore
        integer(c_size_t), value :: status_size
        integer(c_int), value :: win_size_keyval, win_create_flavor_keyval
      end subroutine store
    end interface
    call store(MPI_BOTTOM, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, c_sizeof(MPI_STATUS_IGNORE), &
               MPI_WIN_SIZE, MPI_WIN_CREATE_FLAVOR)
  end subroutine report_sentinels

end module mpinotify_f08_glue
