/*
 * Intel MPI's notified-RMA extension through mpinotify/mpix_intel.h
 * (docs/vendor_shims.md), used as Intel's Jacobi samples use it: a 1-D
 * Jacobi iteration over N_GLOBAL cells split across the ranks, two windows
 * (double buffering) with one notification counter each; every iteration a
 * rank computes its two border cells, puts them with MPIX_Put_notify into
 * its neighbours' ghost cells of the other buffer, computes its interior,
 * then polls its counter until both neighbours' puts are in and sets it
 * back to 0. Every rank compares its cells with a serial computation.
 * Then the extension's other calls and error paths: counts (not flags),
 * MPIX_Get_notify, an index out of range, a nonzero MPIX_Win_set_notify,
 * MPIX_Win_free_notify, and the later MPI_Win_notify_* names.
 * Exits non-zero on any failure.
 */
#include <mpinotify/mpix_intel.h>
#include <stdio.h>
#include <stdlib.h>

#define N_GLOBAL 601
#define ITERATIONS 200 /* even: the result is in buffer 0 */
#define POLL_SECONDS 60.0

static int failures = 0;
static int me = 0;

#define CHECK(cond)                                                                               \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      ++failures;                                                                                 \
      fprintf(stderr, "intel_jacobi: rank %d: line %d: check failed: %s\n", me, __LINE__, #cond); \
    }                                                                                             \
  } while (0)

#define CHECK_OK(call)                                                                         \
  do {                                                                                         \
    const int rc_ = (call);                                                                    \
    if (rc_ != MPI_SUCCESS) {                                                                  \
      ++failures;                                                                              \
      fprintf(stderr, "intel_jacobi: rank %d: line %d: %s returned %d\n", me, __LINE__, #call, \
              rc_);                                                                            \
    }                                                                                          \
  } while (0)

