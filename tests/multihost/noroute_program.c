/*
 * No route on the library's network (issue 10, SEMANTICS 6.1). The
 * library's UCX (or, with MPINOTIFY_BACKEND=ofi, libfabric's tcp provider)
 * is kept to a second network (MPINOTIFY_UCX_NET_DEVICES=eth1,
 * FI_TCP_IFACE=eth1) while the launcher and the host MPI use the first;
 * check_noroute.sh runs this once with every route in place ("reachable")
 * and once after one host lost its route on the second network
 * ("unreachable").
 *
 * ucx and ofi connect to a peer on the first operation to it, not at
 * window creation, so every window is made either way:
 * - a window that asks for the backend (info mpinotify_backend: ucx, or
 *   what MPINOTIFY_BACKEND forces), and one that asks for nothing (the
 *   ranks share no memory, so that backend serves it too);
 * - each carries a notified put to the rank's partner on the other host:
 *   where the partner is reachable, the put lands and is checked at the
 *   target; where it is not, the put fails with MPI_ERR_OTHER through the
 *   window's handler after MPINOTIFY_PEER_TIMEOUT, and a second put tries
 *   the connection again and fails the same way (on the first window).
 * Each rank checks what it sees and exits non-zero on any failure.
 */
#include <mpi_notify.h>
#include <stdio.h>
#include <stdlib.h>
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

static int error_class(int rc) {
  int class = 0;
  MPI_Error_class(rc, &class);
  return class;
}

/* The backend under test: what MPINOTIFY_BACKEND forces, else ucx. */
static const char *backend_wanted(void) {
  const char *forced = getenv("MPINOTIFY_BACKEND");
  return forced != NULL && forced[0] != '\0' ? forced : "ucx";
}

/* A notified put to the partner that must fail: MPI_ERR_OTHER, after about
 * the peer timeout. */
static void put_fails(MPI_Win win, int partner, const char *which) {
  const int value = 1000 + rank;
  const double start = MPI_Wtime();
  const int rc = MPI_Put_notify(&value, 1, MPI_INT, partner, 0, 1, MPI_INT, 0, win);
  printf(
      "noroute_program: rank %d: %s put to the unreachable partner: error class %d after "
      "%.1f s\n",
      rank, which, error_class(rc), MPI_Wtime() - start);
  fflush(stdout);
  check(error_class(rc) == MPI_ERR_OTHER,
        "a put to the unreachable partner did not fail with MPI_ERR_OTHER");
}

/* A notified put to the partner, and the partner's put checked here; or,
 * unreachable, puts that fail (`tries` of them). */
static void exchange(MPI_Win win, int *base, int partner, int reachable, int tries) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
  MPI_Win_lock_all(0, win);
  if (!reachable) {
    put_fails(win, partner, "first");
    if (tries > 1) put_fails(win, partner, "second");
    check(MPI_Win_unlock_all(win) == MPI_SUCCESS, "MPI_Win_unlock_all after the failed puts");
    return;
  }
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

/* A window asking for `info`, made by the backend under test either way,
 * and its exchange. */
static void window_over(MPI_Info info, const char *what, int reachable, int partner, int tries) {
  int *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  const double start = MPI_Wtime();
  const int rc = MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win);
  printf("noroute_program: rank %d: %s: error class %d after %.1f s\n", rank, what, error_class(rc),
         MPI_Wtime() - start);
  fflush(stdout);
  check(rc == MPI_SUCCESS, "window creation failed (it connects to no one)");
  if (rc != MPI_SUCCESS) return;
  char backend[MPI_MAX_INFO_VAL + 1] = "";
  window_backend(win, backend);
  printf("noroute_program: rank %d: %s: served by %s\n", rank, what, backend);
  fflush(stdout);
  check(strcmp(backend, backend_wanted()) == 0, "the window is not the backend's under test");
  exchange(win, base, partner, reachable, tries);
  MPI_Win_free(&win);
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

  MPI_Info want;
  MPI_Info_create(&want);
  MPI_Info_set(want, MPINOTIFY_INFO_KEY_BACKEND, backend_wanted());
  window_over(want, "asked for the backend", reachable, partner, 2);
  MPI_Info_free(&want);
  window_over(MPI_INFO_NULL, "asked for nothing", reachable, partner, 1);

  printf("noroute_program: rank %d: %s\n", rank, failures == 0 ? "ok" : "FAILED");
  fflush(stdout);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
