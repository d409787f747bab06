/*
 * SEMANTICS section 1 from C99 (compiled -std=c99 -pedantic -Werror): calls
 * every one of the 42 functions of mpi_notify.h, MPI_ and PMPI_ twins alike,
 * correctly, and checks what each did. Exits non-zero on any failure.
 *
 * Every rank works on its right neighbour. Data-movement function f (0..15:
 * Put, Get, Accumulate, Get_accumulate, their R forms, then the same eight
 * as _c forms) uses counter f and, for its MPI_ twin, window slot 2f, for
 * its PMPI_ twin slot 2f+1: counter f ends at 2 at every rank.
 */
#include <limits.h>
#include <mpi_notify.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NUM_FUNCTIONS 16
#define NUM_SLOTS (2 * NUM_FUNCTIONS)
#define ASSERTION 64

static int failures = 0;
static int me = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      ++failures;                                                                                  \
      fprintf(stderr, "c_api_program: rank %d: line %d: check failed: %s\n", me, __LINE__, #cond); \
    }                                                                                              \
  } while (0)

#define CHECK_OK(call)                                                                          \
  do {                                                                                          \
    const int rc_ = (call);                                                                     \
    if (rc_ != MPI_SUCCESS) {                                                                   \
      ++failures;                                                                               \
      fprintf(stderr, "c_api_program: rank %d: line %d: %s returned %d\n", me, __LINE__, #call, \
              rc_);                                                                             \
    }                                                                                           \
  } while (0)

/* What slot s of rank r holds before the operations. */
static int64_t initial(int r, int s) { return 100000 + 100 * (int64_t)r + s; }
/* What origin o puts into slot s, or adds to it. */
static int64_t operand(int o, int s) { return 7000 + 10 * (int64_t)o + s; }

static int error_class_of(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

int main(int argc, char **argv) {
  int n = 0;
  int right, left, f, s, flag, count;
  MPI_Info info;
  MPI_Win win = MPI_WIN_NULL;
  int64_t *base = NULL;
  int64_t origin[NUM_SLOTS];
  int64_t result[NUM_SLOTS];
  MPI_Request requests[NUM_SLOTS];
  MPI_Status statuses[NUM_SLOTS];
  int num_requests = 0;
  int *int_attr = NULL;
  MPI_Count *count_attr = NULL;
  MPI_Count value = -1;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Status status;
  int all_failures = 0;
  const MPI_Datatype t = MPI_INT64_T;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  right = (me + 1) % n;
  left = (me + n - 1) % n;

  MPI_Info_create(&info);
  MPI_Info_set(info, MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "64");
  CHECK_OK(MPI_Win_allocate(NUM_SLOTS * (MPI_Aint)sizeof(int64_t), (int)sizeof(int64_t), info,
                            MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  if (win == MPI_WIN_NULL) {
    fprintf(stderr, "c_api_program: rank %d: no window\n", me);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

  /* The attributes, through the run-time keyvals. */
  flag = 0;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFICATION_NUM_SB, &int_attr, &flag));
  CHECK(flag == 1 && int_attr != NULL && *int_attr == ASSERTION);
  flag = 0;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFICATION_NUM_UB, &int_attr, &flag));
  CHECK(flag == 1 && int_attr != NULL && *int_attr == ASSERTION);
  flag = 0;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFICATION_VALUE_UB, &count_attr, &flag));
  CHECK(flag == 1 && count_attr != NULL && *count_attr == INT64_MAX);

  /* Counts: MPI_ then PMPI_ twins. */
  CHECK_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 3));
  count = -1;
  CHECK_OK(PMPI_Win_get_num_notify(win, right, &count));
  CHECK(count == 3);
  CHECK_OK(PMPI_Win_set_num_notify(win, MPI_INFO_NULL, NUM_FUNCTIONS));
  count = -1;
  CHECK_OK(MPI_Win_get_num_notify(win, right, &count));
  CHECK(count == NUM_FUNCTIONS);
  CHECK(error_class_of(MPI_Win_get_notify_value(win, NUM_FUNCTIONS, &value)) ==
        MPI_ERR_RMA_NOTIFICATION);
  /* The code is the class itself, as native implementations return it. */
  CHECK(MPI_Win_get_notify_value(win, NUM_FUNCTIONS, &value) == MPI_ERR_RMA_NOTIFICATION);

  MPI_Win_lock_all(0, win);
  for (s = 0; s < NUM_SLOTS; ++s) {
    base[s] = initial(me, s);
    origin[s] = operand(me, s);
    result[s] = -1;
  }
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);