static int error_class_of(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

/* Block decomposition: rank r owns cells first(r) .. first(r) + cells(r) - 1
 * of 1 .. N_GLOBAL; 0 and N_GLOBAL + 1 are fixed boundary values. */
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

/* Polls counter idx as Intel's samples do until it reaches `want` (or the
 * time is up); returns the last value read, -1 on an error. */
static MPI_Count poll_counter(MPI_Win win, int idx, MPI_Count want, int later_names) {
  MPI_Count value = 0;
  const double start = MPI_Wtime();
  while (value < want) {
    const int rc = later_names ? MPI_Win_notify_get_value(win, idx, &value)
                               : MPIX_Win_get_notify(win, idx, &value);
    if (rc != MPI_SUCCESS) return -1;
    if (MPI_Wtime() - start > POLL_SECONDS) break;
  }
  return value;
}

int main(int argc, char **argv) {
  int size, n, left, right, nleft, neighbours, k, i, count, rc, total;
  double *buf[2], *user_memory, *reference, *next;
  MPI_Win win[2];
  MPI_Count value;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = cells(me, size);
  left = me > 0 ? me - 1 : MPI_PROC_NULL;
  right = me < size - 1 ? me + 1 : MPI_PROC_NULL;
  nleft = me > 0 ? cells(me - 1, size) : 0;
  neighbours = (left != MPI_PROC_NULL) + (right != MPI_PROC_NULL);

  /* The serial reference, on every rank. */
  reference = malloc((N_GLOBAL + 2) * sizeof(double));
  next = malloc((N_GLOBAL + 2) * sizeof(double));
  for (i = 0; i <= N_GLOBAL + 1; ++i) reference[i] = next[i] = initial(i);
  for (k = 0; k < ITERATIONS; ++k) {
    double *swap;
    for (i = 1; i <= N_GLOBAL; ++i) next[i] = 0.5 * (reference[i - 1] + reference[i + 1]);
    swap = reference, reference = next, next = swap;
  }

  /* Two windows, one per buffer (one allocated, one over user memory), each
   * with one counter: attached once by the 2021.13/14 name, once by the
   * 2021.15 one. */
  user_memory = malloc((size_t)(n + 2) * sizeof(double));
  CHECK_OK(MPI_Win_allocate((MPI_Aint)(n + 2) * (MPI_Aint)sizeof(double), sizeof(double),
                            MPI_INFO_NULL, MPI_COMM_WORLD, &buf[0], &win[0]));
  buf[1] = user_memory;
  CHECK_OK(MPI_Win_create(buf[1], (MPI_Aint)(n + 2) * (MPI_Aint)sizeof(double), sizeof(double),
                          MPI_INFO_NULL, MPI_COMM_WORLD, &win[1]));
  CHECK_OK(MPIX_Win_create_notify(win[0], 1));
  CHECK_OK(MPI_Win_notify_set_num(win[1], MPI_INFO_NULL, 1));
  for (k = 0; k < 2; ++k) {
    CHECK_OK(MPI_Win_get_num_notify(win[k], me, &count));
    CHECK(count == 1);
    for (i = 0; i <= n + 1; ++i) buf[k][i] = initial(first(me, size) - 1 + i);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Win_lock_all(0, win[0]);
  MPI_Win_lock_all(0, win[1]);
  for (k = 0; k < ITERATIONS; ++k) {
    const double *in = buf[k % 2];
    double *out = buf[(k + 1) % 2];
    MPI_Win current = win[(k + 1) % 2];
    /* Borders first, sent early; then the interior while they travel. */
    out[1] = 0.5 * (in[0] + in[2]);
    out[n] = 0.5 * (in[n - 1] + in[n + 1]);
    if (left != MPI_PROC_NULL)
      CHECK_OK(MPIX_Put_notify(&out[1], 1, MPI_DOUBLE, left, nleft + 1, 1, MPI_DOUBLE, 0, current));
    if (right != MPI_PROC_NULL)
      CHECK_OK(MPIX_Put_notify(&out[n], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, 0, current));
    for (i = 2; i < n; ++i) out[i] = 0.5 * (in[i - 1] + in[i + 1]);
    /* Both neighbours' borders of this iteration are in once the counter
     * reaches the number of neighbours; it is a count, and nobody can be an
     * iteration ahead, so it is exactly that. */
    CHECK_OK(MPI_Win_flush_all(current));
    value = poll_counter(current, 0, neighbours, k % 4 >= 2);
    CHECK(value == neighbours);
    if (k % 4 >= 2)
      CHECK_OK(MPI_Win_notify_set_value(current, 0, 0));
    else
      CHECK_OK(MPIX_Win_set_notify(current, 0, 0));
  }

  /* The result: own cells, and the ghost cells the neighbours put last. */
  for (i = 0; i <= n + 1; ++i) {
    const int g = first(me, size) - 1 + i;
    if (!same(buf[0][i], reference[g])) {
      ++failures;
      fprintf(stderr, "intel_jacobi: rank %d: cell %d is %.17g, expected %.17g\n", me, g, buf[0][i],
              reference[g]);
    }
  }
  CHECK_OK(MPI_Win_get_notify_value(win[0], 0, &value));
  CHECK(value == 0);
  CHECK_OK(MPI_Win_get_notify_value(win[1], 0, &value));
  CHECK(value == 0);

  /* Counts, not flags: two notified puts to the right neighbour (in a ring,
   * into its two ghost cells) leave its counter at 2. */
  MPI_Win_set_errhandler(win[0], MPI_ERRORS_RETURN);
  {
    const int r = (me + 1) % size, l = (me + size - 1) % size;
    const double first_value = 1000.0 + me, second_value = 2000.0 + me;
    const double bad = -777.0;
    double got = 0.0;
    MPI_Count untouched = -42;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPIX_Put_notify(&first_value, 1, MPI_DOUBLE, r, 0, 1, MPI_DOUBLE, 0, win[0]));
    CHECK_OK(MPIX_Put_notify(&second_value, 1, MPI_DOUBLE, r, cells(r, size) + 1, 1, MPI_DOUBLE, 0,
                             win[0]));
    CHECK_OK(MPI_Win_flush_all(win[0]));
    CHECK(poll_counter(win[0], 0, 2, 0) == 2);
    CHECK(buf[0][0] == 1000.0 + l);
    CHECK(buf[0][n + 1] == 2000.0 + l);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPIX_Win_get_notify(win[0], 0, &value));
    CHECK(value == 2);

    /* Index 1 is outside the target's one counter: an error, nothing moves. */
    rc = MPIX_Put_notify(&bad, 1, MPI_DOUBLE, r, 1, 1, MPI_DOUBLE, 1, win[0]);
    CHECK(rc == MPI_ERR_INVALID_NOTIFICATION);
    CHECK(error_class_of(rc) == MPI_ERR_INVALID_NOTIFICATION);
    rc = MPIX_Get_notify(&got, 1, MPI_DOUBLE, r, 1, 1, MPI_DOUBLE, -1, win[0]);
    CHECK(rc == MPI_ERR_INVALID_NOTIFICATION);
    CHECK(got == 0.0);
    CHECK_OK(MPI_Win_flush_all(win[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(same(buf[0][1], reference[first(me, size)]));
    rc = MPIX_Win_get_notify(win[0], 1, &untouched);
    CHECK(rc == MPI_ERR_INVALID_NOTIFICATION);
    rc = MPI_Win_notify_get_value(win[0], -1, &untouched);
    CHECK(error_class_of(rc) == MPI_ERR_INVALID_NOTIFICATION);
    CHECK(untouched == -42);

    /* Only 0 can be stored; another value is refused and changes nothing. */
    rc = MPIX_Win_set_notify(win[0], 0, 5);
    CHECK(rc == MPI_ERR_UNSUPPORTED_OPERATION);
    rc = MPI_Win_notify_set_value(win[0], 0, -1);
    CHECK(rc == MPI_ERR_ARG);
    rc = MPIX_Win_set_notify(win[0], 3, 0);
    CHECK(rc == MPI_ERR_INVALID_NOTIFICATION);
    CHECK_OK(MPIX_Win_get_notify(win[0], 0, &value));
    CHECK(value == 2);
    CHECK_OK(MPIX_Win_set_notify(win[0], 0, 0));
    CHECK_OK(MPIX_Win_get_notify(win[0], 0, &value));
    CHECK(value == 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPIX_Get_notify reads the right neighbour's first cell and counts at
     * the right neighbour (the target), once. */
    CHECK_OK(MPIX_Get_notify(&got, 1, MPI_DOUBLE, r, 1, 1, MPI_DOUBLE, 0, win[0]));
    CHECK_OK(MPI_Win_flush(r, win[0]));
    CHECK(same(got, reference[first(r, size)]));
    CHECK(poll_counter(win[0], 0, 1, 1) == 1);
    CHECK_OK(MPI_Win_flush_all(win[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPIX_Win_get_notify(win[0], 0, &value));
    CHECK(value == 1);
  }
  MPI_Win_unlock_all(win[1]);
  MPI_Win_unlock_all(win[0]);

  /* Detaching and attaching again, by every name (collective here). */
  CHECK_OK(MPIX_Win_free_notify(win[0]));
  CHECK_OK(MPI_Win_get_num_notify(win[0], me, &count));
  CHECK(count == 0);
  rc = MPIX_Win_get_notify(win[0], 0, &value);
  CHECK(rc == MPI_ERR_INVALID_NOTIFICATION);
  CHECK_OK(MPI_Win_notify_attach(win[0], 3, MPI_INFO_NULL));
  CHECK_OK(MPI_Win_get_num_notify(win[0], (me + 1) % size, &count));
  CHECK(count == 3);
  CHECK_OK(MPIX_Win_get_notify(win[0], 2, &value));
  CHECK(value == 0);
  CHECK_OK(MPI_Win_notify_detach(win[0]));
  CHECK_OK(MPI_Win_get_num_notify(win[0], me, &count));
  CHECK(count == 0);
  CHECK_OK(MPI_Win_notify_set_num(win[1], MPI_INFO_NULL, 0));
  CHECK_OK(MPI_Win_get_num_notify(win[1], me, &count));
  CHECK(count == 0);

  MPI_Win_free(&win[1]);
  MPI_Win_free(&win[0]);
  free(user_memory);
  free(reference);
  free(next);

  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("intel_jacobi: %d ranks, %d failures\n", size, total);
  MPI_Finalize();
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
