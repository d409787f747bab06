/*
 * SEMANTICS 6.1: with the default error handler (MPI_ERRORS_ARE_FATAL) a
 * notification error is fatal, after one line on stderr naming the function
 * and the cause. ctest matches that line; if the program gets past the
 * error, it says so (ctest's FAIL_REGULAR_EXPRESSION) and exits 0.
 */
#include <mpi_notify.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int me = 0;
  void *base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  const double value = 1.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
  MPI_Win_lock_all(0, win);
  if (me == 0) {
    /* Index 5 of 1 attached counter: MPI_ERR_RMA_NOTIFICATION, fatal. */
    MPI_Put_notify(&value, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, 5, win);
    fprintf(stderr, "fatal_error_program: the error was not fatal\n");
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
