/*
 * No route at window creation (issue 10, SEMANTICS 5.4 and 6.1). The
 * library's UCX is kept to a second network (MPINOTIFY_UCX_NET_DEVICES=eth1)
 * while the launcher and the host MPI use the first; check_noroute.sh runs
 * this once with every route in place ("reachable") and once after one
 * host lost its route on the second network ("unreachable").
 *
 * - A window that asks for ucx (info mpinotify_backend) is made by ucx
 *   where the peers are reachable; where one is not, its creation fails
 *   on every rank with MPI_ERR_OTHER and no window, within the bound.
 * - A window that asks for nothing is made either way: by ucx where it
 *   can reach every rank, otherwise by the next backend (pmpi, over the
 *   host MPI's network).
 * - Each window carries a notified put to the rank's partner on the other
 *   host, checked at the target.
 * Each rank checks what it sees and exits non-zero on any failure.
 */
#include <mpi_notify.h>
#include <stdio.h>
#include <string.h>

#include "window_backend.h"

static int failures = 0;
static int rank = 0;

static void check(int ok, const char *what) {
  if (!ok) {
    printf("noroute_program: rank %d: FAILED: %s\n", rank, what);
    fflush(stdout);
    ++failures;
  }
}

/* A notified put to the partner, and the partner's put checked here. */
static void exchange(MPI_Win win, int *base, int partner) {
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
  MPI_Win_lock_all(0, win);
  const int value = 1000 + rank;
  check(MPI_Put_notify(&value, 1, MPI_INT, partner, 0, 1, MPI_INT, 0, win) == MPI_SUCCESS,
        "MPI_Put_notify");
  check(MPI_Win_flush(partner, win) == MPI_SUCCESS, "MPI_Win_flush");
  MPI_Count count = 0;
  const double start = MPI_Wtime();
  while (count < 1 && MPI_Wtime() - start < 30.0) MPI_Win_get_notify_value(win, 0, &count);
  check(count == 1, "the partner's notification did not arrive within 30 s");
  check(*base == 1000 + partner, "the partner's data is not in the window");
  MPI_Win_unlock_all(win);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int reachable = argc > 1 && strcmp(argv[1], "reachable") == 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int partner = rank ^ 1;
  if (size % 2 != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Info want_ucx;
  MPI_Info_create(&want_ucx);
  MPI_Info_set(want_ucx, MPINOTIFY_INFO_KEY_BACKEND, "ucx");
  int *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  double start = MPI_Wtime();
  int rc = MPI_Win_allocate(sizeof(int), sizeof(int), want_ucx, MPI_COMM_WORLD, &base, &win);
  const double took = MPI_Wtime() - start;
  int class = 0;
  MPI_Error_class(rc, &class);
  printf("noroute_program: rank %d: asked for ucx: error class %d after %.1f s\n", rank, class,
         took);
  fflush(stdout);
  if (reachable) {
    check(rc == MPI_SUCCESS, "ucx could not make a window with every route in place");
    if (rc == MPI_SUCCESS) {
      exchange(win, base, partner);
      MPI_Win_free(&win);
    }
  } else {
    check(class == MPI_ERR_OTHER, "the window that needs ucx did not fail with MPI_ERR_OTHER");
    check(win == MPI_WIN_NULL, "a failed creation left a window");
  }
  MPI_Info_free(&want_ucx);

  base = NULL;
  win = MPI_WIN_NULL;
  rc = MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  check(rc == MPI_SUCCESS, "a window that asks for no backend was not made");
  if (rc == MPI_SUCCESS) {
    char backend[MPI_MAX_INFO_VAL + 1] = "";
    window_backend(win, backend);
    printf("noroute_program: rank %d: default window served by %s\n", rank, backend);
    fflush(stdout);
    check(strcmp(backend, reachable ? "ucx" : "pmpi") == 0,
          reachable ? "the default window is not ucx's" : "the default window is not pmpi's");
    exchange(win, base, partner);
    MPI_Win_free(&win);
  }
  printf("noroute_program: rank %d: %s\n", rank, failures == 0 ? "ok" : "FAILED");
  fflush(stdout);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
