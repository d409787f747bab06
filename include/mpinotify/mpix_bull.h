/*
 * mpinotify/mpix_bull.h: the notified-RMA extension of Bull's (Eviden's)
 * Open MPI, ompi/mpiext/notified_rma (MPIX_Win_allocate_notify,
 * MPIX_Win_create_notify, MPIX_Put_notify, MPIX_Get_notify,
 * MPIX_Win_wait_notify, MPIX_Win_test_notify), as static inline functions
 * over mpinotify's MPI-5.1 calls, so that a program written for Bull's MPI
 * builds and runs unchanged on Open MPI or MPICH with mpinotify.
 *
 * Opt-in: nothing includes it for you. Include it instead of (or besides)
 * <mpi-ext.h>, or pass -include mpinotify/mpix_bull.h, and link
 * libmpinotify before the MPI library. It cannot be combined with
 * mpinotify/mpix_intel.h in one translation unit: both vendors name
 * different calls MPIX_Win_create_notify. docs/vendor_shims.md lists every
 * call, every difference, and what is not mapped.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef MPINOTIFY_MPIX_BULL_H
#define MPINOTIFY_MPIX_BULL_H

/* Bull's and Intel's MPIX_Win_create_notify, MPIX_Put_notify and MPIX_Get_notify
 * take different arguments: one translation unit can have only one shim. */
#ifdef MPINOTIFY_MPIX_INTEL_H
#error "mpix_bull.h and mpix_intel.h cannot be included together (docs/vendor_shims.md)"
#else

#include <limits.h>
#include <stdlib.h>

#include <mpi.h>
#ifndef MPI_NOTIFY_H
#include <mpi_notify.h>
#endif

/* MPICH's handle constants are C casts: keep C++ users' -Wold-style-cast
 * quiet about them here. */
#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif

/* What Bull's <mpi-ext.h> defines when the extension is there; programs
 * test it before using the calls below. */
#ifndef OMPI_HAVE_MPI_EXT_NOTIFIED_RMA
#define OMPI_HAVE_MPI_EXT_NOTIFIED_RMA 1
#endif

/* Bull's error class for an identifier outside [0, max]: here mpinotify's
 * class for an index outside the attached counters, the same range. */
#ifndef MPI_ERR_RMA_NOTIF_RANGE
#define MPI_ERR_RMA_NOTIF_RANGE MPI_ERR_RMA_NOTIFICATION
#endif

/* The largest identifier when the environment does not say: Bull's default
 * of its MCA parameter mpi_max_notification_idx. */
#ifndef MPINOTIFY_BULL_MAX_NOTIFICATION_IDX
#define MPINOTIFY_BULL_MAX_NOTIFICATION_IDX 65536
#endif

/*
 * The largest notification identifier of windows made from now on: Bull's
 * MCA parameter as Open MPI passes it to processes
 * (OMPI_MCA_mpi_max_notification_idx in the environment, which
 * `mpirun --mca mpi_max_notification_idx N` sets), a decimal integer in
 * [0, INT_MAX - 1]; absent or malformed: MPINOTIFY_BULL_MAX_NOTIFICATION_IDX.
 * Not part of Bull's API (Bull programs read the parameter through MPI_T).
 */
static inline int mpinotify_bull_max_notification_idx(void) {
  const char *text = getenv("OMPI_MCA_mpi_max_notification_idx");
  int value = 0;
  if (text == NULL || *text == '\0') return MPINOTIFY_BULL_MAX_NOTIFICATION_IDX;
  for (; *text != '\0'; ++text) {
    const int digit = *text - '0';
    if (digit < 0 || digit > 9) return MPINOTIFY_BULL_MAX_NOTIFICATION_IDX;
    if (value > (INT_MAX - 1 - digit) / 10) return MPINOTIFY_BULL_MAX_NOTIFICATION_IDX;
    value = value * 10 + digit;
  }
  return value;
}

/*
 * Gives a window just made on comm its notification identifiers: counters
 * 0 .. max, all 0 (collective, like Bull's creation). On failure (the
 * counters cannot be had on some rank: every rank fails alike) the window
 * is freed, *win is MPI_WIN_NULL, and the error goes through comm's error
 * handler, as a failed creation's does.
 */
