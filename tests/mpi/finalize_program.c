/*
 * SEMANTICS 4.6, 6.3: a program that finalizes with windows still open
 * and a threshold request still pending. MPI_Finalize must release the
 * library's part of every window (collectively, oldest first), complete
 * the request as cancelled, neither hang nor crash, and leak nothing (the
 * sanitizer build checks that). Exit 0 on success.
 */
#include <mpi_notify.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win first, second;
  char *base = NULL;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &first);
  MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &second);
  MPI_Win_set_num_notify(first, MPI_INFO_NULL, 4);
  MPI_Win_set_num_notify(second, MPI_INFO_NULL, 100);

  MPI_Win_lock_all(0, second);
  MPI_Put_notify(NULL, 0, MPI_BYTE, (rank + 1) % size, 0, 0, MPI_BYTE, 99, second);
  MPI_Win_unlock_all(second);

  /* Never reached: the counter stays at 0. */
  MPI_Request pending;
  if (MPI_Win_notify_threshold(first, 3, 1, &pending) != MPI_SUCCESS) return 2;
  int done = 1;
  MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
  if (done) {
    fprintf(stderr, "finalize_program: threshold request completed early\n");
    return 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  printf("finalize_program: rank %d finalized with 2 windows open\n", rank);
  return 0;
}
