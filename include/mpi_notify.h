/*
 * mpi_notify.h: MPI-5.1 notified RMA for MPIs that do not have it yet.
 *
 * Link libmpinotify before the MPI library (or LD_PRELOAD it). Every
 * function below exists as MPI_X and as its profiling twin PMPI_X.
 * The behaviour is specified in docs/semantics.md.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef MPI_NOTIFY_H
#define MPI_NOTIFY_H

#include <mpi.h>

#define MPINOTIFY_VERSION_MAJOR 0
#define MPINOTIFY_VERSION_MINOR 1
#define MPINOTIFY_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Values that the host MPI only hands out at run time. They are valid after
 * MPI_Init / MPI_Init_thread returns and until MPI_Finalize.
 */
extern int mpinotify_err_rma_notification;
extern int mpinotify_keyval_num_sb;
extern int mpinotify_keyval_num_ub;
extern int mpinotify_keyval_value_ub;

/* Error class: a notification index outside the target's attached count. */
#ifndef MPI_ERR_RMA_NOTIFICATION
#define MPI_ERR_RMA_NOTIFICATION (mpinotify_err_rma_notification)
#endif

/* Window attributes; MPI_Win_get_attr yields a pointer to the value. */
#ifndef MPI_WIN_NOTIFICATION_NUM_SB
#define MPI_WIN_NOTIFICATION_NUM_SB (mpinotify_keyval_num_sb)     /* int* */
#define MPI_WIN_NOTIFICATION_NUM_UB (mpinotify_keyval_num_ub)     /* int* */
#define MPI_WIN_NOTIFICATION_VALUE_UB (mpinotify_keyval_value_ub) /* MPI_Count* */
#endif

/* Info keys, given at window creation: the most counters this rank will
 * attach; "true": every rank passes the same count to MPI_Win_set_num_notify. */
#define MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY "mpi_assert_max_num_notify"
#define MPI_INFO_KEY_ASSERT_SAME_NUM_NOTIFICATIONS "mpi_assert_same_num_notifications"
/* Library info keys: "true" at creation disables notifications on the window;
 * MPI_Win_get_info reports the backend serving a window. */
#define MPINOTIFY_INFO_KEY_DISABLE "mpinotify_disable"
#define MPINOTIFY_INFO_KEY_BACKEND "mpinotify_backend"

/* Declares MPI_name and its profiling twin PMPI_name with one parameter list. */
#define MPINOTIFY_DECLARE_PAIR(name, params) \
  int MPI_##name params;                     \
  int PMPI_##name params;

/* Notified data movement: the base operation, then +1 on the target's
 * counter notification_idx once the data movement is complete there. */
MPINOTIFY_DECLARE_PAIR(Put_notify,
                       (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, int notification_idx, MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Get_notify,
                       (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, int notification_idx, MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Accumulate_notify,
                       (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, int notification_idx, MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Get_accumulate_notify,
                       (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, int notification_idx, MPI_Win win))

MPINOTIFY_DECLARE_PAIR(Rput_notify,
                       (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, int notification_idx, MPI_Win win,
                        MPI_Request *request))
MPINOTIFY_DECLARE_PAIR(Rget_notify,
                       (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, int notification_idx, MPI_Win win,
                        MPI_Request *request))
MPINOTIFY_DECLARE_PAIR(Raccumulate_notify,
                       (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, int notification_idx, MPI_Win win,
                        MPI_Request *request))
MPINOTIFY_DECLARE_PAIR(Rget_accumulate_notify,
                       (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, int notification_idx, MPI_Win win,
                        MPI_Request *request))

/* Large-count forms: every count is an MPI_Count; the index stays int. */
MPINOTIFY_DECLARE_PAIR(Put_notify_c,
                       (const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, int notification_idx,
                        MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Get_notify_c,
                       (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        MPI_Datatype target_datatype, int notification_idx, MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Accumulate_notify_c,
                       (const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        int notification_idx, MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Get_accumulate_notify_c,
                       (const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        int notification_idx, MPI_Win win))
MPINOTIFY_DECLARE_PAIR(Rput_notify_c,
                       (const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, int notification_idx,
                        MPI_Win win, MPI_Request *request))
MPINOTIFY_DECLARE_PAIR(Rget_notify_c,
                       (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        MPI_Datatype target_datatype, int notification_idx, MPI_Win win,
                        MPI_Request *request))
MPINOTIFY_DECLARE_PAIR(Raccumulate_notify_c,
                       (const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        int notification_idx, MPI_Win win, MPI_Request *request))
MPINOTIFY_DECLARE_PAIR(Rget_accumulate_notify_c,
                       (const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        int notification_idx, MPI_Win win, MPI_Request *request))

/* Counters. set_num_notify is collective over the window's group. */
MPINOTIFY_DECLARE_PAIR(Win_set_num_notify, (MPI_Win win, MPI_Info info, int num_notifications))
MPINOTIFY_DECLARE_PAIR(Win_get_num_notify, (MPI_Win win, int target_rank, int *num_notifications))
MPINOTIFY_DECLARE_PAIR(Win_get_notify_value, (MPI_Win win, int notification_idx, MPI_Count *value))
MPINOTIFY_DECLARE_PAIR(Win_reset_notify_value,
                       (MPI_Win win, int notification_idx, MPI_Count *value))
MPINOTIFY_DECLARE_PAIR(Win_notify_threshold, (MPI_Win win, int notification_idx,
                                              MPI_Count threshold, MPI_Request *request))

/*
 * What the library counted (MPINOTIFY_STATS=1, docs/usage.md): for one
 * window (this process's side of it) or for the process. All zero, and
 * enabled 0, when counting is off. Not MPI functions: no PMPI_ twins.
 */
typedef struct MPINOTIFY_Stats {
  int enabled;          /* counting is on */
  MPI_Count put_notify; /* notified operations issued, blocking and request-based */
  MPI_Count get_notify;
  MPI_Count accumulate_notify;
  MPI_Count get_accumulate_notify;
  MPI_Count request_forms;      /* of those, the request-based ones */
  MPI_Count bytes;              /* target bytes of those */
  MPI_Count host_path;          /* of those, the ones whose data the host MPI moved */
  MPI_Count counter_reads;      /* MPI_Win_get_notify_value */
  MPI_Count counter_resets;     /* MPI_Win_reset_notify_value */
  MPI_Count threshold_requests; /* MPI_Win_notify_threshold */
  MPI_Count num_notify_calls;   /* MPI_Win_set_num_notify, completed */
  MPI_Count growths;            /* of those, the ones that made new counter storage */
  MPI_Count windows;            /* windows served with notifications */
} MPINOTIFY_Stats;

/* The counts of one window; errors through the window's handler. */
int MPINOTIFY_Win_get_stats(MPI_Win win, MPINOTIFY_Stats *stats);
/* The process's counts over every window, freed ones included: of one
 * backend ("sm", "ucx", "ofi", "pmpi"), or of all (NULL or ""); errors
 * through MPI_COMM_WORLD's handler. */
int MPINOTIFY_Get_stats(const char *backend, MPINOTIFY_Stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* MPI_NOTIFY_H */
