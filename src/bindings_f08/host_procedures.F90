! SPDX-License-Identifier: BSD-3-Clause
!
! The MPI's own mpi_f08 procedures that take buffers, in the TS 29113 form
! (TYPE(*), DIMENSION(..); the specific names of MPICH 4.0), calling the C
! functions libmpinotify intercepts: a Fortran program's windows and plain
! RMA reach the library as a C program's do. The form that passes buffers
! by address (Open MPI 4.1) is in interpose.c; every other procedure too.
#define BODY 1
#include "host_families.inc"

subroutine MPI_Win_create_f08ts(base, size, disp_unit, info, comm, win, ierror)
  use mpi_f08, only: MPI_Info, MPI_Comm, MPI_Win, MPI_WIN_NULL, MPI_ADDRESS_KIND
  use mpinotify_f08_glue, only: win_create_glue, aint_kind
  implicit none
  type(*), dimension(..), asynchronous :: base
  integer(MPI_ADDRESS_KIND), intent(in) :: size
  integer, intent(in) :: disp_unit
  type(MPI_Info), intent(in) :: info
  type(MPI_Comm), intent(in) :: comm
  type(MPI_Win), intent(out) :: win
  integer, optional, intent(out) :: ierror
  integer :: rc, win_val

  win_val = MPI_WIN_NULL%MPI_VAL
  rc = win_create_glue(base, int(size, aint_kind), disp_unit, info%MPI_VAL, comm%MPI_VAL, win_val)
  win%MPI_VAL = win_val
  if (present(ierror)) ierror = rc
end subroutine MPI_Win_create_f08ts

subroutine MPI_Win_attach_f08ts(win, base, size, ierror)
  use mpi_f08, only: MPI_Win, MPI_ADDRESS_KIND
  use mpinotify_f08_glue, only: win_attach_glue, aint_kind
  implicit none
  type(MPI_Win), intent(in) :: win
  type(*), dimension(..), asynchronous :: base
  integer(MPI_ADDRESS_KIND), intent(in) :: size
  integer, optional, intent(out) :: ierror
  integer :: rc

  rc = win_attach_glue(win%MPI_VAL, base, int(size, aint_kind))
  if (present(ierror)) ierror = rc
end subroutine MPI_Win_attach_f08ts

subroutine MPI_Win_detach_f08ts(win, base, ierror)
  use mpi_f08, only: MPI_Win
  use mpinotify_f08_glue, only: win_detach_glue
  implicit none
  type(MPI_Win), intent(in) :: win
  type(*), dimension(..), asynchronous :: base
  integer, optional, intent(out) :: ierror
  integer :: rc

  rc = win_detach_glue(win%MPI_VAL, base)
  if (present(ierror)) ierror = rc
end subroutine MPI_Win_detach_f08ts

subroutine MPI_Fetch_and_op_f08ts(origin_addr, result_addr, datatype, target_rank, target_disp, &
                                  op, win, ierror)
  use mpi_f08, only: MPI_Datatype, MPI_Op, MPI_Win, MPI_ADDRESS_KIND
  use mpinotify_f08_glue, only: fetch_and_op_glue, aint_kind
  implicit none
  type(*), dimension(..), intent(in), asynchronous :: origin_addr
  type(*), dimension(..), asynchronous :: result_addr
  type(MPI_Datatype), intent(in) :: datatype
  integer, intent(in) :: target_rank
  integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
  type(MPI_Op), intent(in) :: op
  type(MPI_Win), intent(in) :: win
  integer, optional, intent(out) :: ierror
  integer :: rc

  rc = fetch_and_op_glue(origin_addr, result_addr, datatype%MPI_VAL, target_rank, &
                         int(target_disp, aint_kind), op%MPI_VAL, win%MPI_VAL)
  if (present(ierror)) ierror = rc
end subroutine MPI_Fetch_and_op_f08ts

subroutine MPI_Compare_and_swap_f08ts(origin_addr, compare_addr, result_addr, datatype, &
                                      target_rank, target_disp, win, ierror)
  use mpi_f08, only: MPI_Datatype, MPI_Win, MPI_ADDRESS_KIND
  use mpinotify_f08_glue, only: compare_and_swap_glue, aint_kind
  implicit none
  type(*), dimension(..), intent(in), asynchronous :: origin_addr, compare_addr
  type(*), dimension(..), asynchronous :: result_addr
  type(MPI_Datatype), intent(in) :: datatype
  integer, intent(in) :: target_rank
  integer(MPI_ADDRESS_KIND), intent(in) :: target_disp
  type(MPI_Win), intent(in) :: win
  integer, optional, intent(out) :: ierror
  integer :: rc

  rc = compare_and_swap_glue(origin_addr, compare_addr, result_addr, datatype%MPI_VAL, &
                             target_rank, int(target_disp, aint_kind), win%MPI_VAL)
  if (present(ierror)) ierror = rc
end subroutine MPI_Compare_and_swap_f08ts
