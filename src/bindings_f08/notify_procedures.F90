! SPDX-License-Identifier: BSD-3-Clause
!
! The notified RMA procedures of mpi_notify_f08 (their interfaces are in
! the module). External procedures under their specific names, as the
! MPI's own mpi_f08 routines are, so that a tool can intercept them by name.
#define BODY 1
#include "notify_families.inc"
