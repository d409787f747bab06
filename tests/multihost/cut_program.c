/*
 * A link cut across hosts (issue 10, SEMANTICS 6.3): every rank streams
 * notified puts to a partner on another host (rank r and r ^ 1 sit on
 * different hosts when ranks go round-robin over two hosts), flushes every
 * few puts and polls the counter its partner moves. check_cut.sh takes one
 * host's link down once every rank said it streams.
 *
 * The window returns errors, so that each rank can say which call failed,
 * how long after its last progress, and with which MPI error; then it
 * aborts, as MPI_ERRORS_ARE_FATAL would have. A rank whose counter stops
 * moving for LIMIT seconds (argv[1], default 120) with no error from any
 * call says so and aborts too: that is the silent hang the check fails on.
 */
#include <mpi_notify.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void fail(int rank, const char *call, int code, double stalled) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  int class = 0;
  MPI_Error_string(code, text, &length);
  MPI_Error_class(code, &class);
  printf("cut_program: rank %d: %s failed after %.1f s without progress (class %d): %s\n", rank,
         call, stalled, class, text);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const double limit = argc > 1 ? atof(argv[1]) : 120.0;
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int partner = rank ^ 1;
  if (size % 2 != 0) {
    if (rank == 0) printf("cut_program: needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
  MPI_Win_lock_all(0, win);
  MPI_Barrier(MPI_COMM_WORLD);

  static char data[1024];
  MPI_Count seen = 0;
  double last_progress = MPI_Wtime();
  int said = 0;
  for (long i = 0;; ++i) {
    int code =
        MPI_Put_notify(data, sizeof data, MPI_BYTE, partner, 0, sizeof data, MPI_BYTE, 0, win);
    if (code != MPI_SUCCESS) fail(rank, "MPI_Put_notify", code, MPI_Wtime() - last_progress);
    if (i % 16 == 15) {
      code = MPI_Win_flush(partner, win);
      if (code != MPI_SUCCESS) fail(rank, "MPI_Win_flush", code, MPI_Wtime() - last_progress);
    }
    MPI_Count value = 0;
    code = MPI_Win_get_notify_value(win, 0, &value);
    if (code != MPI_SUCCESS)
      fail(rank, "MPI_Win_get_notify_value", code, MPI_Wtime() - last_progress);
    const double now = MPI_Wtime();
    if (value != seen) {
      seen = value;
      last_progress = now;
    }
    if (!said && seen >= 1000) {
      printf("cut_program: rank %d streams\n", rank);
      fflush(stdout);
      said = 1;
    }
    if (now - last_progress > limit) {
      printf("cut_program: rank %d: SILENT: no progress and no error for %.0f s\n", rank, limit);
      fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    if (i % 64 == 63) usleep(100); /* leave the other ranks some CPU */
  }
}
