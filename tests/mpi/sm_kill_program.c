/*
 * SEMANTICS 6.3 (sm backend): shared-memory segments are unlinked as soon
 * as every rank has mapped them, so a rank killed with SIGKILL mid-run
 * leaves nothing of the library in /dev/shm. This program makes several
 * segments (windows of every flavor, growth), prints its pid and backend,
 * and then rank 1 (or rank 0 alone) kills itself while the others poll.
 * check_shm_cleanup.cmake runs it and inspects /dev/shm afterwards.
 */
#include <mpi_notify.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *base = NULL;
  MPI_Win wins[2];
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &wins[0]);
  MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &wins[1]);
  for (int w = 0; w < 2; ++w) {
    for (int n = 4; n <= 4096; n *= 8) MPI_Win_set_num_notify(wins[w], MPI_INFO_NULL, n);
  }
  MPI_Info info;
  char backend[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Win_get_info(wins[0], &info);
  MPI_Info_get(info, MPINOTIFY_INFO_KEY_BACKEND, MPI_MAX_INFO_VAL, backend, &flag);
  MPI_Info_free(&info);
  printf("sm_kill_program: rank %d pid %d backend %s\n", rank, (int)getpid(), backend);
  fflush(stdout);
  MPI_Win_lock_all(0, wins[0]);
  MPI_Put_notify(NULL, 0, MPI_BYTE, (rank + 1) % size, 0, 0, MPI_BYTE, 1, wins[0]);
  MPI_Win_flush_all(wins[0]);
  MPI_Barrier(MPI_COMM_WORLD);
  const int victim = size > 1 ? 1 : 0;
  if (rank == victim) {
    raise(SIGKILL);
  }
  /* The others wait on a counter nobody will move; the launcher ends them. */
  MPI_Count value = 0;
  for (;;) {
    MPI_Win_get_notify_value(wins[0], 3, &value);
    usleep(1000);
  }
}
