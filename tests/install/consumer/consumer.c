/* Each rank puts its rank into its right neighbour's window with a
 * notified put and waits for its left neighbour's. Exit 0 on success. */
#include <mpi_notify.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, *mem = NULL, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  *mem = -1;
  MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1);
  MPI_Win_lock_all(0, win);
  MPI_Put_notify(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, 0, win);
  MPI_Win_flush_all(win);
  MPI_Request request;
  MPI_Win_notify_threshold(win, 0, 1, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  if (*mem != (rank + size - 1) % size) {
    fprintf(stderr, "rank %d: got %d\n", rank, *mem);
    failed = 1;
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return failed;
}