static inline int mpinotify_bull_attach(MPI_Comm comm, MPI_Win *win) {
  MPI_Errhandler saved;
  int rc = MPI_Win_get_errhandler(*win, &saved);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
  rc = MPI_Win_set_num_notify(*win, MPI_INFO_NULL, mpinotify_bull_max_notification_idx() + 1);
  MPI_Win_set_errhandler(*win, saved);
  MPI_Errhandler_free(&saved);
  if (rc != MPI_SUCCESS) {
    MPI_Win_free(win);
    *win = MPI_WIN_NULL;
    MPI_Comm_call_errhandler(comm, rc);
  }
  return rc;
}

/* MPI_Win_allocate with notification identifiers 0 .. max. */
static inline int MPIX_Win_allocate_notify(MPI_Aint size, int disp_unit, MPI_Info info,
                                           MPI_Comm comm, void *baseptr, MPI_Win *win) {
  const int rc = MPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  if (rc != MPI_SUCCESS) return rc;
  return mpinotify_bull_attach(comm, win);
}

/* MPI_Win_create with notification identifiers 0 .. max. */
static inline int MPIX_Win_create_notify(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                         MPI_Comm comm, MPI_Win *win) {
  const int rc = MPI_Win_create(base, size, disp_unit, info, comm, win);
  if (rc != MPI_SUCCESS) return rc;
  return mpinotify_bull_attach(comm, win);
}

/*
 * MPI_Put, then the target's notification notification_id is raised once
 * the data is complete there. The identifier comes last, after the window
 * (Bull's order; mpinotify's is the other way round). Difference: Bull's
 * notification is a flag (the target's slot is set to 1), mpinotify's a
 * counter (+1); MPIX_Win_wait_notify and MPIX_Win_test_notify consume it
 * by zeroing the counter, so several notifications with one identifier
 * before the wait are seen as one, as with Bull's flag.
 */
static inline int MPIX_Put_notify(const void *origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype, int target_rank,
                                  MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Win win, int notification_id) {
  return MPI_Put_notify(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, notification_id, win);
}

/* MPI_Get, then the target's (the process read from) notification
 * notification_id is raised once the read is complete. */
static inline int MPIX_Get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                  int target_rank, MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Win win, int notification_id) {
  return MPI_Get_notify(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, notification_id, win);
}

/*
 * Waits until this process's notification notification_id is raised, then
 * consumes it (the counter goes back to 0; notifications that arrived
 * meanwhile are consumed with it, as Bull's flag would have merged them).
 * The wait is a threshold request (MPI_Wait makes progress and publishes
 * this process's own pending notifications), and the reset that consumes
 * is atomic, so two threads waiting on one identifier each need their own
 * notification, as with Bull's compare-and-swap.
 */
static inline int MPIX_Win_wait_notify(MPI_Win win, int notification_id) {
  MPI_Count previous = 0;
  MPI_Request request;
  int rc;
  do {
    rc = MPI_Win_notify_threshold(win, notification_id, 1, &request);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Win_reset_notify_value(win, notification_id, &previous);
    if (rc != MPI_SUCCESS) return rc;
  } while (previous == 0);
  return MPI_SUCCESS;
}

/*
 * *flag = 1 and the notification consumed if it was raised (as if
 * MPIX_Win_wait_notify had returned); otherwise *flag = 0 and nothing
 * changes. One atomic fetch-and-zero, which also makes progress. On an
 * error *flag is left alone.
 */
static inline int MPIX_Win_test_notify(MPI_Win win, int notification_id, int *flag) {
  MPI_Count previous = 0;
  const int rc = MPI_Win_reset_notify_value(win, notification_id, &previous);
  if (rc != MPI_SUCCESS) return rc;
  *flag = previous > 0 ? 1 : 0;
  return MPI_SUCCESS;
}

#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif /* not with the other vendor's shim */
#endif /* MPINOTIFY_MPIX_BULL_H */
