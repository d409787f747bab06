/*
 * Bull's notified-RMA extension through mpinotify/mpix_bull.h
 * (docs/vendor_shims.md), used as Bull's tests use it: a 1-D Jacobi
 * iteration over N_GLOBAL cells split across the ranks, in one window made
 * by MPIX_Win_allocate_notify (then again in one made by
 * MPIX_Win_create_notify) that holds two buffers; every iteration a rank
 * puts its two border cells into its neighbours' ghost cells of the other
 * buffer with MPIX_Put_notify, one identifier per direction and buffer,
 * computes its interior, and waits for its neighbours' identifiers with
 * MPIX_Win_wait_notify (left) and by polling MPIX_Win_test_notify (right).
 * Every rank compares its cells with a serial computation. Then the
 * identifiers' flag semantics (two notifications before a wait are one),
 * the largest identifier, MPIX_Get_notify, the six out-of-range calls of
 * Bull's robustness test, a window made without notifications, and a
 * creation that cannot get its counters.
 *
 * argv[1]: the largest identifier the windows must have (default 65536,
 * Bull's; the test registered with OMPI_MCA_mpi_max_notification_idx=7
 * passes 7). Exits non-zero on any failure.
 */
#include <mpinotify/mpix_bull.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_GLOBAL 601
#define ITERATIONS 200 /* even: the result is in buffer 0 */
#define POLL_SECONDS 60.0
#define FLAG_ID 4 /* identifiers 0..3: the Jacobi's */
#define GET_ID 5

static int failures = 0;
static int me = 0;

#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      ++failures;                                                                                \
      fprintf(stderr, "bull_jacobi: rank %d: line %d: check failed: %s\n", me, __LINE__, #cond); \
    }                                                                                            \
  } while (0)

#define CHECK_OK(call)                                                                        \
  do {                                                                                        \
    const int rc_ = (call);                                                                   \
    if (rc_ != MPI_SUCCESS) {                                                                 \
      ++failures;                                                                             \
      fprintf(stderr, "bull_jacobi: rank %d: line %d: %s returned %d\n", me, __LINE__, #call, \
              rc_);                                                                           \
    }                                                                                         \
  } while (0)