#define ORIGIN(s) &origin[s], 1, t
#define RESULT(s) &result[s], 1, t
#define TARGET(s) right, (MPI_Aint)(s), 1, t
#define ORIGIN_C(s) &origin[s], (MPI_Count)1, t
#define RESULT_C(s) &result[s], (MPI_Count)1, t
#define TARGET_C(s) right, (MPI_Aint)(s), (MPI_Count)1, t
#define REQ (&requests[num_requests++])
  CHECK_OK(MPI_Put_notify(ORIGIN(0), TARGET(0), 0, win));
  CHECK_OK(PMPI_Put_notify(ORIGIN(1), TARGET(1), 0, win));
  CHECK_OK(MPI_Get_notify(RESULT(2), TARGET(2), 1, win));
  CHECK_OK(PMPI_Get_notify(RESULT(3), TARGET(3), 1, win));
  CHECK_OK(MPI_Accumulate_notify(ORIGIN(4), TARGET(4), MPI_SUM, 2, win));
  CHECK_OK(PMPI_Accumulate_notify(ORIGIN(5), TARGET(5), MPI_SUM, 2, win));
  CHECK_OK(MPI_Get_accumulate_notify(ORIGIN(6), RESULT(6), TARGET(6), MPI_SUM, 3, win));
  CHECK_OK(PMPI_Get_accumulate_notify(ORIGIN(7), RESULT(7), TARGET(7), MPI_SUM, 3, win));
  CHECK_OK(MPI_Rput_notify(ORIGIN(8), TARGET(8), 4, win, REQ));
  CHECK_OK(PMPI_Rput_notify(ORIGIN(9), TARGET(9), 4, win, REQ));
  CHECK_OK(MPI_Rget_notify(RESULT(10), TARGET(10), 5, win, REQ));
  CHECK_OK(PMPI_Rget_notify(RESULT(11), TARGET(11), 5, win, REQ));
  CHECK_OK(MPI_Raccumulate_notify(ORIGIN(12), TARGET(12), MPI_SUM, 6, win, REQ));
  CHECK_OK(PMPI_Raccumulate_notify(ORIGIN(13), TARGET(13), MPI_SUM, 6, win, REQ));
  CHECK_OK(MPI_Rget_accumulate_notify(ORIGIN(14), RESULT(14), TARGET(14), MPI_SUM, 7, win, REQ));
  CHECK_OK(PMPI_Rget_accumulate_notify(ORIGIN(15), RESULT(15), TARGET(15), MPI_SUM, 7, win, REQ));
  CHECK_OK(MPI_Put_notify_c(ORIGIN_C(16), TARGET_C(16), 8, win));
  CHECK_OK(PMPI_Put_notify_c(ORIGIN_C(17), TARGET_C(17), 8, win));
  CHECK_OK(MPI_Get_notify_c(RESULT_C(18), TARGET_C(18), 9, win));
  CHECK_OK(PMPI_Get_notify_c(RESULT_C(19), TARGET_C(19), 9, win));
  CHECK_OK(MPI_Accumulate_notify_c(ORIGIN_C(20), TARGET_C(20), MPI_SUM, 10, win));
  CHECK_OK(PMPI_Accumulate_notify_c(ORIGIN_C(21), TARGET_C(21), MPI_SUM, 10, win));
  CHECK_OK(MPI_Get_accumulate_notify_c(ORIGIN_C(22), RESULT_C(22), TARGET_C(22), MPI_SUM, 11, win));
  CHECK_OK(
      PMPI_Get_accumulate_notify_c(ORIGIN_C(23), RESULT_C(23), TARGET_C(23), MPI_SUM, 11, win));
  CHECK_OK(MPI_Rput_notify_c(ORIGIN_C(24), TARGET_C(24), 12, win, REQ));
  CHECK_OK(PMPI_Rput_notify_c(ORIGIN_C(25), TARGET_C(25), 12, win, REQ));
  CHECK_OK(MPI_Rget_notify_c(RESULT_C(26), TARGET_C(26), 13, win, REQ));
  CHECK_OK(PMPI_Rget_notify_c(RESULT_C(27), TARGET_C(27), 13, win, REQ));
  CHECK_OK(MPI_Raccumulate_notify_c(ORIGIN_C(28), TARGET_C(28), MPI_SUM, 14, win, REQ));
  CHECK_OK(PMPI_Raccumulate_notify_c(ORIGIN_C(29), TARGET_C(29), MPI_SUM, 14, win, REQ));
  CHECK_OK(MPI_Rget_accumulate_notify_c(ORIGIN_C(30), RESULT_C(30), TARGET_C(30), MPI_SUM, 15, win,
                                        REQ));
  CHECK_OK(PMPI_Rget_accumulate_notify_c(ORIGIN_C(31), RESULT_C(31), TARGET_C(31), MPI_SUM, 15, win,
                                         REQ));
  CHECK(num_requests == 16);
  CHECK_OK(MPI_Waitall(num_requests, requests, statuses));
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Results at the origin, data at the target (written by the left rank). */
  for (f = 0; f < NUM_FUNCTIONS; ++f) {
    const int kind = f % 4; /* put, get, accumulate, get_accumulate */
    int twin;
    for (twin = 0; twin < 2; ++twin) {
      s = 2 * f + twin;
      if (kind == 0) {
        CHECK(base[s] == operand(left, s));
      } else if (kind == 1) {
        CHECK(result[s] == initial(right, s));
        CHECK(base[s] == initial(me, s));
      } else {
        CHECK(base[s] == initial(me, s) + operand(left, s));
        if (kind == 3) CHECK(result[s] == initial(right, s));
      }
    }
    value = -1;
    if (f % 2 == 0) {
      CHECK_OK(MPI_Win_get_notify_value(win, f, &value));
    } else {
      CHECK_OK(PMPI_Win_get_notify_value(win, f, &value));
    }
    if (value != 2) {
      ++failures;
      fprintf(stderr, "c_api_program: rank %d: counter %d is %lld, not 2\n", me, f,
              (long long)value);
    }
  }

  /* Threshold requests: one reached, one pending (then cancelled). */
  CHECK_OK(MPI_Win_notify_threshold(win, 0, 2, &request));
  CHECK_OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
  CHECK(request == MPI_REQUEST_NULL);
  CHECK_OK(PMPI_Win_notify_threshold(win, 1, 3, &request));
  flag = -1;
  CHECK_OK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0);
  CHECK_OK(MPI_Cancel(&request));
  CHECK_OK(MPI_Wait(&request, &status));
  flag = -1;
  MPI_Test_cancelled(&status, &flag);
  CHECK(flag == 1);

  /* Resets. */
  value = -1;
  CHECK_OK(MPI_Win_reset_notify_value(win, 2, &value));
  CHECK(value == 2);
  value = -1;
  CHECK_OK(PMPI_Win_reset_notify_value(win, 3, &value));
  CHECK(value == 2);
  CHECK_OK(MPI_Win_get_notify_value(win, 3, &value));
  CHECK(value == 0);

  CHECK_OK(MPI_Win_free(&win));
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) {
    if (all_failures == 0) {
      printf("c_api_program: all 42 functions work on %d process(es)\n", n);
    } else {
      printf("c_api_program: %d failed checks\n", all_failures);
    }
  }
  MPI_Finalize();
  return all_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
