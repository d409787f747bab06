/*
 * mpinotify/mpix_intel.h: Intel MPI's notified one-sided extension
 * (MPIX_Win_create_notify, MPIX_Win_free_notify, MPIX_Win_get_notify,
 * MPIX_Win_set_notify, MPIX_Put_notify, MPIX_Get_notify; and the names of
 * Intel MPI 2021.15 and later: MPI_Win_notify_set_num,
 * MPI_Win_notify_get_value, MPI_Win_notify_set_value) as static inline
 * functions over mpinotify's MPI-5.1 calls, so that a program written for
 * Intel MPI builds and runs unchanged on Open MPI or MPICH with mpinotify.
 *
 * Opt-in: nothing includes it for you. Include it (or pass
 * -include mpinotify/mpix_intel.h) and link libmpinotify before the MPI
 * library. It cannot be combined with mpinotify/mpix_bull.h in one
 * translation unit: both vendors name different calls MPIX_Win_create_notify.
 * docs/vendor_shims.md lists every call, every difference, and what is not
 * mapped.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef MPINOTIFY_MPIX_INTEL_H
#define MPINOTIFY_MPIX_INTEL_H

/* Intel's and Bull's MPIX_Win_create_notify, MPIX_Put_notify and MPIX_Get_notify
 * take different arguments: one translation unit can have only one shim. */
#ifdef MPINOTIFY_MPIX_BULL_H
#error "mpix_intel.h and mpix_bull.h cannot be included together (docs/vendor_shims.md)"
#else

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

/*
 * Intel MPI 2021.15 and later define MPI_ERR_INVALID_NOTIFICATION next to
 * the MPI_Win_notify_* names (Intel's samples test for it to decide whether
 * those names exist). Here the class is mpinotify's own: an index outside
 * the target's (or one's own) attached counters.
 */
#ifndef MPI_ERR_INVALID_NOTIFICATION
#define MPI_ERR_INVALID_NOTIFICATION MPI_ERR_RMA_NOTIFICATION
#define MPINOTIFY_INTEL_MPI_NAMES 1
#endif

/*
 * Attaches notification_num counters, all 0, to an existing window of any
 * flavor. Difference: here it is collective over the window's group (it is
 * MPI_Win_set_num_notify); call it on every rank, each with its own count.
 * Calling it again replaces the count and zeroes every counter.
 */
static inline int MPIX_Win_create_notify(MPI_Win win, int notification_num) {
  return MPI_Win_set_num_notify(win, MPI_INFO_NULL, notification_num);
}

/* Detaches the counters (attached count 0); collective, as above. The window
 * itself stays; MPI_Win_free releases everything in any case. */
static inline int MPIX_Win_free_notify(MPI_Win win) {
  return MPI_Win_set_num_notify(win, MPI_INFO_NULL, 0);
}

/* Reads this process's counter notification_idx: the number of notified
 * operations that completed here since it was attached or last set to 0.
 * Polling it makes progress, and once a value is seen the data of those
 * operations is visible in the window (as after MPI_Win_sync). */
static inline int MPIX_Win_get_notify(MPI_Win win, int notification_idx, MPI_Count *value) {
  return MPI_Win_get_notify_value(win, notification_idx, value);
}

/*
 * Sets this process's counter notification_idx. Difference: only 0 can be
 * stored (an atomic fetch-and-zero: an increment racing with it is counted
 * after it, never lost), which is what Intel's samples do between
 * iterations. mpinotify has no store of another value, so a nonzero value
 * changes nothing and is an error through the window's error handler:
 * MPI_ERR_UNSUPPORTED_OPERATION (negative: MPI_ERR_ARG), after the index
 * was checked as for 0.
 */
static inline int MPIX_Win_set_notify(MPI_Win win, int notification_idx, MPI_Count value) {
  MPI_Count current = 0;
  int rc, code;
  if (value == 0) return MPI_Win_reset_notify_value(win, notification_idx, &current);
  rc = MPI_Win_get_notify_value(win, notification_idx, &current);
  if (rc != MPI_SUCCESS) return rc;
  code = value < 0 ? MPI_ERR_ARG : MPI_ERR_UNSUPPORTED_OPERATION;
  MPI_Win_call_errhandler(win, code);
  return code;
}

/*
 * MPI_Put / MPI_Get, then +1 on the target's counter notification_idx once
 * the data movement is complete there. The index comes before the window,
 * as in Intel's samples (which map MPI_Put_notify to MPIX_Put_notify
 * unchanged) and in MPI-5.1; one snippet of Intel's Developer Guide puts
 * the window first (docs/vendor_shims.md). An index outside the target's
 * attached count moves nothing and gives MPI_ERR_INVALID_NOTIFICATION.
 */
static inline int MPIX_Put_notify(const void *origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype, int target_rank,
                                  MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, int notification_idx, MPI_Win win) {
  return MPI_Put_notify(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, notification_idx, win);
}

/* The counter that moves is the target's (the process whose memory is
 * read), after the read. */
static inline int MPIX_Get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                  int target_rank, MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, int notification_idx, MPI_Win win) {
  return MPI_Get_notify(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, notification_idx, win);
}

/*
 * The names of Intel MPI 2021.15 and later, and the two that Intel's first
 * samples used (MPI_Win_notify_attach/detach). MPI_Put_notify and
 * MPI_Get_notify are mpinotify's own, with the same arguments. Left out when
 * mpi.h already defines MPI_ERR_INVALID_NOTIFICATION (an MPI that has these
 * names), or when MPINOTIFY_INTEL_NO_MPI_NAMES is defined.
 */
#if defined(MPINOTIFY_INTEL_MPI_NAMES) && !defined(MPINOTIFY_INTEL_NO_MPI_NAMES)
static inline int MPI_Win_notify_set_num(MPI_Win win, MPI_Info info, int notification_num) {
  return MPI_Win_set_num_notify(win, info, notification_num);
}

static inline int MPI_Win_notify_get_value(MPI_Win win, int notification_idx, MPI_Count *value) {
  return MPIX_Win_get_notify(win, notification_idx, value);
}

static inline int MPI_Win_notify_set_value(MPI_Win win, int notification_idx, MPI_Count value) {
  return MPIX_Win_set_notify(win, notification_idx, value);
}

static inline int MPI_Win_notify_attach(MPI_Win win, int notification_num, MPI_Info info) {
  return MPI_Win_set_num_notify(win, info, notification_num);
}

static inline int MPI_Win_notify_detach(MPI_Win win) { return MPIX_Win_free_notify(win); }
#endif

#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif /* not with the other vendor's shim */
#endif /* MPINOTIFY_MPIX_INTEL_H */