static int error_class_of(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static int cells(int r, int size) { return N_GLOBAL / size + (r < N_GLOBAL % size ? 1 : 0); }
static int first(int r, int size) {
  return 1 + r * (N_GLOBAL / size) + (r < N_GLOBAL % size ? r : N_GLOBAL % size);
}

static double initial(int i) {
  if (i == 0) return 1.0;
  if (i == N_GLOBAL + 1) return -0.5;
  return (double)((i * 37) % 101) / 100.0;
}

static int same(double a, double b) {
  const double d = a - b, scale = 1.0 + (b < 0 ? -b : b);
  return (d < 0 ? -d : d) <= 1e-12 * scale;
}

/* Polls MPIX_Win_test_notify until the identifier is raised (1) or the
 * time is up (0); -1 on an error. */
static int poll_test(MPI_Win win, int id) {
  const double start = MPI_Wtime();
  int flag = 0;
  while (!flag) {
    if (MPIX_Win_test_notify(win, id, &flag) != MPI_SUCCESS) return -1;
    if (!flag && MPI_Wtime() - start > POLL_SECONDS) return 0;
  }
  return 1;
}

static double reference[N_GLOBAL + 2];

/* The Jacobi in `win`, whose memory at `base` is two buffers of n + 2
 * cells: buffer b of rank r starts at displacement b * (cells(r) + 2). */
static void jacobi(MPI_Win win, double *base, int size) {
  const int n = cells(me, size);
  const int left = me > 0 ? me - 1 : MPI_PROC_NULL;
  const int right = me < size - 1 ? me + 1 : MPI_PROC_NULL;
  const int nleft = me > 0 ? cells(me - 1, size) : 0;
  const int nright = me < size - 1 ? cells(me + 1, size) : 0;
  int k, i, b;
  for (b = 0; b < 2; ++b)
    for (i = 0; i <= n + 1; ++i) base[b * (n + 2) + i] = initial(first(me, size) - 1 + i);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (k = 0; k < ITERATIONS; ++k) {
    const int p = (k + 1) % 2; /* the buffer written */
    const double *in = base + (k % 2) * (n + 2);
    double *out = base + p * (n + 2);
    out[1] = 0.5 * (in[0] + in[2]);
    out[n] = 0.5 * (in[n - 1] + in[n + 1]);
    /* Identifier 2p: from the left neighbour; 2p + 1: from the right. */
    if (left != MPI_PROC_NULL)
      CHECK_OK(MPIX_Put_notify(&out[1], 1, MPI_DOUBLE, left, p * (nleft + 2) + nleft + 1, 1,
                               MPI_DOUBLE, win, 2 * p + 1));
    if (right != MPI_PROC_NULL)
      CHECK_OK(MPIX_Put_notify(&out[n], 1, MPI_DOUBLE, right, p * (nright + 2), 1, MPI_DOUBLE, win,
                               2 * p));
    for (i = 2; i < n; ++i) out[i] = 0.5 * (in[i - 1] + in[i + 1]);
    if (left != MPI_PROC_NULL) CHECK_OK(MPIX_Win_wait_notify(win, 2 * p));
    if (right != MPI_PROC_NULL) CHECK(poll_test(win, 2 * p + 1) == 1);
  }
  MPI_Win_unlock_all(win);
  for (i = 0; i <= n + 1; ++i) {
    const int g = first(me, size) - 1 + i;
    if (!same(base[i], reference[g])) {
      ++failures;
      fprintf(stderr, "bull_jacobi: rank %d: cell %d is %.17g, expected %.17g\n", me, g, base[i],
              reference[g]);
    }
  }
  /* Every identifier was consumed. */
  for (i = 0; i < 4; ++i) {
    int flag = -1;
    CHECK_OK(MPIX_Win_test_notify(win, i, &flag));
    CHECK(flag == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static int creation_errors = 0, creation_error_code = MPI_SUCCESS;
static void record_error(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  ++creation_errors;
  creation_error_code = *code;
}

int main(int argc, char **argv) {
  int size, n, r, l, i, k, rc, count, flag, total, max_id = 65536;
  double *base = NULL, *user_memory, *next;
  MPI_Win win;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) max_id = atoi(argv[1]);
  if (max_id < GET_ID) {
    fprintf(stderr, "bull_jacobi: the largest identifier must be at least %d\n", GET_ID);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  n = cells(me, size);
  r = (me + 1) % size;
  l = (me + size - 1) % size;

  next = malloc((N_GLOBAL + 2) * sizeof(double));
  for (i = 0; i <= N_GLOBAL + 1; ++i) reference[i] = next[i] = initial(i);
  for (k = 0; k < ITERATIONS; ++k) {
    for (i = 1; i <= N_GLOBAL; ++i) next[i] = 0.5 * (reference[i - 1] + reference[i + 1]);
    memcpy(reference, next, sizeof reference);
  }

  /* The Jacobi in a window over user memory. */
  user_memory = malloc((size_t)(2 * (n + 2)) * sizeof(double));
  CHECK_OK(MPIX_Win_create_notify(user_memory, (MPI_Aint)(2 * (n + 2)) * (MPI_Aint)sizeof(double),
                                  sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_OK(MPI_Win_get_num_notify(win, me, &count));
  CHECK(count == max_id + 1);
  jacobi(win, user_memory, size);
  MPI_Win_free(&win);
  free(user_memory);

  /* The Jacobi in an allocated window, then the rest in it. */
  CHECK_OK(MPIX_Win_allocate_notify((MPI_Aint)(2 * (n + 2)) * (MPI_Aint)sizeof(double),
                                    sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK_OK(MPI_Win_get_num_notify(win, r, &count));
  CHECK(count == max_id + 1);
  jacobi(win, base, size);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(0, win);
  {
    const double a = 100.0 + me, c = 200.0 + me, bad = -777.0;
    double got = 0.0;

    /* Two notifications with one identifier before the wait are one: after
     * the wait, the identifier is down. */
    CHECK_OK(MPIX_Put_notify(&a, 1, MPI_DOUBLE, r, 0, 1, MPI_DOUBLE, win, FLAG_ID));
    CHECK_OK(
        MPIX_Put_notify(&c, 1, MPI_DOUBLE, r, cells(r, size) + 1, 1, MPI_DOUBLE, win, FLAG_ID));
    CHECK_OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPIX_Win_wait_notify(win, FLAG_ID));
    CHECK(base[0] == 100.0 + l);
    CHECK(base[n + 1] == 200.0 + l);
    flag = -1;
    CHECK_OK(MPIX_Win_test_notify(win, FLAG_ID, &flag));
    CHECK(flag == 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* One more: raised once, consumed once. The largest identifier works. */
    CHECK_OK(MPIX_Put_notify(&a, 1, MPI_DOUBLE, r, 0, 1, MPI_DOUBLE, win, FLAG_ID));
    CHECK_OK(MPIX_Put_notify(&c, 0, MPI_DOUBLE, r, 0, 0, MPI_DOUBLE, win, max_id));
    CHECK(poll_test(win, FLAG_ID) == 1);
    CHECK_OK(MPIX_Win_wait_notify(win, max_id));
    flag = -1;
    CHECK_OK(MPIX_Win_test_notify(win, FLAG_ID, &flag));
    CHECK(flag == 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPIX_Get_notify raises the identifier at the process read from. */
    CHECK_OK(MPIX_Get_notify(&got, 1, MPI_DOUBLE, r, 1, 1, MPI_DOUBLE, win, GET_ID));
    CHECK_OK(MPI_Win_flush(r, win));
    CHECK(same(got, reference[first(r, size)]));
    CHECK_OK(MPIX_Win_wait_notify(win, GET_ID));
    MPI_Barrier(MPI_COMM_WORLD);

    /* Bull's robustness test: six calls outside [0, max], six errors of
     * class MPI_ERR_RMA_NOTIF_RANGE; nothing moves, flag stays. */
    rc = MPIX_Put_notify(&bad, 1, MPI_DOUBLE, r, 1, 1, MPI_DOUBLE, win, max_id + 1);
    CHECK(rc == MPI_ERR_RMA_NOTIF_RANGE);
    rc = MPIX_Put_notify(&bad, 1, MPI_DOUBLE, r, 1, 1, MPI_DOUBLE, win, -1);
    CHECK(error_class_of(rc) == MPI_ERR_RMA_NOTIF_RANGE);
    rc = MPIX_Win_wait_notify(win, max_id + 1);
    CHECK(rc == MPI_ERR_RMA_NOTIF_RANGE);
    rc = MPIX_Win_wait_notify(win, -1);
    CHECK(rc == MPI_ERR_RMA_NOTIF_RANGE);
    flag = -1;
    rc = MPIX_Win_test_notify(win, max_id + 1, &flag);
    CHECK(rc == MPI_ERR_RMA_NOTIF_RANGE);
    rc = MPIX_Win_test_notify(win, -1, &flag);
    CHECK(rc == MPI_ERR_RMA_NOTIF_RANGE);
    CHECK(flag == -1);
    CHECK_OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(same(base[1], reference[first(me, size)]));
    for (i = 0; i <= GET_ID; ++i) {
      flag = -1;
      CHECK_OK(MPIX_Win_test_notify(win, i, &flag));
      CHECK(flag == 0);
    }
    /* MPI_PROC_NULL: nothing, successfully. */
    CHECK_OK(MPIX_Put_notify(&bad, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 1, MPI_DOUBLE, win, 0));
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  CHECK(win == MPI_WIN_NULL);

  /* A window made without the notify constructors has no identifiers:
   * waiting on one is an error (Bull: MPI_ERR_WIN), not a hang. */
  CHECK_OK(
      MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  rc = MPIX_Win_wait_notify(win, 0);
  CHECK(rc != MPI_SUCCESS);
  CHECK(error_class_of(rc) == MPI_ERR_RMA_NOTIF_RANGE);
  MPI_Win_free(&win);

  /* A creation whose counters cannot be had (fewer asserted than the
   * identifiers need) fails on every rank through the communicator's
   * handler, and leaves no window. */
  {
    MPI_Comm comm;
    MPI_Errhandler handler;
    MPI_Info info;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(record_error, &handler);
    MPI_Comm_set_errhandler(comm, handler);
    MPI_Info_create(&info);
    MPI_Info_set(info, MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY, "4");
    win = MPI_WIN_NULL;
    base = NULL;
    rc = MPIX_Win_allocate_notify(64, 1, info, comm, &base, &win);
    CHECK(rc == MPI_ERR_ARG);
    CHECK(win == MPI_WIN_NULL);
    CHECK(creation_errors == 1);
    CHECK(creation_error_code == MPI_ERR_ARG);
    if (win != MPI_WIN_NULL) MPI_Win_free(&win);
    MPI_Info_free(&info);
    MPI_Errhandler_free(&handler);
    MPI_Comm_free(&comm);
  }

  free(next);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("bull_jacobi: %d ranks, largest identifier %d, %d failures\n", size, max_id, total);
  MPI_Finalize();
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
