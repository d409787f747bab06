! SPDX-License-Identifier: BSD-3-Clause
!
! mpi_notify_f08: MPI-5.1 notified RMA for programs that use mpi_f08.
! The procedures have the shape of the MPI standard's Fortran 2008
! bindings: handles of mpi_f08's types, buffers TYPE(*), DIMENSION(..),
! counts INTEGER or, under the same generic name, INTEGER(MPI_COUNT_KIND),
! and an OPTIONAL ierror. They call the C functions of mpi_notify.h, which
! report errors through the window's error handler.
!
! Link libmpinotify_f08 and libmpinotify before the MPI's libraries
! (docs/usage.md, "Fortran"): besides these procedures, libmpinotify_f08
! carries the mpi_f08 procedures whose C functions libmpinotify intercepts
! (window creation, synchronisation, waits, ...), which the MPI's own
! mpi_f08 would otherwise send past the library.
module mpi_notify_f08
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  private

  public :: MPI_Put_notify, MPI_Get_notify, MPI_Accumulate_notify, MPI_Get_accumulate_notify
  public :: MPI_Rput_notify, MPI_Rget_notify, MPI_Raccumulate_notify, MPI_Rget_accumulate_notify
  public :: MPI_Win_set_num_notify, MPI_Win_get_num_notify, MPI_Win_get_notify_value
  public :: MPI_Win_reset_notify_value, MPI_Win_notify_threshold
  public :: MPI_ERR_RMA_NOTIFICATION, MPI_WIN_NOTIFICATION_NUM_SB, MPI_WIN_NOTIFICATION_NUM_UB
  public :: MPI_WIN_NOTIFICATION_VALUE_UB
  public :: MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS
  public :: MPINOTIFY_INFO_KEY_DISABLE, MPINOTIFY_INFO_KEY_BACKEND

  ! The host MPI hands these out at run time: the C library's variables,
  ! valid from MPI_Init to MPI_Finalize. The keyvals name predefined
  ! attributes: MPI_Win_get_attr gives their values (NUM_SB and NUM_UB
  ! default integers, VALUE_UB an MPI_COUNT_KIND value).
  integer(c_int), bind(C, name="mpinotify_err_rma_notification"), protected :: &
      MPI_ERR_RMA_NOTIFICATION
  integer(c_int), bind(C, name="mpinotify_keyval_num_sb"), protected :: &
      MPI_WIN_NOTIFICATION_NUM_SB
  integer(c_int), bind(C, name="mpinotify_keyval_num_ub"), protected :: &
      MPI_WIN_NOTIFICATION_NUM_UB
  integer(c_int), bind(C, name="mpinotify_keyval_value_ub"), protected :: &
      MPI_WIN_NOTIFICATION_VALUE_UB

  ! Info keys at window creation (mpi_notify.h has the same strings).
  character(len=*), parameter :: MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY = "mpi_assert_max_num_notify"
  character(len=*), parameter :: MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS = &
      "mpi_assert_same_num_notifications"
  character(len=*), parameter :: MPINOTIFY_INFO_KEY_DISABLE = "mpinotify_disable"
  character(len=*), parameter :: MPINOTIFY_INFO_KEY_BACKEND = "mpinotify_backend"

! The data movement procedures: generic names over the specific ones.
#define BODY 0
#include "notify_families.inc"
#undef BODY

  ! The counters (no counts, hence no large-count forms; values and
  ! thresholds are INTEGER(MPI_COUNT_KIND) as MPI_Count is in C).
  interface MPI_Win_set_num_notify
    subroutine MPI_Win_set_num_notify_f08(win, info, num_notifications, ierror)
      use mpi_f08, only: MPI_Win, MPI_Info
      implicit none
      type(MPI_Win), intent(in) :: win
      type(MPI_Info), intent(in) :: info
      integer, intent(in) :: num_notifications
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Win_set_num_notify_f08
  end interface MPI_Win_set_num_notify

  interface MPI_Win_get_num_notify
    subroutine MPI_Win_get_num_notify_f08(win, target_rank, num_notifications, ierror)
      use mpi_f08, only: MPI_Win
      implicit none
      type(MPI_Win), intent(in) :: win
      integer, intent(in) :: target_rank
      integer, intent(out) :: num_notifications
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Win_get_num_notify_f08
  end interface MPI_Win_get_num_notify

  interface MPI_Win_get_notify_value
    subroutine MPI_Win_get_notify_value_f08(win, notification_idx, value, ierror)
      use mpi_f08, only: MPI_Win, MPI_COUNT_KIND
      implicit none
      type(MPI_Win), intent(in) :: win
      integer, intent(in) :: notification_idx
      integer(MPI_COUNT_KIND), intent(out) :: value
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Win_get_notify_value_f08
  end interface MPI_Win_get_notify_value

  interface MPI_Win_reset_notify_value
    subroutine MPI_Win_reset_notify_value_f08(win, notification_idx, value, ierror)
      use mpi_f08, only: MPI_Win, MPI_COUNT_KIND
      implicit none
      type(MPI_Win), intent(in) :: win
      integer, intent(in) :: notification_idx
      integer(MPI_COUNT_KIND), intent(out) :: value
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Win_reset_notify_value_f08
  end interface MPI_Win_reset_notify_value

  interface MPI_Win_notify_threshold
    subroutine MPI_Win_notify_threshold_f08(win, notification_idx, threshold, request, ierror)
      use mpi_f08, only: MPI_Win, MPI_Request, MPI_COUNT_KIND
      implicit none
      type(MPI_Win), intent(in) :: win
      integer, intent(in) :: notification_idx
      integer(MPI_COUNT_KIND), intent(in) :: threshold
      type(MPI_Request), intent(out) :: request
      integer, optional, intent(out) :: ierror
    end subroutine MPI_Win_notify_threshold_f08
  end interface MPI_Win_notify_threshold

end module mpi_notify_f08
