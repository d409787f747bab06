/*
 * The counter procedures of mpi_notify_f08 (specific names MPI_..._f08,
 * interfaces in mpi_notify_f08.F90): handles converted, the C function of
 * mpi_notify.h called, which reports errors through the window.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "f08_glue.h"

F08_PROCEDURE(mpi_win_set_num_notify_f08_, (const MPI_Fint *win, const MPI_Fint *info,
                                            const MPI_Fint *num_notifications, MPI_Fint *ierror)) {
  mpinotify_f08_finish(
      ierror, MPI_Win_set_num_notify(MPI_Win_f2c(*win), MPI_Info_f2c(*info), *num_notifications));
}

F08_PROCEDURE(mpi_win_get_num_notify_f08_, (const MPI_Fint *win, const MPI_Fint *target_rank,
                                            MPI_Fint *num_notifications, MPI_Fint *ierror)) {
  int count = 0;
  const int rc = MPI_Win_get_num_notify(MPI_Win_f2c(*win), *target_rank, &count);
  if (rc == MPI_SUCCESS) *num_notifications = count;
  mpinotify_f08_finish(ierror, rc);
}

F08_PROCEDURE(mpi_win_get_notify_value_f08_, (const MPI_Fint *win, const MPI_Fint *notification_idx,
                                              MPI_Count *value, MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror,
                       MPI_Win_get_notify_value(MPI_Win_f2c(*win), *notification_idx, value));
}

F08_PROCEDURE(mpi_win_reset_notify_value_f08_,
              (const MPI_Fint *win, const MPI_Fint *notification_idx, MPI_Count *value,
               MPI_Fint *ierror)) {
  mpinotify_f08_finish(ierror,
                       MPI_Win_reset_notify_value(MPI_Win_f2c(*win), *notification_idx, value));
}

F08_PROCEDURE(mpi_win_notify_threshold_f08_,
              (const MPI_Fint *win, const MPI_Fint *notification_idx, const MPI_Count *threshold,
               MPI_Fint *request, MPI_Fint *ierror)) {
  MPI_Request c_request = MPI_REQUEST_NULL;
  const int rc =
      MPI_Win_notify_threshold(MPI_Win_f2c(*win), *notification_idx, *threshold, &c_request);
  if (rc == MPI_SUCCESS) *request = MPI_Request_c2f(c_request);
  mpinotify_f08_finish(ierror, rc);
}
